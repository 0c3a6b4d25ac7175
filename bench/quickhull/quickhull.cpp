// bench/quickhull: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "quickhull.hpp"

BENCH_KERNEL("quickhull", bench::quickhull::run<bench::active_system>);
