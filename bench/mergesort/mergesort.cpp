// bench/mergesort: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "mergesort.hpp"

BENCH_KERNEL("mergesort", bench::mergesort::run<bench::active_system>);
