// bench/uts: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "uts.hpp"

BENCH_KERNEL("uts-geo", bench::uts::run_geo<bench::active_system>);
BENCH_KERNEL("uts-bin", bench::uts::run_bin<bench::active_system>);
