// weft — running a stolen task, and a join whose branch was stolen: waiting for DONE while
// leapfrogging (WOOL §I.b).  Shared by the deque and Wool mechanisms (the fiber engine suspends a
// blocked join's fiber instead: sched_fibers.cpp).
#include <thread>
#include <utility>

#include "beat_signal.hpp"
#include "eh_state.hpp"
#include "weft/detail/chaos.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

namespace {
// WOOL Fig. 6: a task taken in a blocked join is leapfrogged work (LA), any other is NA.
void trace_stolen_task(trace_buffer& b, const worker& victim) noexcept {
  const bool leapfrog = b.current() == activity::leapfrogging;
  b.instant(trace_kind::steal, victim.index, leapfrog ? 1 : 0);
  b.enter(leapfrog ? activity::leapfrog_work : activity::work);
}
}  // namespace

void runtime::execute_stolen(worker& w, worker& victim, frame* t, task_fn fn) {
  end_idle(w);
  ++w.steals;
  if (heartbeat_bits != 0 && (w.hot->poll.fetch_and(~heartbeat_bits, std::memory_order_relaxed) & heartbeat_bits) &&
      beats_by_signal())
    beat_timer_rearm();  // the cleared beat was the one-shot timer's: send the next
  if (w.trace) trace_stolen_task(*w.trace, victim);
  frame* saved = w.base;
  w.base = w.hot->top;
  const std::uint64_t waited_before = w.waited_ns, started = now_ns();
  {
    // A stolen task run while this thread unwinds (a blocked join or handle waiting for its thief
    // from inside an exception's cleanup: a join whose first branch threw waits so, in
    // first_branch_cleanup) is none of the code that exception unwinds: it runs as on a thief, with
    // no exception in flight — std::uncaught_exceptions() reads 0, and user code that follows the
    // rule of oneTBB's task_group does not take itself for unwinding (it did since stop 52, when
    // that wait moved out of a catch (...) handler: stop 52's exc2 hunt).  The wrapper catches the
    // task's exception into t->error, so the task leaves the count as it found it, 0.  (weft's own
    // scopes and handles compare with the count they saw when made, and need nothing more here.)
    eh_state* const eh = thread_eh_state();
    const unsigned int in_flight = std::exchange(eh->uncaught, 0u);
    fn(t);
    eh->uncaught = in_flight;
  }
  // For the idle loop's steal backoff (idle.cpp): the task's own work, without the time its joins
  // spent waiting for their thieves (wait_stolen): that is no work the theft brought.
  const std::uint64_t ended = now_ns(), wall = ended - started, waited = w.waited_ns - waited_before;
  w.stolen_task_wall_ns = wall;
  w.stolen_task_ns = wall > waited ? wall - waited : 0;
  // And how long the victim has waited at this task's join, if it is there (it waits for this
  // thread): the part of the task that overlapped none of the victim's own work.
  w.stolen_victim_wait_ns = 0;
  if (victim.blocked_on.load(std::memory_order_relaxed) == int(w.index))
    if (const std::uint64_t since = victim.join_wait_since.load(std::memory_order_relaxed); since != 0 && ended > since)
      w.stolen_victim_wait_ns = ended - since;
  w.trace_leave();
  if (w.hot->top != w.base) [[unlikely]] escaped_frames("stolen task");  // as a root job's (root_jobs.cpp)
  w.base = saved;
  WEFT_CHAOS_POINT();  // finished, DONE not yet stored: the owner still waits (or leapfrogs)
  t->state.store(task_state::done, std::memory_order_release);
  // The victim (whose join waits for this frame) may have parked in wait_stolen.  Dekker with its
  // `parked` store and DONE check: DONE, fence, load `parked` here; `parked` (seq_cst), load of the
  // state (seq_cst) there — one side sees the other (docs/PROTOCOLS.md §8).  Only the victim's
  // worker is touched after DONE, never the frame, which its owner may reuse at once.
  WEFT_CHAOS_POINT();  // DONE stored, the parked check not yet made
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (victim.parked.load(std::memory_order_relaxed)) {
    victim.unpark_epoch.fetch_add(1, std::memory_order_release);
    victim.unpark_epoch.notify_all();
  }
}

