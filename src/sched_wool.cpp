// weft — `wool`: Wool's direct task stack (WOOL §III.A, Fig. 3).  Task descriptors stay in place in
// the worker's frame array; thieves steal the bottom-most one, synchronizing on its state word (a
// CAS from TASK to EMPTY, then a check of `bot`); the owner joins with one atomic exchange.  Private
// tasks (WOOL §III.B): only slots [0, pub) are public; a join of a private task is the fast path's
// plain pop.  A thief that steals at or above the trip wire sets the owner's `notify` poll bit, and
// the owner makes more slots public at its next join or spawn; after inlining many public tasks in
// a row, the owner makes the top public slot private again.
//
// Where C++ and the shared fast path force a difference from the C original:
// * The fast path's push is the same for every policy and writes an untagged TASK(w).  A push into
//   a public slot takes the slow path (the `public_next` poll bit is set exactly while top < pub)
//   and tags the state word (TASK(w) | public_tag).  Thieves steal only tagged tasks.  Keeping the
//   public mark in the state word, instead of in a flag beside it, means a thief can never take a
//   private task on a stale reading of the flag: the owner's private join does not synchronize, so
//   that would run the task twice.  The owner's own view of which slots are public is
//   `frame_mark::public_slot` in frame::marks, which thieves never read.
// * The task's closure lives in the caller's C++ frame (the lambda), the descriptor holds a pointer
//   to it (`job`); Wool copies the arguments into the descriptor.
// * A blocked join leapfrogs transitively (the thief, then whoever the thief waits for), see
//   runtime::wait_stolen.
#include <thread>
#include <algorithm>

#include "weft/detail/chaos.hpp"
#include "pool_runtime.hpp"
#include "sched_wool.hpp"

namespace weft::detail {

namespace {

class wool_scheduler final : public scheduler {
 public:
  // Wool has no heartbeat: a beat is another pool's (scheduler.hpp, foreign_poll_bits).
  explicit wool_scheduler(runtime& rt) : rt_(rt) { foreign_poll_bits_ = poll_bit::heartbeat; }

  void attach(worker& w) override { w.mechanism = std::make_unique<wool_window>(w.stack.begin()); }

  std::uint32_t initial_poll_bits(worker& w) override {
    wool_window& win = window_of(w);
    win.pub = std::min(initial_public, w.stack.capacity());
    for (std::size_t k = 0; k < win.pub; ++k) w.stack.begin()[k].marks |= frame_mark::public_slot;
    set_trip(win);
    win.bot.store(w.stack.begin(), std::memory_order_relaxed);
    return win.pub > 0 ? poll_bit::public_next : 0;
  }

  // An idle slot's top is the stack's bottom: public_next is (0 < pub), as update_public_next keeps it.
  std::uint32_t idle_poll_bits(const worker& w) const override {
    return window_of(w).pub > 0 ? poll_bit::public_next : 0;
  }

  void promote_at_poll(worker& w, hot_state& h, frame* fr) override {
    if (h.poll.load(std::memory_order_relaxed) & poll_bit::notify) {
      h.poll.fetch_and(~poll_bit::notify, std::memory_order_relaxed);
      grow(w, h);
    }
    if (fr->marks & frame_mark::public_slot) publish(w, fr);
    update_public_next(w, h);
  }

  reclaimed reclaim(worker& w, hot_state& h, frame* fr) override {
    // WOOL Fig. 3 join_f / RTS_join.  EMPTY is transient: a thief between its CAS and its decision.
    WEFT_CHAOS_POINT();
    std::uintptr_t s = fr->state.exchange(task_state::empty, std::memory_order_acq_rel);
    for (unsigned spins = 0; s == task_state::empty;) {
      do {  // a thief descheduled between its CAS and its decision: yield to it after a while
        ++spins < 64 ? cpu_relax() : std::this_thread::yield();
        s = fr->state.load(std::memory_order_acquire);
      } while (s == task_state::empty);
      if (task_state::is_task(s)) s = fr->state.exchange(task_state::empty, std::memory_order_acq_rel);
    }
    w.ledger.note_joined();
    if (task_state::is_task(s)) {
      maybe_privatize(w, fr);
      update_public_next(w, h);
      return reclaimed::run_inline;
    }
    wool_window& win = window_of(w);
    win.inlined_public = 0;
    if (s != task_state::done) rt_.wait_stolen(w, fr, task_state::thief_of(s));
    WEFT_ASSERT(win.bot.load(std::memory_order_relaxed) <= fr + 1, "wool: bot above the owner's top at a stolen join");
    // The thief set bot above this slot; the joined slot is now the bottom, owned by us.
    win.bot.store(fr, std::memory_order_release);
    update_public_next(w, h);
    return reclaimed::stolen;
  }

