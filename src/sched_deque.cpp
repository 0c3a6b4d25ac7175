// weft — the deque mechanism and the policies on it.  A promoted frame (a join's second branch, a
// spawned task, or a split-off loop range) goes on the owner's Chase-Lev deque; thieves take the
// oldest.  Each policy answers two questions at a poll (SPEC §3):
//
//   policy     when it promotes                              which latent item
//   serial     never                                         -
//   ws         at every join/spawn (LS §2.2 "SP")            the frame just pushed
//   ws-ap      at every join/spawn; loops split eagerly at    the frame just pushed; loops: TBB's
//              their start                                    auto partitioner (loops.cpp)
//   lazy-df    deque holds fewer than THR = 1 items          the innermost: the frame on top (a
//              (LS §3.3)                                      join's branch, or half the current loop)
//   lazy-df2   the same with THR = 2 (LS §6.2)               the innermost
//   lazy-bf    deque holds fewer than 1 item (LS §6.1)       the oldest: the bottom-most promotable
//                                                             frame (a join whole, a loop split in
//                                                             half, or pushed whole if unsplittable)
//   heartbeat  a beat is due: every N us (HB §2-4)           the oldest; a loop: its remaining
//                                                             range split in half (HB §4)
//
// The lazy policies' deque-size check (LS: "a racy, fence-free read at every poll") is folded into
// the poll word: the `notify` bit is set exactly when the deque may have dropped below THR (the
// owner popped it, or a thief stole from it), and the owner re-reads the size in the slow path.  A
// poll therefore costs the same single load under every policy; the decisions are those of reading
// the size at every poll, since the size changes only through those events.
#include <cstdio>
#include <cstdlib>

#include "deque.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

loop_record& loop_of(frame* fr) noexcept;
bool split_loop(worker& w, frame* fr, bool allow_whole, std::uint64_t child_chunks);

std::uint8_t loop_style_of(policy p) noexcept {
  switch (p) {
    case policy::ws:
    case policy::wool:
      return loop_style::halving;
    case policy::ws_ap:
      return loop_style::auto_part;
    default:
      return loop_style::lazy;
  }
}

namespace {

enum class which { innermost, oldest };

// A worker's state under the deque mechanism: its deque of promoted frames.
struct deque_state final : mechanism_state {
  explicit deque_state(std::size_t capacity) : deque(capacity) {}
  chase_lev_deque deque;
};

class deque_scheduler final : public scheduler {
 public:
  deque_scheduler(runtime& rt, policy p) : rt_(rt), policy_(p) {
    switch (p) {
      case policy::lazy_df: threshold_ = 1; which_ = which::innermost; break;
      case policy::lazy_df2: threshold_ = 2; which_ = which::innermost; break;
      case policy::lazy_bf: threshold_ = 1; which_ = which::oldest; break;
      case policy::heartbeat: which_ = which::oldest; break;
      default: break;
    }
  }

  void attach(worker& w) override { w.mechanism = std::make_unique<deque_state>(w.stack.capacity()); }

  std::uint32_t initial_poll_bits(worker&) override {
    if (policy_ == policy::ws || policy_ == policy::ws_ap) return poll_bit::always;
    if (lazy()) return poll_bit::notify;  // the deque starts empty, below THR
    return 0;
  }

  void on_poll(worker& w, hot_state& h, frame* fr) override {
    const std::uint32_t bits = h.poll.load(std::memory_order_relaxed);
    if (bits & poll_bit::always) {
      if (task_state::is_task(fr->state.load(std::memory_order_relaxed)) && promote_frame(w, fr))
        report_promotion(w, fr, promotion_kind::join);
      return;
    }
    if (lazy() && (bits & poll_bit::notify)) {
      // Clear first, then read the size: a thief that steals after our read sets the bit again
      // (both are seq_cst read-modify-writes / loads, so one of us sees the other).
      h.poll.fetch_and(~poll_bit::notify, std::memory_order_seq_cst);
      ++w.deque_checks;
      if (deque_of(w).size() < threshold_) promote_one(w, h);
      if (deque_of(w).size() < threshold_) h.poll.fetch_or(poll_bit::notify, std::memory_order_relaxed);
      return;
    }
    if (bits & poll_bit::heartbeat) {
      h.poll.fetch_and(~poll_bit::heartbeat, std::memory_order_relaxed);
      promote_one(w, h);
    }
  }

