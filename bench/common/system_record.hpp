// bench/common/system_record.hpp: the DAG recorder as a system adapter (bench/common/system.hpp).
// It runs a kernel serially (a join is its two calls in order, a loop a plain loop, as the serial
// elision) and, during the timed run only, writes the run's join/loop DAG with the measured cost
// of every strand to the file named by WEFT_BENCH_RECORD, in the format weft-sim reads with
// `--dag file:PATH` (sim/README.md, "Recorded DAGs"; issue 13 item 2).
//
// Strand costs come from the x86 time-stamp counter, converted to units of 0.1 ns (the unit of
// weft-sim's calibrated costs), less the recorder's own cost per interval, which is fitted so that
// the recorded work equals the uninstrumented warm-up run (system_record.cpp).  A
// strand is the code between two fork events of one context (a join's branch, a loop iteration,
// the root): its work before the fork is the node's `work`, its work after the fork (a reduce's
// combines included) the node's `work_after`.  The simulator's nodes have at most one fork each,
// so a context that forks twice (mergesort's sort-then-merge) is rejected with std::logic_error.
#pragma once

#include <chrono>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "branch.hpp"

namespace bench {
namespace record {

bool active();                 // inside the timed run: record; else run as the serial elision
void note_warmup(double ns);   // an uninstrumented run's time (the warm-up): the recorder's scale
void enter_context();          // a join branch, a loop iteration or the root starts
std::uint32_t leave_context(); // it ends: its node's id in the file
void begin_fork();             // the current context forks (join or loop)
void end_pair(std::uint32_t left, std::uint32_t right);
void end_loop(const std::vector<std::uint32_t>& bodies);

template <class F>
auto in_context(F& f, std::uint32_t& id) {
    enter_context();
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
        f();
        id = leave_context();
        return no_result{};
    } else {
        auto r = f();
        id = leave_context();
        return r;
    }
}

}  // namespace record

struct record_system {
    template <class F>
    static auto run_tasks(F&& f) {
        if (!record::active()) {  // the warm-up: its time normalizes the recorded strand costs
            const auto t0 = std::chrono::steady_clock::now();
            struct note {
                std::chrono::steady_clock::time_point t0;
                ~note() {
                    record::note_warmup(std::chrono::duration<double, std::nano>(
                                            std::chrono::steady_clock::now() - t0).count());
                }
            } timer{t0};
            return f();
        }
        std::uint32_t root = 0;
        return record::in_context(f, root);
    }
    template <class F>
    static auto run_loops(F&& f) {
        return run_tasks(std::forward<F>(f));
    }

    template <class F, class G>
    static std::pair<branch_result<F>, branch_result<G>> join(F&& f, G&& g) {
        if (!record::active()) {
            branch_result<F> a = call_branch(f);
            return {std::move(a), call_branch(g)};
        }
        record::begin_fork();
        std::uint32_t left = 0, right = 0;
        branch_result<F> a = record::in_context(f, left);
        branch_result<G> b = record::in_context(g, right);
        record::end_pair(left, right);
        return {std::move(a), std::move(b)};
    }

    template <class I, class Body>
    static void parallel_for(I lo, I hi, Body&& body) {
        parallel_reduce(lo, hi, no_result{}, [&](I i) { body(i); return no_result{}; },
                        [](no_result, no_result) { return no_result{}; });
    }
    template <class I, class Body>
    static void flat_for(I lo, I hi, Body&& body) {
        parallel_for(lo, hi, std::forward<Body>(body));
    }

    template <class I, class T, class Map, class Combine>
    static T parallel_reduce(I lo, I hi, T init, Map&& map, Combine&& combine) {
        if (!record::active()) {
            for (I i = lo; i < hi; ++i) init = combine(init, map(i));
            return init;
        }
        record::begin_fork();
        std::vector<std::uint32_t> bodies;
        bodies.reserve(hi > lo ? std::size_t(hi - lo) : 0);
        for (I i = lo; i < hi; ++i) {
            std::uint32_t id = 0;
            auto call = [&] { return map(i); };
            init = combine(init, record::in_context(call, id));
            bodies.push_back(id);
        }
        record::end_loop(bodies);
        return init;
    }
};

}  // namespace bench
