// bench/flat_spmv: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "flat_spmv.hpp"

BENCH_KERNEL("flat_spmv", bench::flat_spmv::run<bench::active_system>,
             bench::has_schedule_variant<bench::active_system>);
