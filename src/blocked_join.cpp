// weft — running a stolen task, and a join whose branch was stolen: waiting for DONE while
// leapfrogging (WOOL §I.b).  Shared by both mechanisms.
#include <thread>

#include "chaos.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

void runtime::execute_stolen(worker& w, frame* t, task_fn fn) {
  end_idle(w);
  ++w.steals;
  if (heartbeat_bits != 0) w.hot->poll.fetch_and(~heartbeat_bits, std::memory_order_relaxed);
  frame* saved = w.base;
  w.base = w.hot->top;
  fn(t);  // the wrapper catches the task's exception into t->error
  WEFT_ASSERT(w.hot->top == w.base, "a stolen task returned with frames left on its task stack");
  w.base = saved;
  WEFT_CHAOS_POINT();  // finished, DONE not yet stored: the owner still waits (or leapfrogs)
  t->state.store(task_state::done, std::memory_order_release);
  WEFT_CHAOS_POINT();
}

void runtime::wait_stolen(worker& w, frame* fr, unsigned thief) {
  // The joined slot stays reserved while we wait: its thief still writes DONE into it, and the
  // tasks we leapfrog push their frames above it.
  hot_state& h = *w.hot;
  frame* const joined_top = h.top;
  if (fr >= w.stack.begin() && fr < w.stack.end() && fr + 1 > h.top) h.top = fr + 1;
  WEFT_ASSERT(h.top >= w.base && h.top <= w.stack.end(), "task stack top outside [base, end] at a blocked join");
  w.blocked_on.store(int(thief), std::memory_order_relaxed);
  // Leapfrog only while the task stack has room.  The hop choice and the steal are not one atomic
  // step (a Chase-Lev steal cannot be undone), so a stale `blocked_on` can hand us work that does
  // not descend from `fr`, and WOOL's bound on the stack no longer holds (docs/PROTOCOLS.md,
  // blocked joins).  A blocked join may always simply wait: fork-join cannot deadlock on it.
  const bool may_leapfrog = h.top < w.stack.begin() + w.stack.capacity() / 2;
  unsigned idle = 0;
  while (fr->state.load(std::memory_order_acquire) != task_state::done) {
    // Leapfrogging (WOOL §I.b): steal only from the thief, or from the worker it waits for, and so
    // on: their stealable work descends from `fr` unless `blocked_on` is stale, which the DONE
    // check before each hop makes rare.
    bool got = false;
    int v = int(thief);
    for (std::size_t hops = 0; may_leapfrog && v >= 0 && hops < workers.size() && !got; ++hops) {
      if (hops > 0 && fr->state.load(std::memory_order_acquire) == task_state::done) break;
      worker& victim = *workers[std::size_t(v)];
      if (&victim == &w) break;
      WEFT_CHAOS_POINT();  // a hop chosen from a blocked_on that may be stale by now
      bump(w.steal_attempts);
      got = sched->steal(w, victim);
      if (!got) v = victim.blocked_on.load(std::memory_order_relaxed);
    }
    if (got) {
      ++w.leapfrogs;
      idle = 0;
    } else if (++idle < 128) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  w.blocked_on.store(-1, std::memory_order_relaxed);
  h.top = joined_top;
}

}  // namespace weft::detail
