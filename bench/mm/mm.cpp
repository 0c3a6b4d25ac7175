// bench/mm: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "mm.hpp"

BENCH_KERNEL("mm", bench::mm::run<bench::active_system>);
