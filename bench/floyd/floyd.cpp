// bench/floyd: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "floyd.hpp"

BENCH_KERNEL("floyd", bench::floyd::run<bench::active_system>);
