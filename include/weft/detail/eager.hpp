// weft — a frame onto and off its owner's deque (every promotion of the deque mechanism goes
// through put_on_deque and take_off_deque, or, in the eager join, eager_promote and eager_reclaim).
//
// The eager join (ws, ws-ap: trigger::every_push, SPEC §3): every join's frame goes on the
// owner's Chase-Lev deque as it is pushed and comes off it at the join.  The deque operations and
// the ledger are inline here, so that the eager baseline pays what eager work stealing costs — one
// push and one pop of the deque per join (Lê et al.'s orders: a release store on push, a seq_cst
// store and load on pop) — and not a trip through the policy's virtual slow path.  Only what is
// rare stays out of line: waking a sleeper when the deque was empty, the promotion hook, a pop that
// lost its frame to a thief, and the join of a frame that the full deque refused.  Tracing pools
// take the general path (their reports are per promotion): their poll word lacks poll_bit::eager
// and hot_state::eager_deque is null.
#pragma once

#include "deque.hpp"
#include "ledger.hpp"
#include "slow_path.hpp"

namespace weft::detail {

// The promotion hook (slow_path.hpp), read here only to test whether one is installed.
extern std::atomic<promotion_hook> installed_promotion_hook;

void eager_wake(hot_state& h) noexcept;                 // the deque was empty: runtime::notify_work
void eager_report(hot_state& h, const frame* fr) noexcept;  // report_promotion with the hook installed
reclaimed eager_stolen(hot_state& h, frame* fr);        // the pop found that a thief took `fr`

// The deque mechanism's two halves of a promotion, shared by every promotion and join of a frame
// on a deque outside the eager join (deque_scheduler::promote_frame and ::reclaim, loop splits).
//
// Makes `fr` stealable: the push's release publishes it, then the owner-private mark and the ledger
// (a thief may run the frame in between; it reads neither).  False when the deque is full: the frame
// stays latent (promotion is optional).
WEFT_INLINE bool put_on_deque(chase_lev_deque& d, promotion_ledger& ledger, frame* fr, bool& was_empty) noexcept {
  if (!d.push(fr, was_empty)) return false;
  WEFT_CHAOS_POINT();  // pushed, not yet marked: a thief may run and finish it before the mark
  fr->marks |= frame_mark::on_deque;
  ledger.note_promotion();
  return true;
}

// At the join of `fr`, a frame on the deque: pop, unmark, count it joined.  Returns what the pop
// gave: `fr` when nobody took it (the deque holds promoted frames in stack order).
WEFT_INLINE frame* take_off_deque(chase_lev_deque& d, promotion_ledger& ledger, frame* fr) noexcept {
  WEFT_CHAOS_POINT();
  frame* popped = d.pop();
  fr->marks &= std::uint8_t(~frame_mark::on_deque);
  ledger.note_joined();
  return popped;
}

// The eager join's own halves.  It needs no `on_deque` mark: its join knows that it promoted the
// frame (it did so itself, inline, or took the latent join when the deque was full: join.hpp,
// join_eager), and it counts what is in flight by depth (promotion_ledger::note_eager_promotion).
//
// The frame just pushed becomes stealable; false when the deque is full.
WEFT_INLINE bool eager_promote(hot_state& h, frame* fr) noexcept {
  bool was_empty;
  if (!h.eager_deque->push(fr, was_empty)) [[unlikely]] return false;
  WEFT_CHAOS_POINT();  // pushed, not yet counted: a thief may run and finish it meanwhile
  h.eager_ledger->note_eager_promotion(fr);
  if (was_empty) [[unlikely]] eager_wake(h);
  if (installed_promotion_hook.load(std::memory_order_relaxed) != nullptr) [[unlikely]] eager_report(h, fr);
  return true;
}

// The join of an eagerly promoted frame: pop it back, or find that a thief has it.
WEFT_INLINE reclaimed eager_reclaim(hot_state& h, frame* fr) {
  WEFT_CHAOS_POINT();
  if (h.eager_deque->pop_own(fr)) [[likely]] return reclaimed::run_inline;
  return eager_stolen(h, fr);
}

}  // namespace weft::detail