// A join blocked for about 1 ms with nothing to leapfrog (its thief is descheduled, or blocked in
// a long task) stops spinning and sleeps until the thief's DONE (SPEC §2: spin briefly, then
// sleep), or until the thief — or a worker the thief waits for, down the blocked_on chain — makes
// work stealable,
// which this join may leapfrog (wake_parked_joiners; until stop 52's idle hunt only DONE woke it:
// the thief then ran the rest of the stolen task alone, on 2 workers half the pool idle); under
// signal delivery without beats, which would only wake it.
//
// No wake is lost: the joiner stores `parked` (seq_cst; counted in parked_joins_ before), a
// seq_cst fence, then looks at DONE and at its chain's stealable work; a publisher makes its work
// visible, a seq_cst fence (notify_work), then reads parked_joins_, `parked` and `blocked_on`.  The
// two fences are ordered in S: either the joiner's look sees the work, or the publisher's loads see
// the joiner's stores (each sequenced before the joiner's fence) and wake it — section 4's Dekker
// pair, for the direct thief.  Further down the chain a hop reads another worker's `blocked_on`,
// with no such pair: best effort, as leapfrogging's own walk is (the join still ends at DONE).
void runtime::park_until_done(worker& w, frame* fr, unsigned thief) {
  if (made_before_fork()) [[unlikely]] end_forked_child();  // the thief is no thread of this process
  w.trace_enter(activity::idle);
  if (beats_by_signal()) beat_timer_disarm();
  const std::uint32_t epoch = w.unpark_epoch.load(std::memory_order_acquire);
  parked_joins_.fetch_add(1, std::memory_order_seq_cst);
  w.parked.store(true, std::memory_order_seq_cst);
  WEFT_CHAOS_POINT();  // announced, DONE not yet checked
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (fr->state.load(std::memory_order_seq_cst) != task_state::done && !chain_has_stealable(w, thief))
    w.unpark_epoch.wait(epoch, std::memory_order_acquire);
  w.parked.store(false, std::memory_order_relaxed);
  parked_joins_.fetch_sub(1, std::memory_order_relaxed);
  if (beats_by_signal()) beat_timer_arm(w.beats_requested, cfg.heartbeat);
  w.trace_leave();
}

// Stealable work on `thief` or down its blocked_on chain: what wait_stolen would leapfrog.
bool runtime::chain_has_stealable(const worker& w, unsigned thief) const noexcept {
  bool found = false;
  walk_blocked_chain(int(thief), [&](const worker& victim) {
    if (&victim == &w) return true;  // back at the joiner: a stale chain
    found = sched->has_stealable(victim);
    return found;
  });
  return found;
}

// A parked joiner whose blocked_on chain reaches `from` is woken: one wake per park (the exchange
// clears `parked`; the joiner, running again, leapfrogs for ~1 ms before it may park again), so a
// thief that pushes at every join costs its parked joiner one futex call, not one per push.  The
// exchange reads the joiner's `parked` store (release), so the joiner's epoch read, before that
// store, happens before this bump: its wait returns.  A DONE that comes after it finds `parked`
// clear and wakes nobody; the joiner is awake already.
void runtime::wake_parked_joiners(const worker& from) noexcept {
  for (const auto& v : workers) {
    if (!v->parked.load(std::memory_order_relaxed)) continue;
    const bool reaches = walk_blocked_chain(v->blocked_on.load(std::memory_order_relaxed),
                                            [&](const worker& t) { return &t == &from; });
    if (reaches && v->parked.exchange(false, std::memory_order_acq_rel)) {
      v->unpark_epoch.fetch_add(1, std::memory_order_release);
      v->unpark_epoch.notify_all();
    }
  }
}

