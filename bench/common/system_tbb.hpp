// bench/common/system_tbb.hpp: oneTBB as a system adapter (bench/common/system.hpp): a join is a
// tbb::parallel_invoke, loops are tbb::parallel_for / parallel_reduce over a blocked_range with
// the default (auto) partitioner and grain.  The kernel already runs inside the task_arena of
// system_tbb.cpp, so entering the timed region is a plain call.
#pragma once

#include <memory>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>

#include "branch.hpp"

namespace bench {

struct tbb_system {
    // Temporaries (bench/common/temp.hpp): plain operator new.
    template <class T>
    using allocator = std::allocator<T>;

    template <class F>
    static auto run_tasks(F&& f) {
        return f();
    }
    template <class F>
    static auto run_loops(F&& f) {
        return f();
    }

    template <class F, class G>
    BENCH_INLINE static std::pair<branch_result<F>, branch_result<G>> join(F&& f, G&& g) {
        std::pair<branch_result<F>, branch_result<G>> r{};
        tbb::parallel_invoke([&] { r.first = call_branch(f); }, [&] { r.second = call_branch(g); });
        return r;
    }

    template <class I, class Body>
    static void parallel_for(I lo, I hi, Body&& body) {
        if (!(lo < hi)) return;
        tbb::parallel_for(tbb::blocked_range<I>(lo, hi), [&](const tbb::blocked_range<I>& r) {
            for (I i = r.begin(); i != r.end(); ++i) body(i);
        });
    }
    template <class I, class Body>
    static void flat_for(I lo, I hi, Body&& body) {
        parallel_for(lo, hi, body);
    }

    // init is combine's identity (each split of the range starts from it).
    template <class I, class T, class Map, class Combine>
    static T parallel_reduce(I lo, I hi, T init, Map&& map, Combine&& combine) {
        if (!(lo < hi)) return init;
        return tbb::parallel_reduce(
            tbb::blocked_range<I>(lo, hi), init,
            [&](const tbb::blocked_range<I>& r, T acc) {
                for (I i = r.begin(); i != r.end(); ++i) acc = combine(acc, map(i));
                return acc;
            },
            combine);
    }
};

}  // namespace bench
