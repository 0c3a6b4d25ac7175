// bench/bfs: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "bfs.hpp"

BENCH_KERNEL("bfs", bench::bfs::run<bench::active_system>);
