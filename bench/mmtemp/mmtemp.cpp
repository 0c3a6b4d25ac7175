// bench/mmtemp: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "mmtemp.hpp"

BENCH_KERNEL("mmtemp", bench::mmtemp::run<bench::active_system>);
