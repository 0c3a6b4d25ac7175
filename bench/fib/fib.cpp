// bench/fib: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "fib.hpp"

BENCH_KERNEL("fib", bench::fib::run<bench::active_system>);
