// weft — the deque mechanism: promoted frames go to the worker's Chase-Lev deque, thieves take the
// oldest.  Policies on it: `serial` (never promotes) and `ws` (promotes every join at once: LS
// §2.2's eager child stealing, "SP").  The adaptive policies (lazy, heartbeat) plug in here too.
#include <cstdio>
#include <cstdlib>

#include "runtime.hpp"

namespace weft::detail {

namespace {

class deque_scheduler final : public scheduler {
 public:
  deque_scheduler(runtime& rt, policy p) : rt_(rt), policy_(p) {}

  std::uint32_t initial_poll_bits(worker&) override {
    return policy_ == policy::ws ? poll_bit::always : 0;
  }

  // ws: "when" = always, "which" = the frame just pushed (the innermost).
  void on_poll(worker& w, hot_state&, frame* fr) override {
    if (policy_ == policy::ws) promote(w, fr);
  }

  reclaimed reclaim(worker& w, hot_state&, frame* fr) override {
    frame* got = w.deque.pop();
    fr->promoted = false;
    --w.live;
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
    frame* t = victim.deque.steal();
    if (t == nullptr) return false;
    // The push's release (of the state, then of the deque's bottom) made the frame's fields visible.
    const std::uintptr_t s = t->state.load(std::memory_order_acquire);
    t->state.store(task_state::stolen(thief.index), std::memory_order_release);
    if (victim.deque.size() > 0) rt_.notify_work();  // more there: let a sleeper come and take it
    rt_.execute_stolen(thief, t, task_state::wrapper(s));
    return true;
  }

  bool has_stealable(const worker& victim) const override { return victim.deque.size() > 0; }

 private:
  void promote(worker& w, frame* fr) {
    const bool was_empty = w.deque.size() <= 0;
    if (!w.deque.push(fr)) return;  // full: the frame stays latent and runs inline
    fr->promoted = true;
    w.note_promotion();
    if (was_empty) rt_.notify_work();
  }

  runtime& rt_;
  const policy policy_;
};

}  // namespace

std::unique_ptr<scheduler> make_deque_scheduler(runtime& rt, policy p) {
  return std::make_unique<deque_scheduler>(rt, p);
}

}  // namespace weft::detail
