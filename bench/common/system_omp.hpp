// bench/common/system_omp.hpp: OpenMP as a system adapter (bench/common/system.hpp), built with
// gcc's libgomp (omp-gcc) and clang's libomp (omp-clang).  OpenMP's own idioms:
//
// * a join is a task for the first branch, the second inline, then taskwait (as the BOTS codes
//   write a fork of two), inside one `parallel` + `single` region entered by run_tasks;
// * a loop inside that task recursion is a taskloop (OpenMP's loop over tasks; no grainsize, so
//   the implementation picks the number of tasks, like TBB's auto partitioner).  taskloop's
//   reduction clause takes built-in operators only, so parallel_reduce is a taskloop over one
//   chunk per thread of the team (about what libgomp's taskloop makes without a grainsize), each
//   chunk folded serially into its own slot, the slots combined in index order.  (Before the
//   adapter, nqueens used a taskloop, uts and tsp one task per child, quickhull recursive
//   halving into tasks: each kernel its own choice; now every kernel gets OpenMP's one idiom);
// * a flat loop (flat_for, in a run_loops region) is `parallel for` with `schedule(static)`
//   (what both runtimes do for an `omp for` without a schedule clause), the `omp for` of the
//   papers' OpenMP codes; a flat-loop kernel's `--variant dynamic` makes it `schedule(dynamic)`
//   (flat_schedule, set by select_flat_schedule, bench/common/schedule.hpp).  A loop nested in a flat loop's iteration runs
//   serially on that thread: OpenMP has no cheap nested worksharing loop, and a nested parallel
//   region or a task per iteration would cost far more than the iteration (spmv's rows, bfs's
//   neighbour lists).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <omp.h>

#include "branch.hpp"
#include "schedule.hpp"

namespace bench {

struct omp_system {
    // Temporaries (bench/common/temp.hpp): plain operator new.
    template <class T>
    using allocator = std::allocator<T>;

    // True on a thread while it runs iterations of a flat_for: nested loops then run serially.
    static inline thread_local bool in_flat_loop = false;
    // The schedule of flat_for's `omp for`: set once before the timed region, read only by
    // the thread that opens each parallel region.
    static inline omp_schedule flat_schedule = omp_schedule::static_blocks;

    template <class F>
    static auto run_tasks(F&& f) {
        if constexpr (std::is_void_v<decltype(f())>) {
#pragma omp parallel
#pragma omp single
            f();
        } else {
            decltype(f()) r{};
#pragma omp parallel
#pragma omp single
            r = f();
            return r;
        }
    }
    template <class F>
    static auto run_loops(F&& f) {
        return f();
    }

    template <class F, class G>
    static std::pair<branch_result<F>, branch_result<G>> join(F&& f, G&& g) {
        std::pair<branch_result<F>, branch_result<G>> r{};
#pragma omp task shared(r, f)
        r.first = call_branch(f);
        r.second = call_branch(g);
#pragma omp taskwait
        return r;
    }

    template <class I, class Body>
    static void parallel_for(I lo, I hi, Body&& body) {
        if (!(lo < hi)) return;
        if (in_flat_loop) {
            for (I i = lo; i < hi; ++i) body(i);
            return;
        }
        // An unsigned trip count: clang warns about sign comparisons in its taskloop code.
        const unsigned long n = static_cast<unsigned long>(hi - lo);
#pragma omp taskloop shared(body) firstprivate(lo)
        for (unsigned long k = 0; k < n; ++k) body(static_cast<I>(lo + static_cast<I>(k)));
    }

    template <class I, class T, class Map, class Combine>
    static T parallel_reduce(I lo, I hi, T init, Map&& map, Combine&& combine) {
        if (!(lo < hi)) return init;
        const unsigned long n = static_cast<unsigned long>(hi - lo);
        const unsigned long chunks =
            in_flat_loop ? 1 : std::min<unsigned long>(n, omp_get_num_threads());
        if (chunks == 1) {
            for (I i = lo; i < hi; ++i) init = combine(init, map(i));
            return init;
        }
        T inline_slots[8];
        std::vector<T> heap_slots(chunks > 8 ? chunks : 0);
        T* slots = chunks > 8 ? heap_slots.data() : inline_slots;
#pragma omp taskloop num_tasks(chunks) shared(map, combine) firstprivate(lo, n, chunks, slots, init)
        for (unsigned long c = 0; c < chunks; ++c) {
            T acc = init;
            const I first = static_cast<I>(lo + static_cast<I>(n * c / chunks));
            const I last = static_cast<I>(lo + static_cast<I>(n * (c + 1) / chunks));
            for (I i = first; i < last; ++i) acc = combine(acc, map(i));
            slots[c] = acc;
        }
        for (unsigned long c = 0; c < chunks; ++c) init = combine(init, slots[c]);
        return init;
    }

    template <class I, class Body>
    static void flat_for(I lo, I hi, Body&& body) {
        if (!(lo < hi)) return;
        const long n = static_cast<long>(hi - lo);
        const bool dynamic = flat_schedule == omp_schedule::dynamic_chunks;
        // `nowait`: the region's closing barrier is the loop's one barrier, as in `parallel for`
        // (the flag is per thread, so clearing it early is harmless).
#pragma omp parallel firstprivate(dynamic)
        {
            in_flat_loop = true;
            if (dynamic) {
#pragma omp for schedule(dynamic) nowait
                for (long k = 0; k < n; ++k) body(static_cast<I>(lo + static_cast<I>(k)));
            } else {
#pragma omp for schedule(static) nowait
                for (long k = 0; k < n; ++k) body(static_cast<I>(lo + static_cast<I>(k)));
            }
            in_flat_loop = false;
        }
    }
};

}  // namespace bench
