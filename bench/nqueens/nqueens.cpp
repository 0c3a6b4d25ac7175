// bench/nqueens: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "nqueens.hpp"

BENCH_KERNEL("nqueens", bench::nqueens::run<bench::active_system>);
