// weft — work and span (SPEC §6, issue 12): does the program have enough parallelism for P workers?
//
// With config.work_span (or WEFT_WORK_SPAN) set to `ns` or `calls`, a pool runs each job as its
// serial elision on the worker that takes it, measuring at every join and loop piece, like WOOL's
// span facility (WOOL §IV.A, Table I) and Cilkscale:
//   work T1  = the sum of every strand's cost,
//   span T∞  = the cost of the longest chain of strands that must run one after the other,
//   parallelism T1/T∞: the most speedup any number of workers can get;
//   burdened span: WOOL Table I's "realistic model": the two branches of a join (or the two halves
//   of a loop split) run in parallel only if that saves more than C, and then cost C more
//   (C = work_span_burden, the cost of a promotion and steal); otherwise they run one after the other:
//       burdened(f || g) = min(bf + bg, max(bf, bg) + C).
// Unit `ns`: strands are timed (the measurement's own clock reads are part of them, so fine-grained
// programs measure more work than they do unmeasured).  Unit `calls`: every branch of a join, every
// loop iteration, every parallel_invoke callable (its tree's inner nodes are no calls), every scope
// task and every job costs 1, so fib(n) has work = its number of calls and span = n, exactly, on any
// machine.
//
// A scope spawn runs at once, at the spawn (the serial elision), and is measured as Cilk's spawn: the
// task's path in parallel with the owner's from the spawn to the scope's sync, where all are joined
// (`spawn t1; A; spawn t2; B; sync` is join(t1, [A; join(t2, B)]); the owner's code is no call).  A
// spawn from inside a branch, region, loop body or task opened since the scope was made or since its
// latest spawn, or from another thread, which the runtime runs at once under every policy, is
// measured as a serial call (on another thread, in that thread's measured job, if any; scope.hpp,
// spawn_measured).  A typed weft::spawn is measured as the join it is (the code up to sync its first
// branch, a call).
//
// Nothing of this is on the join fast path: the mode sets a poll bit for the duration of a job, so
// every join of a measured job takes the slow path, and the unmeasured program is untouched.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.hpp"
#include "detail/frame.hpp"
#include "detail/slow_path.hpp"

namespace weft {

namespace detail {
[[noreturn]] void predicted_speedup_of_no_workers();  // throws std::invalid_argument (work_span.cpp)
}  // namespace detail

struct work_span_figures {
  double work = 0;           // T1
  double span = 0;           // T∞
  double burdened_span = 0;  // T∞ with the burden C per parallel join (WOOL Table I)
  double parallelism() const noexcept { return span > 0 ? work / span : 0; }
  double burdened_parallelism() const noexcept { return burdened_span > 0 ? work / burdened_span : 0; }
  // Greedy-scheduler bounds on P workers (Brent): T1/P <= T_P <= T1/P + T∞.  The speedup the
  // burdened figures predict: T1 / (T1/P + burdened T∞).  P = 0 throws std::invalid_argument: it
  // returned 0 (T1/0 is infinite), read as "no speedup" (stop 54's workspan hunt).
  double predicted_speedup(unsigned p) const {
    if (p == 0) detail::predicted_speedup_of_no_workers();
    return work > 0 ? work / (work / p + burdened_span) : 0;
  }
};

// A region named by the program (weft::region), summed over its instances.
struct work_span_region {
  std::string name;
  std::uint64_t instances = 0;
  work_span_figures figures;  // work and spans summed over the instances
};

struct work_span_report {
  work_span_unit unit = work_span_unit::off;
  double burden = 0;          // C, in `unit`
  // Jobs measured: pool::run calls from outside the pool (one made from a worker of the pool runs
  // inline, a plain call inside the job it is in); their figures add up as if run in sequence.
  std::uint64_t jobs = 0;
  work_span_figures total;
  std::vector<work_span_region> regions;  // by name
};

// The report as a few lines of text (what the pool prints at destruction when the mode is on).
std::string to_string(const work_span_report& r);

namespace detail {
void measure_region_begin(hot_state& h, measure_saved& s) noexcept;
void measure_region_end(hot_state& h, measure_saved& s, std::string_view name) noexcept;
}  // namespace detail

// Runs f() and, when the pool measures work and span, accounts its work and span to `name` (nested
// regions are each accounted; a region inside a join branch measures that branch's part).
// Otherwise it is f(), a branch of its own all the same: a scope spawn inside it runs at once, as
// the mode measures it (a serial call: the region is a path of its own) and as README says —
// left latent at the scope's level, it ran at the scope's sync after the region had returned, its
// closure reading the region's locals (stop 57's levelmark2 hunt).  One store per region
// (detail::leave_scope_level, as parallel_invoke(f) makes).
template <class F>
decltype(auto) region(std::string_view name, F&& f) {
  detail::hot_state& h = detail::tls_hot;
  if (!(h.poll.load(std::memory_order_relaxed) & detail::poll_bit::measure)) {
    detail::leave_scope_level(h);
    return f();
  }
  detail::measure_saved s;
  detail::measure_region_begin(h, s);
  struct end_region {
    detail::hot_state& h;
    detail::measure_saved& s;
    std::string_view name;
    ~end_region() { detail::measure_region_end(h, s, name); }
  } guard{h, s, name};
  return f();
}

}  // namespace weft
