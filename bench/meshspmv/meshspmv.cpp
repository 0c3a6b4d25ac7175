// bench/meshspmv: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "meshspmv.hpp"

BENCH_KERNEL("meshspmv", bench::meshspmv::run<bench::active_system>);
