// bench/stencil: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "stencil.hpp"

BENCH_KERNEL("stencil", bench::stencil::run<bench::active_system>,
             bench::has_schedule_variant<bench::active_system>);
