// bench/tsp: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "tsp.hpp"

BENCH_KERNEL("tsp", bench::tsp::run<bench::active_system>);
