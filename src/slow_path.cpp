// weft — the entry points from the public templates into the policy (see detail/slow_path.hpp).
#include "pool_runtime.hpp"

namespace weft::detail {

void promote_at_poll(hot_state& h, frame* fr) {
  // Never in the work/span mode: its joins go to join_measured, its loops to measured_loop, and its
  // spawns run at once (the scope has no spawn limit there: scope.hpp).
  worker& w = *h.self;
  WEFT_ASSERT(h.top > w.base && h.top <= w.stack.end() && fr == h.top - 1, "task stack top outside (base, end] at a promotion");
  scheduler& sched = *w.rt->sched;
  // Another pool's bits this policy never acts on are put aside first (scheduler.hpp).
  if (const std::uint32_t foreign = h.poll.load(std::memory_order_relaxed) & sched.foreign_poll_bits()) {
    h.poll.fetch_and(~foreign, std::memory_order_relaxed);
    w.deferred_poll_bits |= foreign;
  }
  sched.promote_at_poll(w, h, fr);
}

reclaimed reclaim(hot_state& h, frame* fr) {
  worker& w = *h.self;
  WEFT_ASSERT(h.top >= w.base && h.top <= w.stack.end(), "task stack top outside [base, end] at a join");
  return w.rt->sched->reclaim(w, h, fr);
}

bool reclaim_after_throw(hot_state& h, frame* fr) { return reclaim(h, fr) == reclaimed::stolen; }

constinit std::atomic<promotion_hook> installed_promotion_hook{nullptr};

void set_promotion_hook(promotion_hook hook) noexcept { installed_promotion_hook.store(hook, std::memory_order_release); }

// Out of line, so that with tracing off report_promotion stays a leaf function (no frame to set up):
// under ws it runs at every join.
[[gnu::noinline, gnu::cold]] static void trace_promotion(const worker& w, const frame* f, promotion_kind kind) noexcept {
  if (!w.trace->instant(trace_kind::promotion, std::uint32_t(f - w.stack.begin()), std::uint16_t(kind)))
    w.trace->close_promotions(w.ledger.promotions);  // this one is in dropped() already
}

[[gnu::noinline, gnu::cold]] static void call_hook(promotion_hook hook, const worker& w, const frame* f,
                                                   promotion_kind kind) noexcept {
  hook(promotion_event{w.index, std::size_t(f - w.stack.begin()), kind});
}

// Both reports out of line: with neither installed this is a leaf of two tests (ws: every join).
void report_promotion(const worker& w, const frame* f, promotion_kind kind) noexcept {
  if (w.trace && !w.trace->promotions_closed()) [[unlikely]] trace_promotion(w, f, kind);
  if (promotion_hook hook = installed_promotion_hook.load(std::memory_order_acquire)) [[unlikely]] call_hook(hook, w, f, kind);
}

}  // namespace weft::detail
