// The discrete-event simulator: P workers run a Dag under one policy. Time advances per worker;
// the worker with the smallest clock acts next, so every read of another worker's deque or join
// happens in global time order and a run is a pure function of (dag, policy, costs, P, seed).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "costs.hpp"
#include "dag.hpp"
#include "policy_table.hpp"

namespace weft_sim {

struct RunConfig {
  const Dag* dag = nullptr;
  const PolicyTraits* policy = nullptr;
  Costs costs;
  unsigned workers = 1;
  std::uint64_t seed = 1;
  // Test probes (null in normal runs): starts per template node, and the node of every promoted
  // item in promotion order (a pair's second branch, or the loop whose range was split).
  std::vector<std::uint64_t>* node_starts = nullptr;
  std::vector<std::uint32_t>* promoted_nodes = nullptr;
  // The [lo, hi) of every promoted loop range, in promotion order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>>* promoted_ranges = nullptr;
};

struct RunResult {
  Time makespan = 0;
  double raw_work = 0;        // node work executed (must equal the DAG's work)
  double overhead = 0;        // joins, polls, promotions, pops, syncs
  double steal_time = 0;      // successful steals (thief's time)
  double idle = 0;            // failed steal attempts and waiting without a task
  double descheduled = 0;     // time the workers were off their processors (slice_off)
  double exec_span = 0;       // span of the executed graph: promoted forks parallel, + τ each (HB §3)
  std::uint64_t instances = 0;      // node instances started
  std::uint64_t joins = 0;
  std::uint64_t loops = 0;          // non-empty loops entered (the stack engine; an empty one costs nothing)
  std::uint64_t iterations = 0;     // loop iterations started (the stack engine)
  std::uint64_t polls = 0;
  std::uint64_t promotions = 0;
  std::uint64_t thefts = 0;         // successful steals, leapfrogs included
  std::uint64_t steal_attempts = 0;
  std::uint64_t leapfrogs = 0;
  std::uint64_t leapfrogs_from_thief = 0;  // taken from the blocked join's own thief (no hop down the chain)
  std::uint64_t pops = 0;           // promoted items the owner took back at its join
  std::uint64_t detached = 0;       // loop pieces that did not wait for their sub-ranges (Costs::detach)
  std::uint64_t beats = 0;          // heartbeats that promoted something
  std::uint64_t steal_backoffs = 0; // idle waits after a small theft (Costs::backoff)
  // Thefts from the idle loop (not leapfrogs) that ran to their end, and the time their thieves
  // spent on them less their blocked joins' waits: their mean is how big a stolen piece is.
  std::uint64_t idle_thefts_done = 0;
  double idle_theft_time = 0;
  std::uint64_t trip_wires = 0;     // wool: public windows grown
  std::uint64_t loop_splits = 0;    // loop ranges split in two (ws-ap's chunks - 1 per loop)
  std::uint64_t memory_peak = 0;    // heap high-water of node allocations
  std::uint64_t live_items_peak = 0;// promoted items in flight at once
  std::uint64_t max_stack = 0;      // deepest frame stack of any worker
  std::uint64_t memory_at_end = 0;  // bytes still allocated when the root finished (must be 0)
};

RunResult simulate(const RunConfig& config);

// The least memory a run of `policy` on P workers holds beyond the DAG's template, for a DAG that
// nests `nesting` levels deep: every node of its deepest path is open at once while the innermost
// runs, each a frame (a thread under adf, dfd and fifo) of some worker, and each worker has its
// state.  A lower bound (stacks grow by doubling, deques hold promoted items, fifo holds every
// forked thread breadth first): weft-sim refuses a run that needs more than the memory left before
// running it, instead of running into the limit, or the kernel's OOM killer, partway.
double least_run_bytes(const PolicyTraits& policy, std::uint64_t nesting, unsigned workers);

// The latest time a clock may reach: 2^62 units.  Node work and costs are at most 2^40 each and a
// DAG's work at most 2^60, but a run adds up as many costs as it takes steps (loops:5000:5000:0
// with iter=2^40 is 2.7e19 units, past 2^64), so a clock wrapped and the run reported a negative
// idle time (stop 42's bug hunt).  Every advance of a clock is checked instead: a run that would
// pass the limit stops with TimeLimitExceeded.  Below it, a clock plus one cost cannot wrap (the
// next beat, the end of a backoff).
inline constexpr Time kMaxClock = Time(1) << 62;

struct TimeLimitExceeded : std::overflow_error {
  TimeLimitExceeded()
      : std::overflow_error(
            "simulated time passed 2^62 units (4.6e18), the most the simulator's clocks hold: lower the "
            "costs (--cost, --costs), the DAG's node work or its size (--dag)") {}
};

// clock += by, and n * each: checked against kMaxClock.
inline void advance(Time& clock, Time by) {
  if (__builtin_add_overflow(clock, by, &clock) || clock > kMaxClock) throw TimeLimitExceeded();
}
// A successful steal: counted, and its cost (steal_cost: Costs::steal, spread by steal_jitter with
// draws from `jitter`) on the thief's clock and in the run's steal time.
template <class Rng>
void pay_steal(Time& clock, RunResult& r, const Costs& c, Rng& jitter) {
  ++r.thefts;
  const Time cost = steal_cost(c, jitter);
  advance(clock, cost);
  r.steal_time += double(cost);
}
inline Time times(Time n, Time each) {
  Time product = 0;
  if (__builtin_mul_overflow(n, each, &product) || product > kMaxClock) throw TimeLimitExceeded();
  return product;
}

}  // namespace weft_sim
