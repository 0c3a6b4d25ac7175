// weft — the deque mechanism and the policies on it.  A promoted frame (a join's second branch, a
// spawned task, or a split-off loop range) goes on the owner's Chase-Lev deque; thieves take the
// oldest.  Each policy is a row of policy_table.hpp: its trigger says when a poll promotes (one
// decision function per trigger below), its item says which latent frame (SPEC §3), its threshold
// is the lazy policies' THR.
#include <thread>

#include "beat_signal.hpp"
#include "weft/detail/chaos.hpp"
#include "weft/detail/deque.hpp"
#include "weft/detail/eager.hpp"
#include "pool_runtime.hpp"
#include "weft/detail/checks.hpp"
#include "loop_split.hpp"

namespace weft::detail {

namespace {

// A worker's state under the deque mechanism: its deque of promoted frames.
struct deque_state final : mechanism_state {
  explicit deque_state(std::size_t capacity) : deque(capacity) {}
  chase_lev_deque deque;
};

class deque_scheduler final : public scheduler {
 public:
  deque_scheduler(runtime& rt, const policy_traits& row)
      : rt_(rt), when_(row.when), oldest_first_(row.which == promoted_item::oldest),
        // The lazy trigger keeps THR promoted items ready for thieves (LS §3); a pool of one worker
        // has none (a caller borrowing its slot runs instead of it, never beside it), so there the
        // trigger is off: on one worker a loop split itself at each poll after a join of a part it
        // had split off, ~14 times a sweep of 2^15 iterations, 1.18x omp static on data in cache
        // against 0.99 without (docs/results/loops.md, "Aligned chunks").
        threshold_(row.when == trigger::deque_below_threshold && rt.cfg.workers > 1 ? row.threshold : 0) {
    // Another pool's bits this policy never acts on (scheduler.hpp, foreign_poll_bits): a
    // heartbeat pool's beat, a lazy or wool pool's `notify`.
    foreign_poll_bits_ = (when_ == trigger::heartbeat ? 0 : poll_bit::heartbeat) | (lazy() ? 0 : poll_bit::notify);
  }

  void attach(worker& w) override { w.mechanism = std::make_unique<deque_state>(w.stack.capacity()); }

  std::uint32_t initial_poll_bits(worker& w) override { return idle_poll_bits(w); }

  std::uint32_t idle_poll_bits(const worker&) const override {
    if (when_ == trigger::every_push) return eager_inline() ? poll_bit::always | poll_bit::eager : poll_bit::always;
    return lazy() ? poll_bit::notify : 0;  // an idle slot's deque is empty, below THR
  }

  // The poll word says which trigger fired; each has its decision function.  Another pool's bits
  // are masked out again here: the entry (slow_path.cpp) put aside those it saw, but a beat or a
  // `notify` sent after its load is in the word now, and must not be taken for this policy's own —
  // it stays set, and the next poll's entry puts it aside (a serial run inside a heartbeat pool's
  // task promoted at such a beat and counted it: the TSan stage of stop 44's CI rehearsal).
  void promote_at_poll(worker& w, hot_state& h, frame* fr) override {
    const std::uint32_t bits = h.poll.load(std::memory_order_relaxed) & ~foreign_poll_bits_;
    if (bits & poll_bit::always) return promote_pushed(w, fr);
    if (lazy() && (bits & poll_bit::notify))
      return promote_below_threshold(w, h, fr->state.load(std::memory_order_relaxed) == task_state::loop);
    if (bits & poll_bit::heartbeat) return promote_at_beat(w, h);
  }

  reclaimed reclaim(worker& w, hot_state& h, frame* fr) override {
    // An eager join's frame carries no mark and is not in the ledger's `unjoined` (eager.hpp): only
    // an unwinding eager join (its first branch threw) comes here with one.
    if (!(fr->marks & frame_mark::on_deque)) {
      WEFT_ASSERT(h.eager_deque == &deque_of(w), "an unmarked frame joined through reclaim outside the eager join");
      return eager_reclaim(h, fr);
    }
    if (fr < h.scan_floor) h.scan_floor = fr;  // a promoted frame popped (hot_state::scan_floor)
    frame* got = take_off_deque(deque_of(w), w.ledger, fr);
    if (lazy() && deque_of(w).size() < threshold_) h.poll.fetch_or(poll_bit::notify, std::memory_order_relaxed);
    if (got == fr) return reclaimed::run_inline;
    return lost_to_thief(w, fr, got);
  }

