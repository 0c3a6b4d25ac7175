// weft — one of NAR's threads on the fiber engine: a fiber (Boost.Context) with a pooled stack, and
// the two switches between it and the scheduler loop of the worker that runs it.
//
// Every switch goes through the scheduler: a thread that forks, blocks, is preempted or terminates
// sets its `request` and switches to the loop that resumed it (`back`); the loop, on its worker's
// own stack, carries the request out under the scheduler's lock and picks what runs next (NAR Fig
// 6.4's loop has this shape).  A thread's continuation is saved by the switch itself, before any
// other worker can see the thread as ready: the loop publishes it only after the switch returned.
//
// Sanitizers follow a stack switch only when told (ASan: __sanitizer_start/finish_switch_fiber;
// TSan: __tsan_switch_to_fiber): both annotations sit right around each switch.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstddef>
#include <cstdint>

#include "eh_state.hpp"
#include "weft/detail/fiber_join.hpp"
#include "weft/detail/slow_path.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define WEFT_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define WEFT_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WEFT_FIBER_TSAN 1
#endif
#endif
#ifdef WEFT_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#endif
#ifdef WEFT_FIBER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace weft::detail {

struct worker;

struct fiber_thread {
  enum class state : std::uint8_t { ready, running, blocked };
  // Why a running thread switched back to its scheduler loop.
  enum class request : std::uint8_t { none, fork, block, preempt, terminate };

  // Its stack was counted out before the thread's last switch (fiber_stack_pool::retire): read by
  // the stack's deallocation, so declared before ctx, which may run it as it is destroyed.
  bool stack_retired = false;
  boost::context::fiber ctx;   // the thread's continuation while it does not run
  boost::context::fiber back;  // while it runs: the scheduler loop that resumed it
  fiber_child* body = nullptr;  // a forked thread: the join branch it runs
  root_job* job = nullptr;      // a root thread: the pool::run job it runs
  state st = state::running;  // written under the scheduler's lock only
  request req = request::none;
  fiber_thread* forked = nullptr;    // request::fork: the new child
  fiber_child* waits_for = nullptr;  // request::block: the child it waits for
  bool dummy = false;                // one of NAR's dummy threads (counted apart)
  worker* maker = nullptr;           // a forked thread: the worker it was forked on (its live count)
  const root_job* job_of = nullptr;  // the pool::run job it is part of (a borrower runs its own only)
  // adf: neighbours in R, the list of every live thread in serial depth-first order (NAR §5.3);
  // fifo: neighbours in the ready queue.
  fiber_thread* left = nullptr;
  fiber_thread* right = nullptr;
  // adf: the bytes this scheduling may still allocate (NAR §5.3: reset to K at each scheduling).
  std::size_t quota_left = 0;
  // weft::spawn handles this thread holds open without a frame (hot_state::frameless_handles): the
  // count moves with the thread from worker to worker.
  std::uint32_t frameless_handles = 0;
  eh_state eh;  // this fiber's exception state while it is switched out (eh_state above)

  const void* stack_lowest = nullptr;  // this fiber's stack (the sanitizers' switch into it)
#ifdef WEFT_FIBER_ASAN
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;          // ASan's fake stack while this fiber is switched out
  const void* back_lowest = nullptr;   // the stack of the loop that resumed it
  std::size_t back_size = 0;
#endif
#ifdef WEFT_FIBER_TSAN
  void* tsan_fiber = nullptr;
  void* back_tsan_fiber = nullptr;
#endif

  // On the thread's own stack: hands `req` to the loop that resumed it; returns when a loop (on
  // any worker) resumes it again.
  void switch_to_scheduler() noexcept {
#ifdef WEFT_FIBER_ASAN
    __sanitizer_start_switch_fiber(&fake_stack, back_lowest, back_size);
#endif
#ifdef WEFT_FIBER_TSAN
    __tsan_switch_to_fiber(back_tsan_fiber, 0);
#endif
    back = std::move(back).resume();
    landed();
  }

  // On the thread's own stack, right after a scheduler switched into it.
  void landed() noexcept {
#ifdef WEFT_FIBER_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, &back_lowest, &back_size);
#endif
  }

  // The last switch: the stack is released by Boost.Context once this returns to `back`.
  boost::context::fiber leave() noexcept {
#ifdef WEFT_FIBER_ASAN
    __sanitizer_start_switch_fiber(nullptr, back_lowest, back_size);
#endif
#ifdef WEFT_FIBER_TSAN
    __tsan_switch_to_fiber(back_tsan_fiber, 0);
#endif
    return std::move(back);
  }
};

// Per scheduler loop (a worker's native stack, or a fiber running a nested loop): resumes `t` and
// returns when `t` switched back with a request.
inline void resume_thread(fiber_thread* t) noexcept {
  // The loop's exception state out, the fiber's in, and back when it switches out (the loop runs on
  // this OS thread throughout: the fiber returns to it here).
  eh_state* const here = thread_eh_state();
  const eh_state loop_eh = *here;
  *here = t->eh;
#ifdef WEFT_FIBER_ASAN
  void* loop_fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&loop_fake_stack, t->stack_lowest, t->stack_size);
#endif
#ifdef WEFT_FIBER_TSAN
  t->back_tsan_fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(t->tsan_fiber, 0);
#endif
  t->ctx = std::move(t->ctx).resume();
#ifdef WEFT_FIBER_ASAN
  __sanitizer_finish_switch_fiber(loop_fake_stack, nullptr, nullptr);
#endif
  eh_state* const back_here = thread_eh_state();
  t->eh = *back_here;
  *back_here = loop_eh;
}

}  // namespace weft::detail