  // WOOL Fig. 3 RTS_steal.
  bool steal(worker& thief, worker& victim) override {
    wool_window& win = window_of(victim);
    frame* t = win.bot.load(std::memory_order_acquire);
    if (t >= victim.stack.end()) return false;
    std::uintptr_t s = t->state.load(std::memory_order_acquire);
    if (!task_state::is_public_task(s)) return false;
    WEFT_CHAOS_POINT();  // bot and the task read, not yet won: the owner may join past t and push again (ABA)
    if (!t->state.compare_exchange_strong(s, task_state::empty, std::memory_order_acq_rel,
                                          std::memory_order_relaxed))
      return false;
    WEFT_CHAOS_POINT();  // the task is EMPTY (ours), bot not re-checked: the owner may join past it
    if (win.bot.load(std::memory_order_acquire) != t) {
      // The owner joined past this slot and pushed again meanwhile: back off.  Restoring is safe:
      // the slot holds a public task, whose owner spins on EMPTY at its join until we are done.
      t->state.store(s, std::memory_order_release);
      return false;
    }
    WEFT_CHAOS_POINT();  // decided, not yet STOLEN: the owner's join spins on EMPTY
    t->state.store(task_state::stolen(thief.index), std::memory_order_release);
    WEFT_CHAOS_POINT();  // STOLEN, bot not advanced: other thieves see a stolen bottom slot
    win.bot.store(t + 1, std::memory_order_release);
    rt_.end_idle(thief);  // no longer searching: the wake below is not skipped on our account
    if (std::size_t(t - victim.stack.begin()) >= win.trip.load(std::memory_order_relaxed))
      victim.hot->poll.fetch_or(poll_bit::notify, std::memory_order_relaxed);  // the trip wire
    if (has_stealable(victim)) rt_.notify_work(&victim);
    rt_.execute_stolen(thief, victim, t, task_state::wrapper(s));
    return true;
  }

  bool promote_frame(worker&, frame*) override { return false; }  // loops are joins under wool

  bool has_stealable(const worker& victim) const override {
    const frame* t = window_of(victim).bot.load(std::memory_order_relaxed);
    return t < victim.stack.end() && task_state::is_public_task(t->state.load(std::memory_order_relaxed));
  }

 private:
  // Tag a task in a public slot: from this store on, thieves may take it.
  void publish(worker& w, frame* fr) {
    const std::uintptr_t s = fr->state.load(std::memory_order_relaxed);
    if (!task_state::is_task(s) || (s & task_state::public_tag)) return;
    fr->state.store(s | task_state::public_tag, std::memory_order_release);
    w.ledger.note_promotion();
    report_promotion(w, fr, promotion_kind::join);
    rt_.notify_work(&w);
  }

  // A thief tripped the wire: make `grow_by` more slots public, including live private tasks in
  // them (which become stealable at once: they are the oldest private ones, the biggest).
  void grow(worker& w, hot_state& h) {
    const std::size_t limit = w.stack.capacity();
    const std::size_t top = std::size_t(h.top - w.stack.begin());
    wool_window& win = window_of(w);
    const std::size_t old_pub = win.pub;
    win.pub = std::min(limit, win.pub + grow_by);
    for (std::size_t k = old_pub; k < win.pub; ++k) {
      frame& f = w.stack.begin()[k];
      f.marks |= frame_mark::public_slot;
      if (k < top) publish(w, &f);
    }
    set_trip(win);
    WEFT_ASSERT(win.pub <= limit && win.trip.load(std::memory_order_relaxed) <= win.pub, "wool: public window outside the task stack");
  }

  // WOOL §III.B: the owner sees "an opportunity for making tasks private when it has inlined many
  // public tasks": the top public slot becomes private.  Either it is the slot being joined — the owner holds its task
  // (the exchange returned TASK), so no thief can be taking it — or it lies above the joined slot,
  // i.e. above the task stack's top: a dead slot, holding EMPTY or DONE (every join of a public
  // slot exchanges), which no thief's CAS can take.  Without the second case a window that grew
  // above the depth the program reaches (trip-wire steals in a deep phase) never shrank, and every
  // join of a later phase of small work stayed public (issue 9 item 2: wool 14x slower at 4
  // workers on fib(12) repeated).
  void maybe_privatize(worker& w, frame* fr) {
    wool_window& win = window_of(w);
    if (++win.inlined_public < privatize_after) return;
    win.inlined_public = 0;
    const std::size_t k = std::size_t(fr - w.stack.begin());
    if (k + 1 > win.pub || win.pub <= 1) return;
    w.stack.begin()[win.pub - 1].marks &= std::uint8_t(~frame_mark::public_slot);
    --win.pub;
    set_trip(win);
    WEFT_ASSERT(win.pub >= 1 && !(w.stack.begin()[win.pub].marks & frame_mark::public_slot) && (w.stack.begin()[win.pub - 1].marks & frame_mark::public_slot), "wool: public marks disagree with the window after privatizing");
  }

  static void set_trip(wool_window& win) {
    win.trip.store(win.pub > trip_distance ? win.pub - trip_distance : 0, std::memory_order_relaxed);
  }

  // Keep the `public_next` poll bit equal to (top < pub), so that every push into a public slot
  // takes the slow path and gets tagged.
  static void update_public_next(worker& w, hot_state& h) {
    const bool want = std::size_t(h.top - w.stack.begin()) < window_of(w).pub;
    const bool has = (h.poll.load(std::memory_order_relaxed) & poll_bit::public_next) != 0;
    if (want && !has) h.poll.fetch_or(poll_bit::public_next, std::memory_order_relaxed);
    if (!want && has) h.poll.fetch_and(~poll_bit::public_next, std::memory_order_relaxed);
  }

  static wool_window& window_of(const worker& w) noexcept { return static_cast<wool_window&>(*w.mechanism); }

  runtime& rt_;
};

}  // namespace

std::unique_ptr<scheduler> make_wool_scheduler(runtime& rt) { return std::make_unique<wool_scheduler>(rt); }

}  // namespace weft::detail