  // The pop at fr's join did not give fr back (`got`): a thief took it.  Wait until it is DONE.
  reclaimed lost_to_thief(worker& w, frame* fr, frame* got) {
    if (got != nullptr) {
      // The deque holds promoted frames in stack order; the frame being joined is the youngest.
      // Unreachable by the runtime's own frames (PROTOCOLS.md F4); reached when a program keeps a
      // scope or weft::spawn handle made inside a join branch past that branch (README Known issues).
      fatal(
          "deque order broken at a join: a task spawned inside a join branch (a weft::scope's or a weft::spawn "
          "handle's) is still open after the branch returned — sync scopes and handles inside the branch that "
          "made them; if none was kept so, this is a weft bug");
    }
    // The thief has the frame but has not yet written STOLEN(i): it is between two of its own
    // instructions, unless it was descheduled there (more workers than cores): then yield.
    std::uintptr_t s;
    for (unsigned spins = 0;
         !task_state::is_stolen(s = fr->state.load(std::memory_order_acquire)) && s != task_state::done; ++spins)
      spins < 64 ? cpu_relax() : std::this_thread::yield();
    if (s != task_state::done) rt_.wait_stolen(w, fr, task_state::thief_of(s));
    return reclaimed::stolen;
  }

  bool steal(worker& thief, worker& victim) override {
    frame* t = deque_of(victim).steal();
    if (t == nullptr) return false;
    WEFT_CHAOS_POINT();  // won the CAS, STOLEN not yet stored: the owner's join spins on this window
    // The push's release (of the deque's bottom index) made the frame's fields visible.
    const std::uintptr_t s = t->state.load(std::memory_order_acquire);
    WEFT_ASSERT(task_state::is_task(s), "deque: a stolen frame does not hold a task (stolen twice, or reused)");
    t->state.store(task_state::stolen(thief.index), std::memory_order_release);
    WEFT_CHAOS_POINT();
    victim.thefts_suffered.fetch_add(1, std::memory_order_relaxed);
    const std::int64_t left = deque_of(victim).size();
    rt_.end_idle(thief);  // no longer searching: the wake below is not skipped on our account
    if (lazy() && left < threshold_) victim.hot->poll.fetch_or(poll_bit::notify, std::memory_order_seq_cst);
    if (left > 0) rt_.notify_work(&victim);  // more there: let a sleeper come and take it
    rt_.execute_stolen(thief, victim, t, task_state::wrapper(s));
    return true;
  }

  bool has_stealable(const worker& victim) const override { return deque_of(victim).size() > 0; }

  // ws and ws-ap promote every join inline (eager.hpp), unless the pool traces (the general path
  // reports each promotion to the trace).
  chase_lev_deque* eager_deque(worker& w) override { return eager_inline() ? &deque_of(w) : nullptr; }

  // Publishes `fr` on w's deque (false when full); wakes a sleeper if the deque was empty.
  bool promote_frame(worker& w, frame* fr) override {
    bool was_empty;
    if (!put_on_deque(deque_of(w), w.ledger, fr, was_empty)) return false;
    if (was_empty) rt_.notify_work(&w);
    return true;
  }

 private:
  bool lazy() const noexcept { return threshold_ > 0; }
  bool eager_inline() const noexcept { return when_ == trigger::every_push && !rt_.tracing(); }
  static chase_lev_deque& deque_of(const worker& w) noexcept {
    return static_cast<deque_state&>(*w.mechanism).deque;
  }

  // trigger::every_push (ws, ws-ap): the frame just pushed, if it is a join's or spawn's task.  (A
  // loop frame never polls here: ws runs loops as halving joins, and a ws-ap loop piece makes its
  // partitioner's splits itself, adaptive_loop::run_chunks.)
  void promote_pushed(worker& w, frame* fr) {
    if (task_state::is_task(fr->state.load(std::memory_order_relaxed)) && promote_frame(w, fr))
      report_promotion(w, fr, promotion_kind::join);
  }

