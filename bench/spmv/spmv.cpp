// bench/spmv: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "spmv.hpp"

BENCH_KERNEL("spmv", bench::spmv::run<bench::active_system>);
