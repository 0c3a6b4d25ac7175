// weft — the runtime's entry points used by the public templates.  Everything here is a slow path:
// the fast path (join's push, poll and inline pop) is in join.hpp and never calls into this file.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>

#include "frame.hpp"

namespace weft {
class pool;
}

namespace weft::detail {

class runtime;

// What reclaim() found for a promoted frame at its join.
enum class reclaimed : unsigned char {
  run_inline,  // nobody took it: the owner runs the branch itself
  stolen,      // a thief ran it to completion (DONE): its result or error is in the record
};

// Called by a join or spawn that took the slow path, right after pushing `fr`: the policy decides
// whether to promote, and which latent item (SPEC §3: "when" and "which").
void promote_at_poll(hot_state& h, frame* fr);
// The join of a promoted frame: take it back (deque pop / Wool's exchange) or wait for its thief,
// leapfrogging meanwhile (WOOL §I.b).
reclaimed reclaim(hot_state& h, frame* fr);
// The first branch threw: the frame must be taken back or its thief waited for before the
// exception leaves the join.  Returns true when a thief ran the branch (its result, if any, must be
// destroyed; its own error is dropped: the first branch's exception comes first in serial order).
bool reclaim_after_throw(hot_state& h, frame* fr);
// Under the fiber engine: the thread (fiber) running on this worker now, an identity that stays with
// it when it moves to another worker; null on a thread that is no fiber-engine worker.  Pure (it
// only reads): a scope's constructor calls it on its unlikely path, and the compiler need not
// reload the fields it has just stored.
[[gnu::pure]] const void* running_fiber() noexcept;
// Under the fiber engine: the pool::run job the running fiber is part of (its root and every thread
// forked below it share it), an identity of the job's code on whichever worker each fiber runs
// now; null on a thread that is no fiber-engine worker, or outside a job.
[[gnu::pure]] const void* running_job() noexcept;
// What a scope made where the spawn limit is null keeps as its owner (scope::owner_id_): in the
// work/span mode the measured path running now, tagged odd (2 * path + 1: never a fiber's address);
// otherwise running_fiber() (null on a thread that is no fiber-engine worker).  Pure, as that is.
[[gnu::pure]] std::uintptr_t scope_owner_id() noexcept;
// The count of frameless weft::spawn handles of the code running now: the running fiber's under the
// fiber engine (it may move between workers while a handle is open), else the thread's.
std::uint32_t& frameless_handles() noexcept;

// ~spawned's and ~scope's rule (a scope guard's, N4152): the count of exceptions in flight is saved
// when the handle or scope is made — on a worker's fast path through hot_state::exceptions_in_flight,
// elsewhere by exceptions_in_flight_now() — and its tasks (or their errors) are dropped only when an
// exception thrown since then is unwinding it: more are in flight now.  One made in a destructor an
// exception calls is not unwound by that exception.
inline unsigned int exceptions_in_flight_now() noexcept { return static_cast<unsigned int>(std::uncaught_exceptions()); }
inline bool unwound_since(unsigned int saved) noexcept { return exceptions_in_flight_now() > saved; }

// Test and tracing instrumentation: called on every promotion (in the promoting worker, on the
// slow path) when installed.  `depth` is the promoted frame's slot in the task stack (for a loop
// split: the loop frame's slot); `kind` says what was made stealable.
enum class promotion_kind : unsigned char { join, loop_half, loop_whole };
struct promotion_event {
  unsigned worker;
  std::size_t depth;
  promotion_kind kind;
};
using promotion_hook = void (*)(const promotion_event&);
void set_promotion_hook(promotion_hook hook) noexcept;  // nullptr removes it

// The work/span mode (work_span.hpp, src/work_span.cpp): a measured join opens its first branch,
// then its second, then joins them; a loop split does the same without counting calls, and each of
// its iterations is one call.
struct measure_saved {
  double span = 0, burdened = 0, work = 0;
  std::uint64_t path = 0;  // the id of the branch it was saved from (measure_state::path)
};
void measure_fork(hot_state& h, measure_saved& outer, bool is_call) noexcept;
void measure_next(hot_state& h, measure_saved& first, bool is_call) noexcept;
void measure_join(hot_state& h, const measure_saved& outer, const measure_saved& first) noexcept;
void measure_call(hot_state& h) noexcept;
// The id of the measured path running now (a branch, region or job; measure_state::path).
std::uint64_t measured_path(hot_state& h) noexcept;
// A branch that forks nothing and pushes no frame — parallel_invoke's one callable, a loop of one
// piece, a pool::run job that a worker of the same pool runs inline — under the work/span mode: it
// runs under an id of its own (measure_state::path), restored when it ends, so that a scope spawn
// inside it is no spawn at the scope's level (scope::measured_spawn_begin) but a serial call, as
// the runtime runs it (leave_scope_level).  On the path of the code around it, such a spawn was
// measured as Cilk's spawn, in parallel with the rest of the branch and the code up to the scope's
// sync (stop 57's levelmark2 hunt).  Its span and work are the path's as before: only the id changes.
std::uint64_t measure_enter_unforked(hot_state& h) noexcept;
void measure_leave_unforked(hot_state& h, std::uint64_t path) noexcept;
struct measured_unforked {
  hot_state& h;
  const std::uint64_t path;
  explicit measured_unforked(hot_state& hs) noexcept : h(hs), path(measure_enter_unforked(hs)) {}
  ~measured_unforked() { measure_leave_unforked(h, path); }
  measured_unforked(const measured_unforked&) = delete;
  measured_unforked& operator=(const measured_unforked&) = delete;
};
// Calls f() as such a branch, on this thread: a scope spawn inside it runs at once
// (leave_scope_level), and the work/span mode measures it so (measured_unforked).
template <class F>
WEFT_INLINE decltype(auto) call_unforked(hot_state& h, F&& f) {
  leave_scope_level(h);
  if (h.poll.load(std::memory_order_relaxed) & poll_bit::measure) [[unlikely]] {
    const measured_unforked own(h);
    return f();
  }
  return f();
}
// The two branches of a measured join or loop split: the first opens on construction, second()
// opens the second, and the pair is joined when it goes (also when a branch throws: the path is
// joined as far as it went).
struct measured_pair {
  hot_state& h;
  measure_saved outer, first;
  measured_pair(hot_state& hs, bool is_call) noexcept : h(hs) { measure_fork(h, outer, is_call); }
  void second(bool is_call) noexcept { measure_next(h, first, is_call); }
  ~measured_pair() { measure_join(h, outer, first); }
  measured_pair(const measured_pair&) = delete;
  measured_pair& operator=(const measured_pair&) = delete;
};

// A call of pool::run from outside the pool: run by the caller on a borrowed slot, or queued for a
// worker while the caller sleeps until done.
struct root_job {
  void (*body)(root_job*) = nullptr;
  std::exception_ptr error;
  // The exception its caller was handling when it queued the job (null: none): the body runs inside
  // a handler of it wherever it runs (run_root_body), as the serial elision's inline call does.
  std::exception_ptr handled;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;                   // guarded by m
  std::atomic<bool> done_hint{false};  // lets the caller spin briefly before sleeping
};
void submit(runtime* rt, root_job& job);  // queues the job for a worker; returns at once
void wait_for(root_job& job);              // sleeps until the job's body has finished
// pool::run: from a thread outside every pool, the caller runs the job itself on the slot of a
// sleeping worker when there is one; otherwise submit and wait_for.
void submit_and_wait(runtime* rt, root_job& job);
runtime* global_runtime();  // pool::global()'s runtime
// The beats the timer has requested from `p`'s workers since the last reset_stats, read atomically:
// unlike pool::stats(), safe while a run is in progress (the heartbeat delivery tests watch a
// window inside a run).
std::uint64_t beats_requested_now(const weft::pool& p) noexcept;

}  // namespace weft::detail
