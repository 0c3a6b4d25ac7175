// Cost parameters of a simulated run, in the DAG's time units (ns for the program DAGs). The
// defaults are order-of-magnitude guesses consistent with docs/results/adaptive.md (τ ≈ 2 µs for a
// promotion plus its steal); they are not yet calibrated against the runtime (issue 13, item 4).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dag.hpp"

namespace weft_sim {

struct Costs {
  Time join = 1;           // building a latent descriptor at a join (fast path)
  Time loop = 0;           // entering a loop (the runtime's loop record), empty loops included
  Time iter = 0;           // starting one loop iteration (the runtime's range bookkeeping and call)
  Time promote = 100;      // making a latent item stealable (push on the deque, publish)
  Time split = 0;          // a loop range split in two, beyond `promote` (the child range's record)
  Time pop = 20;           // the owner taking its own promoted item back at the join
  Time steal = 1000;       // a successful steal (taking a remote item and starting it)
  // A failed steal attempt (the victim's deque seen empty); 0: the same as `steal`, the model
  // before calibration.  The runtime's idle loop retries at once (idle.cpp), so a failed look costs
  // a remote cache-line read, not a migration: calibrated, it is 10-20x cheaper than `steal`.
  Time probe = 0;
  // The spread of a successful steal's latency, in percent: each steal (a leapfrog included) costs
  // `steal` times a factor drawn uniformly from [1 - j/100, 1 + j/100] (mean `steal`), from a random
  // stream of its own (the victims' choices stay those of the seed); 0: every steal costs `steal`
  // (this preset).  At P = 2 the victim choice is forced, so without it every seed gives the same
  // schedule, while the runtime's counts there swing between runs by 10-100x on the same program
  // (uts-bin: a run either falls into leapfrog cascades or not); a steal's real latency varies with
  // the cache lines it finds (weft-overhead steal: 0.67-3.1 us per run on one VM, stop 27), and a
  // spread of ±10 % already moves the modelled uts-bin between those modes (docs/results/sim.md,
  // "Stop 62").  The `calibrated` preset: 50.
  std::uint64_t steal_jitter = 0;
  // The spread of the processors' speeds on node work, in percent (0-50): each processor of a run
  // runs every node's work at its own factor, drawn uniformly from [1 - s/100, 1 + s/100] when the
  // run starts (the same stream as steal_jitter's) and divided by the factors' mean, so that the
  // processors differ while their mean speed is the costs' (a lone processor runs at 1: T1 stays the
  // fitted one); overheads keep their costs, and the reported work stays the DAG's.  0: every
  // processor runs work at its cost (this preset).  Stack-engine policies only: the thread engines
  // (adf, dfd, fifo) refuse it.  Two vCPUs of a VM do not run a
  // program at one speed (the runtime's uts-bin T2 read 76-110 ms across 10 runs of stop 62), and
  // at P = 2 which worker ends up with uts-bin's 2,000-deep chain — so whether the run ends in a
  // leapfrog cascade — is decided by the two workers' progress over tens of ms: a worker 20 %
  // faster turns the modelled lazy-bf from 50 thefts into 1,207 (1,202 leapfrogs), as the runtime's
  // runs go from ~40 to ~1,900 (docs/results/sim.md, "Stop 62").  The `calibrated` preset: 15, the
  // spread of the runtime's one-worker uts-bin times across runs (-10 % to +25 % of their median).
  std::uint64_t speed_spread = 0;
  Time sync = 50;          // a finished stolen item signalling its join
  Time check = 1;          // one poll: the deque-size or heartbeat-flag check
  Time poll = 0;           // poll every this many units inside leaf work (0: at joins/iterations)
  // Loop chunks as the runtime runs them (include/weft/detail/loop.hpp, run_chunks), for the loop-frame
  // policies (lazy, heartbeat, ws-ap): a piece polls after each chunk, not each iteration; chunks
  // grow by chunk_growth for the first chunk_untimed iterations, then double while a chunk takes
  // under chunk_low and halve when one takes over chunk_high; a split-off part starts with its
  // piece's timed chunk.  chunk_low 0 (this preset): every iteration is a chunk, polled before it
  // (LS's model; the studies of docs/results/sim.md before "Calibration").
  Time chunk_low = 0;
  Time chunk_high = 0;
  std::uint64_t chunk_untimed = 64;
  std::uint64_t chunk_growth = 2;
  Time heartbeat = 40000;  // HB's N
  // The runtime's steal backoff (idle.cpp, back_off_after_steal; README "Small work"): a worker back
  // in its idle loop after a stolen item whose own work (its time less its blocked joins' waits)
  // was under `backoff_small` waits `backoff_first`, twice that after each such theft in a row, up
  // to `backoff`, before it looks again; 0 = off (this preset: the studies of docs/results/sim.md
  // before "Calibration" ran without it).  The `calibrated` preset sets the runtime's defaults.
  Time backoff = 0;
  Time backoff_small = 0;
  Time backoff_first = 0;
  // Time-sharing with other processes (a loaded machine): every worker runs `slice_on` units, then
  // is descheduled for `slice_off` units, at a random phase per worker; 0: dedicated processors.
  // The 2-core development VM at load average ~11 gives each thread ~2/11 of a core in ~3 ms
  // slices (docs/results/sim.md, "Calibration").
  Time slice_on = 0;
  Time slice_off = 0;
  std::uint64_t quota = 0; // NAR's K in bytes (0 = unlimited); used by the space-efficient policies
  // adf, dfd, fifo: the runtime's fork limit (config::fiber_fork_limit): with this many threads
  // live, a fork runs its children inline on its processor, left then right, costing `join` and
  // no promotion; 0 = none, NAR's rule (this preset); the `calibrated` preset: 4,096, the runtime's.
  std::uint64_t fork_limit = 0;
  std::uint64_t ap_k = 4;  // ws-ap: initial chunks = ap_k · P
  std::uint64_t ap_v = 4;  // ws-ap: chunks after a theft = max(chunks, ap_v)
  // ws-ap: a loop piece (a loop, or a range split off one) makes its K·P splits only once it has
  // run this long, as the runtime's pieces do (ap_defer_cycles, include/weft/detail/loop.hpp: a
  // loop shorter than that never pays for K·P promotions); 0: at the piece's start, TBB's rule.
  Time ap_defer = 0;
  // wool, as the runtime's sched_wool.cpp: 4 public slots at start, the trip wire on the 2nd
  // highest public slot, 4 more slots per notification, one fewer after 64 public inlines in a row.
  std::uint64_t wool_public = 4;  // wool: initial public descriptors per worker
  std::uint64_t wool_step = 4;    // wool: descriptors made public when the trip wire is stolen
  bool leapfrog = true;    // blocked joins steal only from the thief chain (WOOL §I.b)
  // TBB's continuation-passing loops (LS's implementation, LS §7): a loop piece (a split-off range)
  // whose own part is done while sub-ranges it gave away still run does not wait for them: its
  // worker goes on (below it, or to the idle loop), and the last sub-range to finish completes the
  // piece, as TBB's finish_for continuation runs on whichever thread finishes last.  Only a loop's
  // own frame (the parallel_for call, a blocking wait in TBB too), pairs and wool's halves (joins on
  // its task stack) still wait.  Off: every piece waits, as the runtime's loops do (they are joins).
  bool detach = false;
  // LS Fig. 3's deque check "upon creating [a TD], popping it off the local deque, or stealing it":
  // a loop piece (a loop entered, a range popped back or stolen) polls before its first iteration
  // too, so a thief's first push is half of the piece it stole.  Off: the runtime's rule (it polls
  // after each chunk, never before a piece's first: adaptive_loop::run_chunks).  A study switch
  // for LS Table V (docs/results/sim.md, "Stop 61"); unchunked loops only (chunk_low 0).
  bool poll_first = false;
  // Heartbeat credit per worker (false: the runtime's per-worker beat) or per thread (true: HB
  // §3.4's semantics, where every promoted thread and continuation counts its own N).
  bool hb_thread_credit = false;
  // The runtime's beat delivery (config::heartbeat_delivery): false models `thread` (a beat reaches
  // a worker whatever the others do, HB's rule); true models `spare`, the runtime's default, where
  // no beat is sent while every processor runs a task — a due beat is taken at a poll only while
  // some other processor is looking for work, blocked at a join, or parked (src/heartbeat.cpp).
  bool hb_spare = false;
};

// A successful steal's cost: `steal`, spread by steal_jitter with draws from `rng`.
template <class Rng>
Time steal_cost(const Costs& c, Rng& rng) {
  if (c.steal_jitter == 0 || c.steal == 0) return c.steal;
  const double factor = 1.0 + double(c.steal_jitter) / 100.0 * (2.0 * rng.unit() - 1.0);
  return Time(double(c.steal) * factor + 0.5);
}

// A processor's speed factor on node work (Costs::speed_spread), drawn from `rng`; 1 without spread.
template <class Rng>
double speed_factor(const Costs& c, Rng& rng) {
  if (c.speed_spread == 0) return 1.0;
  return 1.0 + double(c.speed_spread) / 100.0 * (2.0 * rng.unit() - 1.0);
}

// A failed steal attempt's cost (probe, or steal when probe is 0).
inline Time failed_attempt_cost(const Costs& c) { return c.probe != 0 ? c.probe : c.steal; }

// A dormant thief (both engines: it leaves the event queue while nothing is stealable) attempts, as
// if it stepped, every `cost` units from `from` on: how many of those attempts come before `until`.
// Woken at `until`, it resumes at the last of them (the others skipped and counted); at the run's
// end, all of them count.
inline Time attempts_before(Time from, Time until, Time cost) {
  return until > from ? (until - from - 1) / cost + 1 : 0;
}

// The named cost presets (`--costs NAME`): "default" (Costs{}) and "calibrated" (measured from the
// runtime on the 2-core development machine, in units of 0.1 ns, per policy where the runtime's
// implementations differ; docs/results/sim.md, "Calibration"), and "file:PATH" (a machine's own fit,
// written by sim/fit_costs.py --out: the calibrated preset with the file's values over it).
// std::invalid_argument naming the accepted names, or the file's bad line, otherwise.
Costs cost_preset(std::string_view name, std::string_view policy);

// Sets one cost from "name=value"; std::invalid_argument naming the accepted names otherwise.
void set_cost(Costs& c, std::string_view assignment);
// What a policy needs of its costs (heartbeat: N >= 1) and what every policy needs of a pair of
// them (chunk_low <= chunk_high; with the backoff on, 1 <= backoff_first <= backoff and
// backoff_small >= 1); CostRefused naming the cost otherwise.
void check_costs(const Costs& c, std::string_view policy);
// check_costs's refusal, "--cost NAME: WHY": the cost (and, for a pair, the other one, named in
// WHY) is kept apart so that a cost file can name the line that set it instead.
struct CostRefused : std::invalid_argument {
  CostRefused(std::string name, std::string reason, std::string other_name = {})
      : std::invalid_argument("--cost " + name + ": " + reason), cost(std::move(name)), why(std::move(reason)),
        other(std::move(other_name)) {}
  std::string cost, why, other;
};
std::vector<std::pair<std::string, std::uint64_t>> cost_values(const Costs& c);
Costs zero_costs();  // every overhead 0: the greedy-bound tests use it

}  // namespace weft_sim
