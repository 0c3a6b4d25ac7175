// bench/ssf: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "ssf.hpp"

BENCH_KERNEL("ssf", bench::ssf::run<bench::active_system>);