  reclaimed reclaim(worker& w, hot_state& h, frame* fr) override {
    frame* got = deque_of(w).pop();
    fr->promoted = false;
    --w.live;
    if (lazy() && deque_of(w).size() < threshold_) h.poll.fetch_or(poll_bit::notify, std::memory_order_relaxed);
    if (got == fr) return reclaimed::run_inline;
    if (got != nullptr) {
      // The deque holds promoted frames in stack order; the frame being joined is the youngest.
      std::fputs("weft: internal error: deque order broken at a join\n", stderr);
      std::abort();
    }
    std::uintptr_t s;
    while (!task_state::is_stolen(s = fr->state.load(std::memory_order_acquire)) && s != task_state::done)
      cpu_relax();  // the thief has the frame but has not yet written STOLEN(i)
    if (s != task_state::done) rt_.wait_stolen(w, fr, task_state::thief_of(s));
    return reclaimed::stolen;
  }

  bool steal(worker& thief, worker& victim) override {
    frame* t = deque_of(victim).steal();
    if (t == nullptr) return false;
    // The push's release (of the deque's bottom index) made the frame's fields visible.
    const std::uintptr_t s = t->state.load(std::memory_order_acquire);
    t->state.store(task_state::stolen(thief.index), std::memory_order_release);
    const std::int64_t left = deque_of(victim).size();
    if (lazy() && left < threshold_) victim.hot->poll.fetch_or(poll_bit::notify, std::memory_order_seq_cst);
    if (left > 0) rt_.notify_work();  // more there: let a sleeper come and take it
    rt_.execute_stolen(thief, t, task_state::wrapper(s));
    return true;
  }

  bool has_stealable(const worker& victim) const override { return deque_of(victim).size() > 0; }

  // Publishes `fr` on w's deque (false when full); wakes a sleeper if the deque was empty.
  bool promote_frame(worker& w, frame* fr) override {
    chase_lev_deque& d = deque_of(w);
    const bool was_empty = d.size() <= 0;
    if (!d.push(fr)) return false;
    fr->promoted = true;
    w.note_promotion();
    if (was_empty) rt_.notify_work();
    return true;
  }

 private:
  bool lazy() const noexcept { return threshold_ > 0; }
  static chase_lev_deque& deque_of(const worker& w) noexcept {
    return static_cast<deque_state&>(*w.mechanism).deque;
  }

  // "Which": the innermost latent item (the frame on top), or the oldest one at or above `base`.
  void promote_one(worker& w, hot_state& h) {
    if (which_ == which::innermost) {
      if (h.top > w.base) promote_item(w, h.top - 1, false);
      return;
    }
    for (frame* f = w.base; f < h.top; ++f)
      if (promote_item(w, f, true)) return;
  }

  // A join/spawn frame is promoted whole; a loop frame gives away half its remaining range (or, when
  // `whole_if_small` and it cannot be halved, all of it: LS Alg. 3's "push oldestTD whole").
  bool promote_item(worker& w, frame* f, bool whole_if_small) {
    const std::uintptr_t s = f->state.load(std::memory_order_relaxed);
    if (s == task_state::loop) return split_loop(w, f, whole_if_small, 0);
    if (task_state::is_task(s) && !f->promoted && promote_frame(w, f)) {
      report_promotion(w, f, promotion_kind::join);
      return true;
    }
    return false;
  }

  runtime& rt_;
  const policy policy_;
  std::int64_t threshold_ = 0;  // lazy policies: THR
  which which_ = which::innermost;
};

}  // namespace

std::unique_ptr<scheduler> make_deque_scheduler(runtime& rt, policy p) {
  return std::make_unique<deque_scheduler>(rt, p);
}

}  // namespace weft::detail
