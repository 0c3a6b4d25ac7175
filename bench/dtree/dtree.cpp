// bench/dtree: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "dtree.hpp"

BENCH_KERNEL("dtree", bench::dtree::run<bench::active_system>);