void runtime::wait_stolen(worker& w, frame* fr, unsigned thief) {
  // The joined slot stays reserved while we wait: its thief still writes DONE into it, and the
  // tasks we leapfrog push their frames above it.  A joined frame that is no slot of this stack (a
  // loop's split-off piece lives in the worker's pool of children, loops.cpp) reserves the slot at
  // the top all the same: the tasks we leapfrog must start strictly above the top of the code that
  // waits, for a scope's owner test reads "at the scope's level" from the top alone (scope.hpp,
  // spawn).  A loop pops its frame before it joins its pieces, so its top is then the top of the
  // code around the loop; a task leapfrogged there, at that very top, passed the test of a scope
  // made right before the loop and pushed a latent frame of that scope inside the leapfrogged task
  // (stop 41's bug hunt: "deque order broken at a join", hangs; test
  // Scope.SpawnFromATaskLeapfroggedAtTheScopesLevelRunsAtOnce).
  hot_state& h = *w.hot;
  frame* const joined_top = h.top;
  const bool joined_on_stack = fr >= w.stack.begin() && fr < w.stack.end();
  frame* const reserved = joined_on_stack ? fr : h.top;
  if (reserved < w.stack.end() && reserved + 1 > h.top) h.top = reserved + 1;
  WEFT_ASSERT(h.top >= w.base && h.top <= w.stack.end(), "task stack top outside [base, end] at a blocked join");
  // The thief this worker waited for before (-1: none): a join of a task leapfrogged while an outer
  // join waits is nested in that wait, which goes on when this one ends, and must name its own
  // thief again — other blocked joins follow it, and its thief's pushes wake it through it when it
  // parks (wake_parked_joiners).  Until stop 57 the end stored -1: the outer join, parked after such
  // a nested join, slept through its thief's pushes until DONE.  Relaxed: only the slot's holder
  // writes the word, so this load reads its own last store (coherence), and readers take it as a
  // hint (PROTOCOLS.md §8), ordered where it matters by park_until_done's fence.
  const int waited_before = w.blocked_on.load(std::memory_order_relaxed);
  w.blocked_on.store(int(thief), std::memory_order_relaxed);
  w.trace_enter(activity::leapfrogging);
  // Leapfrog only while the task stack has room.  The hop choice and the steal are not one atomic
  // step (a Chase-Lev steal cannot be undone), so a stale `blocked_on` can hand us work that does
  // not descend from `fr`, and WOOL's bound on the stack no longer holds (docs/PROTOCOLS.md,
  // blocked joins).  A blocked join may always simply wait: fork-join cannot deadlock on it.
  const bool may_leapfrog = h.top < w.stack.begin() + w.stack.capacity() / 2;
  if (may_leapfrog) waiting_joins.fetch_add(1, std::memory_order_seq_cst);
  const std::uint64_t entered = now_ns();
  // For the thief's steal backoff (execute_stolen); a nested wait's, like blocked_on, gives the
  // outer one's back when it ends.
  const std::uint64_t waiting_since_before = w.join_wait_since.load(std::memory_order_relaxed);
  w.join_wait_since.store(entered, std::memory_order_relaxed);
  std::uint64_t leapfrogged_ns = 0;  // the tasks run meanwhile, waits inside them included
  unsigned idle = 0;
  std::uint64_t since = 0;  // when the current run of failed leapfrog attempts began
  while (fr->state.load(std::memory_order_acquire) != task_state::done) {
    // Leapfrogging (WOOL §I.b): steal only from the thief, or from the worker it waits for, and so
    // on: their stealable work descends from `fr` unless `blocked_on` is stale, which the DONE
    // check before each hop makes rare.
    bool got = false;
    if (may_leapfrog) {
      bool first_hop = true;
      walk_blocked_chain(int(thief), [&](worker& victim) {
        if (!std::exchange(first_hop, false) && fr->state.load(std::memory_order_acquire) == task_state::done)
          return true;
        if (&victim == &w) return true;  // back at this joiner: a stale chain
        WEFT_CHAOS_POINT();  // a hop chosen from a blocked_on that may be stale by now
        bump(w.steal_attempts);
        got = sched->steal(w, victim);
        return got;
      });
    }
    if (got) {
      ++w.leapfrogs;
      leapfrogged_ns += w.stolen_task_wall_ns;
      idle = 0;
      continue;
    }
    send_spare_beat(w);  // this core has no task of its own while the join waits: beats may come from it
    // A blocked join looks for work too: proof of it for the checks that hold their offers
    // (runtime::search_round), as the idle loop gives.
    if (may_leapfrog && (idle == 0 || (idle & 63) == 63)) search_round(w);
    if (++idle < 128) {
      cpu_relax();
    } else if (since == 0) {
      since = now_ns();
    } else if (now_ns() - since < spin_before_sleep_ns) {
      std::this_thread::yield();
    } else {
      park_until_done(w, fr, thief);
      idle = 0;
      since = 0;
    }
  }
  w.blocked_on.store(waited_before, std::memory_order_relaxed);
  w.join_wait_since.store(waiting_since_before, std::memory_order_relaxed);
  if (may_leapfrog) waiting_joins.fetch_sub(1, std::memory_order_relaxed);
  // This join's own waiting (the leapfrogged tasks' waits are counted by their own joins).
  const std::uint64_t blocked = now_ns() - entered;
  w.waited_ns += blocked > leapfrogged_ns ? blocked - leapfrogged_ns : 0;
  w.trace_leave();
  h.top = joined_top;
}

}  // namespace weft::detail
