// bench/common/system_omp.cpp: OpenMP (libgomp with gcc, libomp with clang); the name
// ("omp-gcc" / "omp-clang") comes from the build (BENCH_SYSTEM_NAME).
#include <omp.h>

#include "bench.hpp"

#ifndef BENCH_SYSTEM_NAME
#if defined(__clang__)
#define BENCH_SYSTEM_NAME "omp-clang"
#else
#define BENCH_SYSTEM_NAME "omp-gcc"
#endif
#endif

namespace bench {

const char* system_name() { return BENCH_SYSTEM_NAME; }

void system_setup(const args& a) {
    reject_policy(a);
    omp_set_dynamic(0);  // exactly a.workers threads in every parallel region
    omp_set_num_threads(static_cast<int>(a.workers));
}

output system_run(kernel_fn fn, const args& a) { return fn(a); }

}  // namespace bench
