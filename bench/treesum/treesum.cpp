// bench/treesum: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "treesum.hpp"

BENCH_KERNEL("treesum", bench::treesum::run<bench::active_system>);
