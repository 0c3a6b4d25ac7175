// weft — the scheduler interface that every policy implements.  A policy is a small object
// answering "when" and "which" (SPEC §3) on top of one of three mechanisms: the Chase-Lev deque of
// promoted frames (sched_deque.cpp), Wool's direct task stack, stolen in place (sched_wool.cpp), or
// the fiber engine, where every join forks a thread (sched_fibers.cpp; the serial policy, which
// runs on the caller, keeps a deque scheduler with no trigger: lifecycle.cpp).  Each mechanism defines its per-worker state; the worker holds it
// (worker::mechanism).
#pragma once

#include <cstdint>
#include <memory>

#include "weft/config.hpp"
#include "weft/detail/policy_table.hpp"
#include "weft/detail/frame.hpp"
#include "weft/detail/checks.hpp"
#include "weft/detail/slow_path.hpp"

namespace weft::detail {

struct worker;

class scheduler {
 public:
  virtual ~scheduler() = default;
  // Gives `w` this mechanism's per-worker state.  Called for every worker before any worker thread
  // starts (thieves may read a victim's state as soon as they run), and for each serial context.
  virtual void attach(worker& w) = 0;
  // Poll bits a worker starts with (e.g. `always` for ws, `public_next` for wool).  Called on the
  // worker's own thread before it looks for work.
  virtual std::uint32_t initial_poll_bits(worker& w) = 0;
  // Poll bits for a thread that takes over `w` while `w` holds no frames: the worker's own thread
  // taking its slot back after sleeping, or a caller of pool::run borrowing the slot (root_jobs.cpp).
  // A query: it changes nothing (initial_poll_bits also sets the mechanism state up).
  virtual std::uint32_t idle_poll_bits(const worker& w) const = 0;
  // A join or spawn took the slow path after pushing `fr`.
  virtual void promote_at_poll(worker& w, hot_state& h, frame* fr) = 0;
  // The join of a promoted frame `fr` (now h.top == fr).
  virtual reclaimed reclaim(worker& w, hot_state& h, frame* fr) = 0;
  // One steal attempt by `thief` on `victim`; runs the task and returns true on success.
  virtual bool steal(worker& thief, worker& victim) = 0;
  // Is there something `victim` would give a thief?  (a hint, for sleeping and waking)
  virtual bool has_stealable(const worker& victim) const = 0;
  // Makes `fr` stealable at once as a whole (a split-off loop range: loops.cpp); false when it
  // cannot (deque full).  Only the deque mechanism runs loops as loop frames; wool never calls it.
  virtual bool promote_frame(worker& w, frame* fr) = 0;
  // The deque that joins on `w` push every frame onto inline (hot_state::eager_deque), or null.
  virtual chase_lev_deque* eager_deque(worker&) { return nullptr; }
  // Runs a root job taken by `w` as this mechanism's own root thread, when it has those (the fiber
  // engine); false: the runtime runs it on the worker's stack.
  virtual bool start_root(worker&, root_job&) { return false; }
  // The fiber engine only: pool::run's caller, acting as `w` (a sleeping worker's slot it borrowed,
  // runtime::run_on_idle_slot), starts `job` as a root thread and runs the threads of that job the
  // policy gives `w` until the job is done (true), or until none of them is ready while work it may
  // not take waits (false: the slot goes back to its thread, and the job runs on without it).
  virtual bool serve_borrowed(worker&, root_job&) { fatal("internal error: serve_borrowed outside the fiber engine"); }
  // The fiber engine's stacks at their peak (counters::fiber_stack_peak_bytes), and its reset.
  virtual std::uint64_t fiber_stack_peak_bytes() const { return 0; }
  virtual void reset_peaks() {}
  // Poll bits of another pool in the poll word of a thread acting as a worker of this one (a task of
  // pool A running pool B's job on a serial context or a lent slot of B: acting_as): A's timer or
  // signal timer sets its beat, A's thieves set `notify`, in the thread's one word.  When B's policy
  // never acts on such a bit, taken as B's it did harm — a beat promoted a frame of B's run, counted as
  // B's, and under signal delivery left A's one-shot timer disarmed for good (nobody re-arms it but the
  // poll that takes its beat) — and left in the word it sent every later join of the run to the slow
  // path (fib(30) through a serial pool inside a lazy-bf job: ~2x its time alone).  So it is put aside
  // on B's worker and given back to the thread's own word when the run ends (acting_as), where A's
  // next poll takes it.  (A bit both policies use — two lazy pools' `notify` — B takes as its own: A's
  // check then waits for A's next `notify`, at the latest its pop of a promoted frame.)  Owner-side
  // only: the word's other bits are untouched (fetch_and).
  // The bits this policy never acts on: promote_at_poll (slow_path.cpp) puts them aside, for every
  // mechanism, before it asks the policy.  Set by the mechanism's constructor, a plain field: no
  // call on the slow path to ask.
  std::uint32_t foreign_poll_bits() const noexcept { return foreign_poll_bits_; }

 protected:
  std::uint32_t foreign_poll_bits_ = 0;
};

std::unique_ptr<scheduler> make_deque_scheduler(runtime& rt, const policy_traits& row);
std::unique_ptr<scheduler> make_wool_scheduler(runtime& rt);
std::unique_ptr<scheduler> make_fiber_scheduler(runtime& rt, policy p);  // adf, dfd, fifo
// Calls the promotion hook (slow_path.hpp) when one is installed.
void report_promotion(const worker& w, const frame* f, promotion_kind kind) noexcept;

}  // namespace weft::detail
