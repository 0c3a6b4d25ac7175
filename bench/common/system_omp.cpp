// bench/common/system_omp.cpp: OpenMP (libgomp with gcc, libomp with clang); the name
// ("omp-gcc" / "omp-clang") comes from the build (BENCH_SYSTEM_NAME).
#include <omp.h>

#include <stdexcept>
#include <string>

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
    // OMP_THREAD_LIMIT (or another runtime setting) can cap the team below the request while
    // the JSON line would still say "workers": P: refuse to measure rather than mislabel.
    const int p = static_cast<int>(a.workers);
    if (omp_get_max_threads() != p || omp_get_thread_limit() < p)
        throw std::runtime_error("OpenMP would not run --workers " + std::to_string(p) +
                                 " threads (omp_get_max_threads() = " +
                                 std::to_string(omp_get_max_threads()) +
                                 ", omp_get_thread_limit() = " +
                                 std::to_string(omp_get_thread_limit()) +
                                 "; is OMP_THREAD_LIMIT set?)");
}

output system_run(kernel_fn fn, const args& a) { return fn(a); }

}  // namespace bench
