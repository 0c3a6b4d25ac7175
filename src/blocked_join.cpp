// weft — running a stolen task, and a join whose branch was stolen: waiting for DONE while
// leapfrogging (WOOL §I.b).  Shared by both mechanisms.
#include <thread>

#include "pool_runtime.hpp"

namespace weft::detail {

void runtime::execute_stolen(worker& w, frame* t, task_fn fn) {
  end_idle(w);
  ++w.steals;
  if (heartbeat_bits != 0) w.hot->poll.fetch_and(~heartbeat_bits, std::memory_order_relaxed);
  frame* saved = w.base;
  w.base = w.hot->top;
  fn(t);  // the wrapper catches the task's exception into t->error
  w.base = saved;
  t->state.store(task_state::done, std::memory_order_release);
}

void runtime::wait_stolen(worker& w, frame* fr, unsigned thief) {
  // The joined slot stays reserved while we wait: its thief still writes DONE into it, and the
  // tasks we leapfrog push their frames above it.
  hot_state& h = *w.hot;
  frame* const joined_top = h.top;
  if (fr >= w.stack.begin() && fr < w.stack.end() && fr + 1 > h.top) h.top = fr + 1;
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
