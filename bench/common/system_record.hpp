// bench/common/system_record.hpp: the DAG recorder as a system adapter (bench/common/system.hpp).
// It runs a kernel serially (a join is its two calls in order, a loop a plain loop, as the serial
// elision) and, during the timed run only, writes the run's join/loop DAG with the measured cost
// of every strand to the file named by WEFT_BENCH_RECORD, in the format weft-sim reads with
// `--dag file:PATH` (sim/README.md, "Recorded DAGs"; issue 13 item 2).
//
// Strand costs come from the x86 time-stamp counter, converted to units of 0.1 ns (the unit of
// weft-sim's calibrated costs): the least of 3 recorded passes per interval, less the recorder's
// own cost per interval, fitted so that the recorded work equals the fastest of 5 uninstrumented
// runs (system_record.cpp).  A
// strand is the code between two fork events of one context (a join's branch, a loop iteration,
// the root): its work before the fork is the node's `work`, its work after the fork (a reduce's
// combines included) the node's `work_after`.  The simulator's nodes have at most one fork each,
// so a context that forks twice (mergesort's sort-then-merge) is refused: a message and exit status 2.
#pragma once

#include <chrono>
#include <cstdint>
#include <type_traits>
#include <memory>
#include <utility>
#include <vector>

#include "branch.hpp"
#include "system_serial.hpp"

namespace bench {
namespace record {

// Inside the recorded passes: record; else run as the serial elision (serial_system's code, so
// that the plain runs that set the recorded total run at the elision's speed).
inline bool recording = false;
inline bool active() { return recording; }
void pause();                  // run uninstrumented (the plain runs of run_tasks)
void resume();
void note_plain_run(double ns);  // an uninstrumented run's time: the least is the recorded total
void begin_pass(bool last);      // a recorded pass: earlier ones only collect interval minima
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
    // Temporaries (bench/common/temp.hpp): plain operator new.
    template <class T>
    using allocator = std::allocator<T>;

    // The timed run: kPlainRuns uninstrumented runs (the least time is the recorded work's total),
    // then kPasses recorded ones (each interval's least time is kept: an OS preemption inside a
    // strand, milliseconds on a loaded machine, is in at most one of them).  So the kernel's timed
    // region must be a pure function of its input (fib, nqueens, uts are).
    static constexpr int kPlainRuns = 5, kPasses = 3;
    template <class F>
    static auto run_tasks(F&& f) {
        if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {  // a run whose verify follows
            auto g = [&] { f(); return no_result{}; };
            (void)run_value(g);
        } else {
            return run_value(f);
        }
    }
    template <class F>
    static auto run_value(F& f) {
        if (!record::active()) return f();
        for (int i = 0; i < kPlainRuns; ++i) {
            record::pause();
            const auto t0 = std::chrono::steady_clock::now();
            {  // the result kept observable: a discarded call of a pure kernel may be cut short
                auto r = f();
                asm volatile("" : : "g"(&r) : "memory");
            }
            record::note_plain_run(std::chrono::duration<double, std::nano>(
                                       std::chrono::steady_clock::now() - t0).count());
            record::resume();
        }
        for (int i = 1; i < kPasses; ++i) {
            record::begin_pass(false);
            std::uint32_t root = 0;
            { [[maybe_unused]] auto r = record::in_context(f, root); }
        }
        record::begin_pass(true);
        std::uint32_t root = 0;
        return record::in_context(f, root);
    }
    template <class F>
    static auto run_loops(F&& f) {
        return run_tasks(std::forward<F>(f));
    }

    template <class F, class G>
    static std::pair<branch_result<F>, branch_result<G>> join(F&& f, G&& g) {
        if (!record::active()) return serial_system::join(f, g);
        record::begin_fork();
        std::uint32_t left = 0, right = 0;
        branch_result<F> a = record::in_context(f, left);
        branch_result<G> b = record::in_context(g, right);
        record::end_pair(left, right);
        return {std::move(a), std::move(b)};
    }

    template <class I, class Body>
    static void parallel_for(I lo, I hi, Body&& body) {
        if (!record::active()) return serial_system::parallel_for(lo, hi, body);
        parallel_reduce(lo, hi, no_result{}, [&](I i) { body(i); return no_result{}; },
                        [](no_result, no_result) { return no_result{}; });
    }
    template <class I, class Body>
    static void flat_for(I lo, I hi, Body&& body) {
        parallel_for(lo, hi, std::forward<Body>(body));
    }

    template <class I, class T, class Map, class Combine>
    static T parallel_reduce(I lo, I hi, T init, Map&& map, Combine&& combine) {
        if (!record::active()) return serial_system::parallel_reduce(lo, hi, init, map, combine);
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
