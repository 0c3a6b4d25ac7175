// weft — weft::spawn's slow paths (the fast path is spawn.hpp): a spawn whose poll found a reason to
// leave it, the sync of a promoted frame, a spawn that made no frame (no worker, the fiber engine,
// the work/span mode), misuse, and a handle destroyed unsynced.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <type_traits>

#include "checks.hpp"
#include "eager.hpp"
#include "join.hpp"
#include "slow_path.hpp"

namespace weft::detail {

// A handle's state: the task stack's top just above its frame while the frame is open (so that
// sync's test that the frame is the youngest is one compare with the top), `synced` once synced,
// or, when the spawn made no frame, one of the tagged values below (frames are 64-byte aligned: a
// top's low bits are 0).  A frameless handle has no top to compare: it keeps its place among the
// frameless handles open on its thread (frameless_handles(), counted from 1), and its sync checks
// that it is the last of them — the same rule, youngest first on the spawning thread, checked the
// same way, with the same message, whether or not the spawn made a frame.
namespace spawn_state {
inline constexpr std::uintptr_t tag_mask = 3;
inline constexpr unsigned place_shift = 2;
// On a thread that is no worker, and under the fiber engine (adf, dfd, fifo): the task runs at sync,
// on the thread that syncs — the serial order of the join it is.  Under the fiber engine a fork is a
// thread of its own, and a handle destroyed while an exception unwinds would have to wait for it
// there: the wait may resume the fiber on another worker, and an unwinding that goes on on another
// thread corrupts both threads' exception state (the count std::uncaught_exceptions() reads is per
// thread; join_fibered catches before it waits for the same reason).  A scope's spawns run at once
// there too (README).
inline constexpr std::uintptr_t deferred_tag = 1;  // | place << place_shift
inline constexpr std::uintptr_t deferred(std::uint32_t place) noexcept {
  return std::uintptr_t(place) << place_shift | deferred_tag;
}
inline constexpr bool is_deferred(std::uintptr_t s) noexcept { return (s & tag_mask) == deferred_tag; }
// Synced (or dropped): nothing left to do.  Not 0: the top of a thread that is no worker is null,
// and sync's one compare must not take a synced handle for an open frame there.
inline constexpr std::uintptr_t synced = 2;
inline constexpr std::uintptr_t measured_tag = 2;  // | a measured_spawn* (its place inside): the work/span mode
}  // namespace spawn_state

template <class F>
using spawn_closure_arg = std::conditional_t<branch_in_frame<F>::fits, F, F*>;

template <class F>
WEFT_INLINE F& closure_ref(spawn_closure_arg<F>& f) noexcept {
  if constexpr (branch_in_frame<F>::fits)
    return f;
  else
    return *f;
}

// The work/span mode: the spawn opens the join's first path (the code up to sync), sync the second
// (the task), and the two are joined after it (measured_pair's three steps, apart).
struct measured_spawn {
  measure_saved outer, first;
  std::uint32_t place;  // among the thread's frameless handles (spawn_state)
};
std::uintptr_t spawn_deferred() noexcept;
std::uintptr_t spawn_measured(hot_state& h);
// A frameless handle's sync or destruction: ends the process (spawn_out_of_order) unless it is the
// youngest frameless handle open here; then it is no longer counted.
void frameless_closed(std::uintptr_t s, bool at_sync) noexcept;
void sync_measured_begin(hot_state& h, std::uintptr_t s) noexcept;  // opens the task's path
void sync_measured_end(hot_state& h, std::uintptr_t s) noexcept;    // joins; frees the record

// A spawn whose poll found a reason to leave the fast path; `store` writes the frame's payload.
// Returns the handle's state.  As join_slow and join_general do for a join: the eager join of ws
// and ws-ap (promoted as pushed, marked so that sync knows), a thread that is no worker, the
// work/span mode, the fiber engine, and otherwise the push and the policy's decision at a poll.
template <class F, class Store>
WEFT_INLINE std::uintptr_t spawn_slow_path(Store store) {
  using B = branch_t<F>;
  hot_state& h = tls_hot;
  const bool eager = eager_join(h);
  if (!eager) {
    if (h.self == nullptr) return spawn_deferred();
    const std::uint32_t bits = h.poll.load(std::memory_order_relaxed);
    if (bits & poll_bit::measure) return spawn_measured(h);
    if (bits & poll_bit::fibers) {
      ++h.joins;  // a join, run as its serial elision (spawn_state::deferred)
      return spawn_deferred();
    }
  }
  frame* fr = h.top;
  store(fr);
  push_frame(h, fr, &B::run);
  if (eager && eager_promote(h, fr)) [[likely]]
    fr->marks |= frame_mark::eager_spawn;
  else
    promote_at_poll(h, fr);  // the policy decides; or the deque was full: latent, as join_eager leaves it
  return reinterpret_cast<std::uintptr_t>(fr + 1);
}

// A closure that fits the frame, by value (its address must not escape the fast path).
template <class F>
WEFT_NOINLINE std::uintptr_t spawn_slow(F f) {
  using B = branch_in_frame<F>;
  return spawn_slow_path<F>([&f](frame* fr) {
    typename B::holder none(&f);
    B::store(fr, f, none);
  });
}

// Any other: the frame points at the handle's record (`holder`), which points at its closure.
template <class F>
WEFT_NOINLINE std::uintptr_t spawn_slow_held(typename branch_on_stack<F>::holder* holder) {
  return spawn_slow_path<F>([holder](frame* fr) { branch_on_stack<F>::store(fr, *holder->g, *holder); });
}

// A handle synced a second time: std::logic_error.
[[noreturn]] void spawn_synced_twice();
// A handle synced or destroyed while its frame is not the calling thread's top one (a younger handle
// still open above it, a join branch opened since, another thread): no join of that frame is safe
// any more — a thief may be running it, and the slot will be pushed again — so the process ends,
// saying why.
[[noreturn]] void spawn_out_of_order(bool at_sync) noexcept;

// The sync of a promoted frame (taken back, or waited for).  An eager spawn's frame is taken back
// inline, as the eager join does it (eager_reclaim: the deque's pop); any other, the join's reclaim.
template <class F>
WEFT_NOINLINE ret_t<F> sync_promoted(frame* fr, spawn_closure_arg<F> f) {
  hot_state& h = tls_hot;
  reclaimed how;
  if (fr->marks == frame_mark::eager_spawn) [[likely]] {
    fr->marks = 0;
    how = eager_reclaim(h, fr);
  } else {
    how = reclaim(h, fr);
  }
  if (how == reclaimed::run_inline) return call(closure_ref<F>(f));
  return stolen_result<F>(fr);
}

// The task of a handle whose spawn made no frame (its order checked already): run here, in the
// work/span mode as the join's second path.
template <class F>
ret_t<F> run_frameless(std::uintptr_t s, spawn_closure_arg<F>& f) {
  if (spawn_state::is_deferred(s)) return call(closure_ref<F>(f));
  WEFT_ASSERT((s & spawn_state::tag_mask) == spawn_state::measured_tag, "a spawn's state neither a frame, deferred nor measured");
  hot_state& h = tls_hot;
  sync_measured_begin(h, s);
  struct end {
    hot_state& h;
    std::uintptr_t s;
    ~end() { sync_measured_end(h, s); }
  } joined{h, s};
  return call(closure_ref<F>(f));
}

// The sync of a handle whose spawn made no frame: synced already, misused, or frameless.
template <class F>
WEFT_NOINLINE ret_t<F> sync_aside(std::uintptr_t s, spawn_closure_arg<F> f) {
  if (s == spawn_state::synced) spawn_synced_twice();
  if ((s & spawn_state::tag_mask) == 0) spawn_out_of_order(true);
  frameless_closed(s, true);
  return run_frameless<F>(s, f);
}

// A handle destroyed unsynced (its state taken already): synced, the result discarded, unless an
// exception thrown since the spawn is unwinding the stack (more in flight than the spawn saw) — then
// the task is dropped as an unwinding join drops its second branch (join_unwind): taken back unrun,
// or its thief waited for and what it made destroyed.
template <class F>
WEFT_NOINLINE void spawn_abandoned(std::uintptr_t s, spawn_closure_arg<F> f, unsigned int uncaught_at_spawn) {
  hot_state& h = tls_hot;
  const bool is_frame = (s & spawn_state::tag_mask) == 0;
  if (is_frame && reinterpret_cast<std::uintptr_t>(h.top) != s) spawn_out_of_order(false);
  if (!is_frame) frameless_closed(s, false);
  if (!unwound_since(uncaught_at_spawn)) {
    if (!is_frame) {
      (void)run_frameless<F>(s, f);
      return;
    }
    frame* fr = reinterpret_cast<frame*>(s) - 1;
    h.top = fr;
    if (must_reclaim(fr))
      (void)sync_promoted<F>(fr, f);
    else
      (void)call(closure_ref<F>(f));
    return;
  }
  if (is_frame) {
    frame* fr = reinterpret_cast<frame*>(s) - 1;
    h.top = fr;
    if (!must_reclaim(fr)) return;
    fr->marks &= std::uint8_t(~frame_mark::eager_spawn);  // then reclaim() takes it as an eager join's
    return join_unwind<F>(h, fr);
  }
  if (spawn_state::is_deferred(s)) return;  // never run: the code before sync threw
  sync_measured_end(h, s);
}

}  // namespace weft::detail
