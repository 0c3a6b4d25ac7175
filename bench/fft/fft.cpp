// bench/fft: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "fft.hpp"

BENCH_KERNEL("fft", bench::fft::run<bench::active_system>);
