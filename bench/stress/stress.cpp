// bench/stress: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "stress.hpp"

BENCH_KERNEL("stress", bench::stress::run<bench::active_system>);