  // trigger::deque_below_threshold (the lazy policies).  Their deque-size check (LS: "a racy,
  // fence-free read at every poll") is folded into the poll word: the `notify` bit is set exactly
  // when the deque may have dropped below THR (the owner popped it, or a thief stole from it), and
  // the size is re-read here.  A poll therefore costs the same single load under every policy; the
  // decisions are those of reading the size at every poll, since it changes only through those
  // events.  Clear first, then read the size: a thief that steals after our read sets the bit
  // again (the clear and the thief's set are read-modify-writes of the poll word, so one comes
  // first in its modification order; a clear that reads the set, a release, sees the theft in the
  // size it reads next: PROTOCOLS.md §5).
  //
  // A check that finds the deque short promotes until it holds THR items or nothing more can be
  // promoted (LS §6.2: DF2-LS "pushes a TD with half its tasks onto its empty deque, then pushes
  // another TD with half of its remaining tasks", which gives a thief time to take the first and
  // the worker, seeing the theft, more outer work).  Under THR = 1 that is one promotion.
  void promote_below_threshold(worker& w, hot_state& h, bool loop_poll) {
    h.poll.fetch_and(~poll_bit::notify, std::memory_order_seq_cst);
    ++w.deque_checks;
    // No thief will look before its steal backoff ends: promote nothing.  The first thief back sets
    // `notify` again (runtime::hold_promotion, end_backoff), and the check then promotes for it.
    // Oldest first (BF-LS) that is the oldest item, the one it would have promoted now.  Innermost
    // first (DF-LS) the item it would have promoted now is the innermost one, which by the thief's
    // return lies deeper in the stack than the owner's current work — older and larger, as it would
    // be had it waited on the deque; the innermost item at the return would be a small theft, and
    // another backoff (nqueens on 2 workers under lazy-df: 1.84 -> 0.98 of serial speed when DF
    // held that way; docs/results/small-work.md, "Holding promotions").  So DF remembers it.
    // At a loop piece's poll the check holds too while every other worker runs a task (nobody to
    // take the item: its owner would take it back and split that part again at its first poll, down
    // to single iterations).  The piece polls again within a chunk, and the first worker that comes
    // looking re-arms it (PROTOCOLS.md §5, "A loop piece's split held").  A join's next poll may be
    // a serial leaf away: there LS's rule stands.
    if ((rt_.no_thief_looking() || (loop_poll && rt_.every_other_worker_busy())) && deque_of(w).size() < threshold_ &&
        rt_.hold_promotion(loop_poll)) {
      hold_item(w, h);
      return;
    }
    // Offers nobody took (runtime::futile_offers): promote again only for a thief proved running.
    if (const std::uint64_t thefts = w.thefts_suffered.load(std::memory_order_relaxed); thefts != w.thefts_seen) {
      w.thefts_seen = thefts;
      w.offered_untaken = 0;
    }
    if (w.offered_untaken >= runtime::futile_offers && deque_of(w).size() < threshold_ &&
        rt_.hold_for_rounds(w, w.rounds_seen)) {
      hold_item(w, h);
      return;
    }
    const std::int64_t before = deque_of(w).size();
    if (!oldest_first_ && w.held_item != nullptr) promote_held_item(w, h);
    while (deque_of(w).size() < threshold_ && promote_one(w, h)) {
    }
    if (const std::int64_t made = deque_of(w).size() - before; made > 0) w.offered_untaken += std::uint64_t(made);
    if (deque_of(w).size() < threshold_) h.poll.fetch_or(poll_bit::notify, std::memory_order_relaxed);
  }

  // A check that holds: DF remembers the item it would have promoted (the innermost), unless it
  // remembers one still latent.
  void hold_item(worker& w, hot_state& h) const noexcept {
    if (!oldest_first_ && h.top > w.base && !latent_slot(w, h, w.held_item)) w.held_item = h.top - 1;
  }

  // DF's remembered item (worker::held_item), if it is still a latent item of this stack: a slot
  // below the top (a frame popped since and pushed again at that slot is a latent item of the same
  // depth, as good).  Only onto an empty deque, which keeps the deque in stack order.
  void promote_held_item(worker& w, hot_state& h) {
    frame* const f = w.held_item;
    w.held_item = nullptr;
    if (latent_slot(w, h, f) && deque_of(w).size() == 0 && is_candidate(f, false)) promote_item(w, f, false);
  }
  static bool latent_slot(const worker& w, const hot_state& h, const frame* f) noexcept {
    return f != nullptr && f >= w.base && f < h.top;
  }

  // trigger::heartbeat: one promotion per beat (HB §2).  A signal-delivery worker's one-shot timer
  // is re-armed after the promotion, also when it throws: the interval to the next beat then starts
  // where the worker's own work does again (beat_signal.cpp, tls_deadline_ns).
  void promote_at_beat(worker& w, hot_state& h) {
    h.poll.fetch_and(~poll_bit::heartbeat, std::memory_order_relaxed);
    ++w.beats_delivered;
    if (w.trace) w.trace->instant(trace_kind::heartbeat_delivered, 0, 0);
    struct rearm_after {
      bool by_signal;
      ~rearm_after() {
        if (by_signal) beat_timer_rearm();
      }
    } rearm{rt_.beats_by_signal()};
    promote_one(w, h);
  }

