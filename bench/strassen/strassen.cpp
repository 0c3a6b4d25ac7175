// bench/strassen: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "strassen.hpp"

BENCH_KERNEL("strassen", bench::strassen::run<bench::active_system>);
