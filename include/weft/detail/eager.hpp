// weft — the eager join (ws, ws-ap: trigger::every_push, SPEC §3): every join's frame goes on the
// owner's Chase-Lev deque as it is pushed and comes off it at the join.  The deque operations, the
// `on_deque` mark and the ledger are inline here, so that the eager baseline pays what eager work
// stealing costs — one push and one pop of the deque per join (Lê et al.'s orders: a release store
// on push, a seq_cst store and load on pop) — and not a trip through the policy's virtual slow path.
// Only what is rare stays out of line: waking a sleeper when the deque was empty, the promotion hook,
// and a pop that lost its frame to a thief.  Tracing pools take the general path (their reports
// are per promotion), so hot_state::eager_deque is null there.
#pragma once

#include "deque.hpp"
#include "ledger.hpp"
#include "slow_path.hpp"

namespace weft::detail {

// The promotion hook (slow_path.hpp), read here only to test whether one is installed.
extern std::atomic<promotion_hook> installed_promotion_hook;

void eager_wake(hot_state& h) noexcept;                 // the deque was empty: runtime::notify_work
void eager_report(hot_state& h, const frame* fr) noexcept;  // report_promotion with the hook installed
reclaimed eager_stolen(hot_state& h, frame* fr, frame* popped);  // the pop did not give `fr` back

// The frame just pushed becomes stealable (a full deque leaves it latent: promotion is optional).
WEFT_INLINE void eager_promote(hot_state& h, frame* fr) noexcept {
  bool was_empty;
  if (!h.eager_deque->push(fr, was_empty)) [[unlikely]] return;
  fr->marks |= frame_mark::on_deque;
  h.eager_ledger->note_promotion();
  if (was_empty) [[unlikely]] eager_wake(h);
  if (installed_promotion_hook.load(std::memory_order_relaxed) != nullptr) [[unlikely]] eager_report(h, fr);
}

// The join of an eagerly promoted frame: pop it back, or find that a thief has it.
WEFT_INLINE reclaimed eager_reclaim(hot_state& h, frame* fr) {
  frame* popped = h.eager_deque->pop();
  fr->marks &= std::uint8_t(~frame_mark::on_deque);
  h.eager_ledger->note_joined();
  if (popped == fr) [[likely]] return reclaimed::run_inline;
  return eager_stolen(h, fr, popped);
}

}  // namespace weft::detail