  // "Which": the innermost latent item (the frame on top), or the oldest one at or above `base`.
  // True when it promoted something.
  bool promote_one(worker& w, hot_state& h) {
    if (!oldest_first_) return h.top > w.base && promote_item(w, h.top - 1, false);
    // The oldest candidate only, whether or not its push succeeds: were a younger item pushed after
    // an older one's push failed on a full deque, the older one could be pushed later, above it, and
    // the deque would no longer hold promoted items in stack order (reclaim's pop relies on it).  A
    // slot that is no candidate never becomes one again (a loop's range only shrinks, and a piece
    // that keeps its rest keeps it for good; a promoted task stays so until joined), so the walk may
    // pass it.  It stops at a piece that keeps its rest (loops.cpp, keeps_rest): that piece has
    // less than two chunks (~2-8 us) of work left, and what is nested in it is smaller still — a
    // theft of it would cost its victim more than it moved (bfs at 2 workers, when the walk went on
    // to the nodes' neighbour loops nested in the frontier loop's last chunks: 4.7x the steals, 13 %
    // more time; docs/results/loops.md, "A few-microsecond loop at 2 workers").
    // From the floor the last check left (hot_state::scan_floor), when it was made above this base.
    frame* f = w.base;
    if (h.scan_base == w.base && h.scan_floor > f) f = std::min(h.scan_floor, h.top);
    h.scan_base = w.base;
#if defined(WEFT_CHECKS) && WEFT_CHECKS
    // The floor's promise, checked in the checking builds (up to 4096 frames below it, so that the
    // check does not make deep chains quadratic again).
    for (frame* g = f - std::min<std::ptrdiff_t>(f - w.base, 4096); g < f; ++g)
      WEFT_ASSERT(!is_candidate(g, true), "the oldest-first check's floor passed over a candidate (hot_state::scan_floor)");
#endif
    for (; f < h.top; ++f) {
      if (is_candidate(f, true)) {
        h.scan_floor = f;
        return promote_item(w, f, true);
      }
      if (loop_keeps_rest(f)) {
        h.scan_floor = f;
        return false;
      }
    }
    h.scan_floor = h.top;
    return false;
  }

  static bool is_candidate(frame* f, bool whole_if_small) noexcept {
    const std::uintptr_t s = f->state.load(std::memory_order_relaxed);
    if (s == task_state::loop) return loop_can_split(f, whole_if_small);
    return task_state::is_task(s) && !(f->marks & frame_mark::on_deque);
  }

  // A join/spawn frame is promoted whole; a loop frame gives away half its remaining range (or, when
  // `whole_if_small` and one iteration is left under grain 1, that one: LS Alg. 3's "push oldestTD
  // whole"; loops.cpp, split_point).
  bool promote_item(worker& w, frame* f, bool whole_if_small) {
    const std::uintptr_t s = f->state.load(std::memory_order_relaxed);
    if (s == task_state::loop) return split_loop(w, f, whole_if_small, 0);
    if (task_state::is_task(s) && !(f->marks & frame_mark::on_deque) && promote_frame(w, f)) {
      report_promotion(w, f, promotion_kind::join);
      return true;
    }
    return false;
  }

  runtime& rt_;
  const trigger when_;
  const bool oldest_first_;     // promoted_item::oldest; otherwise the innermost (top) frame
  const std::int64_t threshold_;  // trigger::deque_below_threshold: THR; 0 otherwise
};

}  // namespace

// The eager join's out-of-line parts (eager.hpp).
void eager_wake(hot_state& h) noexcept { h.self->rt->notify_work(h.self); }

void eager_report(hot_state& h, const frame* fr) noexcept { report_promotion(*h.self, fr, promotion_kind::join); }

reclaimed eager_stolen(hot_state& h, frame* fr) {
  worker& w = *h.self;
  return static_cast<deque_scheduler&>(*w.rt->sched).lost_to_thief(w, fr, nullptr);
}

std::unique_ptr<scheduler> make_deque_scheduler(runtime& rt, const policy_traits& row) {
  return std::make_unique<deque_scheduler>(rt, row);
}

}  // namespace weft::detail
