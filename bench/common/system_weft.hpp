// bench/common/system_weft.hpp: weft as a system adapter (bench/common/system.hpp): every join a
// weft::join, every loop a weft::parallel_for / parallel_reduce with no grain (KERNELS.md,
// "declarative"), the timed region one run of the benchmark's pool.
#pragma once

#include <utility>

#include <weft/weft.hpp>

#include "branch.hpp"

namespace bench {

// The pool built by system_setup from --workers and --policy.
weft::pool& weft_pool();

struct weft_system {
    // Temporaries (bench/common/temp.hpp) through weft::malloc: counted in heap_peak_bytes.
    template <class T>
    using allocator = weft::allocator<T>;

    template <class F>
    static auto run_tasks(F&& f) {
        return weft_pool().run(std::forward<F>(f));
    }
    template <class F>
    static auto run_loops(F&& f) {
        return weft_pool().run(std::forward<F>(f));
    }

    // Forwarded as they came: a temporary closure goes into weft's frame as it is.
    template <class F, class G>
    BENCH_INLINE static auto join(F&& f, G&& g) {
        return weft::join(std::forward<F>(f), std::forward<G>(g));
    }

    template <class I, class Body>
    BENCH_INLINE static void parallel_for(I lo, I hi, Body&& body) {
        weft::parallel_for(lo, hi, std::forward<Body>(body));
    }
    template <class I, class Body>
    BENCH_INLINE static void flat_for(I lo, I hi, Body&& body) {
        weft::parallel_for(lo, hi, std::forward<Body>(body));
    }

    template <class I, class T, class Map, class Combine>
    BENCH_INLINE static T parallel_reduce(I lo, I hi, T init, Map&& map, Combine&& combine) {
        return weft::parallel_reduce(lo, hi, std::move(init), std::forward<Map>(map),
                                     std::forward<Combine>(combine));
    }
};

}  // namespace bench
