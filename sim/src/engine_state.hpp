// Internal state of one simulation (not part of the simulator's interface).
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include "backoff_index.hpp"
#include "engine.hpp"
#include "ready_index.hpp"
#include "rng.hpp"

namespace weft_sim::detail {

enum class Stage : std::uint8_t { enter, work_before, children, work_after, finish };
enum class Right : std::uint8_t { latent, promoted, stolen, done, inline_run };

// Pair sub-steps: begin, left running, left returned, right inline, wait for thief, joined.
enum PairSub : std::uint8_t { pair_begin, pair_left, pair_left_done, pair_right, pair_wait, pair_joined };
// Loop sub-steps: begin (partition), next iteration, iteration running, drain the promoted pieces.
enum LoopSub : std::uint8_t { loop_begin, loop_next, loop_running, loop_drain };

inline constexpr std::uint64_t kChunkMax = std::uint64_t(1) << 20;  // loop.hpp: chunk_max
inline constexpr std::uint64_t kWoolTripDistance = 2;    // sched_wool.cpp: trip_distance
inline constexpr std::uint32_t kWoolPrivatizeAfter = 64;  // sched_wool.cpp: privatize_after

struct JoinRef {
  std::int32_t worker = -1;
  std::uint32_t frame = 0;  // index in that worker's frame stack; stable until the join completes
  // The frame's incarnation (Frame::gen): under Costs::detach a piece may leave its worker's stack
  // before its join completes, and its slot be reused; the join then lives in Simulator::detached_.
  std::uint64_t gen = 0;
};

// A loop piece that stopped waiting for its stolen sub-ranges (Costs::detach): what its frame kept
// for the join, completed by the last sub-range to finish.
struct Detached {
  std::uint32_t pending = 0;  // sub-ranges not finished
  JoinRef parent;
  Time span = 0;              // the piece's span and its finished sub-ranges' ends, the latest
  std::uint64_t held = 0;
};

// A promoted (stealable) piece of work: a pair's second branch or a loop's sub-range.
struct Item {
  std::uint32_t node = kNoNode;
  bool is_range = false;
  bool trip_wire = false;        // wool: stealing it asks the owner to publish more
  std::uint32_t slot = 0;        // wool: its position on the owner's task stack
  std::uint64_t lo = 0, hi = 0;  // range
  std::uint64_t chunks = 0;      // ws-ap partitioner state of the range
  std::uint64_t chunk = 0;       // chunked loops: the timed chunk of the piece it was split from
  JoinRef parent;
  Time span_start = 0;
  // When it became stealable: its owner's clock once the promotion was paid for.  The owner pushes
  // it in the step that charges the promotion, and a processor acting in between (its clock earlier
  // than that) must not take it yet (Simulator::steal_from).
  Time ready = 0;
};

struct Frame {
  std::uint32_t node = kNoNode;
  std::uint64_t gen = 0;  // this incarnation of the slot, unique in the run (JoinRef::gen)
  Stage stage = Stage::enter;
  std::uint8_t sub = 0;
  Right right = Right::latent;
  bool is_item = false;   // finishing it notifies `parent` (a promoted item), else the frame below
  bool is_range = false;  // a loop sub-range: no own work, allocation or work_after
  bool stolen = false;    // a stolen item's first frame: its end gives the worker its base back
  Time remaining = 0;
  std::uint64_t next = 0, end = 0;  // loop: iterations not yet started
  std::uint64_t first = 0;          // loop: the piece's first iteration (no poll before it)
  std::uint64_t iter = 0;           // loop: the next iteration to run; [iter, next) is the chunk
  // Chunked loops (Costs::chunk_low): the chunk size, the end of the untimed ramp, and the clock
  // at the last chunk's end once timed (`timed`: the size a part split off from here starts with).
  std::uint64_t chunk = 1, untimed_end = 0;
  Time chunk_clock = 0;
  bool timed = false;
  bool check_pending = false;  // loop: its poll's deque check goes on (Worker::check_open); then the chunk
  std::uint32_t pending = 0;        // loop: promoted sub-ranges not yet finished
  std::uint64_t chunks = 0;
  bool ap_armed = false;  // ws-ap with Costs::ap_defer: its splits wait until ap_armed_at + ap_defer
  Time ap_armed_at = 0;
  std::int32_t thief = -1;
  // When the join learns that its last promoted part finished: the completer's clock after it paid
  // the signal (Costs::sync).  The owner acting earlier than that waits for it (pair_step, loop_step).
  Time done_at = 0;
  std::vector<std::int32_t> thieves;  // loop: workers running its stolen sub-ranges
  std::uint32_t spawn_index = 0;      // wool: position on the worker's task stack
  bool holds_slot = false;            // a pair whose task-stack position is still taken
  std::uint32_t spawned = 0;          // wool: task-stack positions this loop's halves occupy
  JoinRef parent;
  Time span = 0, span_fork = 0, span_join = 0;
  std::uint64_t held = 0;  // bytes children left to be freed when this frame ends
  Time saved_beat = 0;     // hb_thread_credit: units the interrupted thread had left to its beat
  std::uint32_t saved_base = 0;  // stolen: the worker's base before this item
};

struct Worker {
  std::vector<Frame> frames;
  std::uint32_t depth = 0;
  double speed = 1.0;  // its factor on node work (Costs::speed_spread)
  // The first frame of the task this worker runs: the root's or a stolen item's (a leapfrogged one
  // included).  Promotions look only at frames from here up, as the runtime's do (its w.base,
  // set by execute_stolen): the frames below a blocked join belong to the task that waits.
  std::uint32_t base = 0;
  std::deque<Item> deque;  // front: oldest (thieves take it); back: newest
  Time clock = 0;
  std::int32_t blocked_on = -1;
  bool parked = false;
  Time parked_since = 0;
  bool spare = false;  // counted in Simulator::spare_count_ (as of the end of its last step)
  // Parked while it searches (Simulator::search_dormant): every attempt from `dormant_at` on fails
  // until something is pushed or a join completes; woken, it resumes at its next attempt's time.
  bool dormant = false;
  Time dormant_at = 0;
  Time next_beat = 0;
  Time next_off = 0;  // slice_on > 0: when the OS deschedules this worker next
  Time off_begin = 0, off_end = 0;  // its last time off its processor (run() trims what lies past the end)
  std::uint64_t public_limit = 0;
  bool trip_notified = false;
  std::uint32_t inlined_public = 0;  // wool: public tasks joined inline in a row
  std::uint32_t spawns_open = 0;
  // The steal backoff (Costs::backoff): the idle loop's open theft, the time the worker's blocked
  // joins have waited (failed attempts), and the current wait.
  bool theft_open = false;
  Time theft_start = 0, waited_at_theft = 0, waited = 0, backoff_now = 0;
  Time backoff_until = 0;  // the end of the current (or last) wait: waiting while clock < this
  // DF under the hold: the frame index a held check would have promoted (the runtime's
  // worker::held_item); -1 none.
  std::int64_t held_item = -1;
  // A deque check that promoted and found the deque still short: it reads the size again, and may
  // promote again, at this worker's next step (Simulator::promote_while_short).
  bool check_open = false;
  Frame& top() { return frames[depth - 1]; }
};

class Simulator {
 public:
  explicit Simulator(const RunConfig& c);
  RunResult run();

 private:
  // engine.cpp: the event loop and the frame life cycle
  void step(unsigned w);
  bool descheduled(unsigned w);
  Frame& push_frame(unsigned w, std::uint32_t node, Time span);
  void push_child(unsigned w, std::uint32_t node);
  void child_returned(Frame& parent);
  bool polls_inside_work() const;
  void enter_after(Frame& f);
  void start_frame(unsigned w, Frame& f);
  void run_work(unsigned w, Frame& f, Stage next);
  void finish_frame(unsigned w);
  void notify(const JoinRef& ref, Time span_end, unsigned completer, std::uint64_t retained);
  void detach(unsigned w);
  void notify_detached(Detached& d, const JoinRef& ref, Time span_end, unsigned completer, std::uint64_t retained);
  // engine_index.cpp: what the loop keeps of the workers' states so that no step scans all P
  void index_start();
  void wake_all(Time now);
  void park(unsigned w);
  void unpark(unsigned w);
  void refresh_spare(unsigned w);
  void deque_changed(unsigned w);
  // engine_children.cpp: pairs and loops
  void pair_step(unsigned w, Frame& f);
  void loop_step(unsigned w, Frame& f);
  void loop_partition(unsigned w, std::uint32_t frame_index);
  bool take_own_item(unsigned w, std::uint32_t frame_index, Item& out);
  void start_iteration(unsigned w, Frame& f);
  bool chunked() const { return chunked_; }
  void next_chunk_size(unsigned w, Frame& f);
  // engine_steal.cpp: promotion, polls, steals and leapfrogging
  void promote(unsigned w, std::uint32_t frame_index);
  void split_range(unsigned w, std::uint32_t frame_index);
  void push_promoted(unsigned w, const Item& it);
  bool latent(const Frame& f) const;
  bool on_task_stack(const Frame& f) const;
  void poll(unsigned w);
  bool promote_one(unsigned w);
  void promote_while_short(unsigned w);
  bool some_processor_spare(unsigned w) const;  // engine_index.cpp
  bool no_thief_looking(unsigned w) const;      // engine_index.cpp
  static bool held_item_valid(const Worker& k);
  void wool_publish(unsigned w);
  void wool_split(unsigned w, std::uint32_t frame_index);
  bool trip_position(unsigned w, std::uint64_t index) const;
  void wool_inlined_public(unsigned w, std::uint32_t spawn_index);
  void idle_steal(unsigned w);
  bool back_off_after_steal(unsigned w);
  bool steal_random(unsigned w);
  bool steal_around(unsigned w, unsigned start);
  void blocked_step(unsigned w, Frame& f);
  bool steal_from(unsigned thief, unsigned victim);
  void run_item(unsigned w, const Item& it, Time span_start, bool stolen = false);
  bool wait_for_join(unsigned w, const Frame& f);
  void wait_for_item(unsigned w);
  void search_dormant(unsigned w);
  void charge_overhead(unsigned w, Time t) { advance(ws_[w].clock, t); r_.overhead += double(t); }

  const RunConfig& cfg_;
  const Dag& dag_;
  const PolicyTraits& pol_;
  const Costs costs_;
  const unsigned P_;
  // Loops run in the runtime's chunks (Costs::chunk_low > 0), for the loop-frame policies only.
  const bool chunked_;
  Rng rng_;
  Rng jitter_rng_;  // Costs::steal_jitter's and speed_spread's draws, apart from the victims' (rng_)
  // Node work as w runs it (Costs::speed_spread), and what the factors added to or took from the
  // work (counted as busy time: idle time stays the processors' time without a task).
  Time work_time(unsigned w, Time work) {
    const double f = ws_[w].speed;
    if (f == 1.0) return work;
    const Time t = Time(double(work) * f + 0.5);
    work_stretch_ += double(t) - double(work);
    return t;
  }
  double work_stretch_ = 0;
  std::vector<Worker> ws_;
  std::uint64_t frame_gen_ = 0;
  // Costs::detach: the pieces whose sub-ranges still run elsewhere, by their frame's incarnation.
  std::unordered_map<std::uint64_t, Detached> detached_;
  RunResult r_;
  std::uint64_t live_mem_ = 0, live_items_ = 0;
  // The indices of engine_index.cpp.  Each answers what a scan of all P workers answered at every
  // step before (fib:25 at P = 16,384: up to 72 s a run): kept as workers change, each exactly the scan.
  std::vector<unsigned> parked_;  // parked and not woken yet: whom wake_all wakes
  std::vector<unsigned> woken_;   // woken by wake_all: back into the event queue after the batch
  unsigned spare_count_ = 0;      // workers with Worker::spare (some_processor_spare)
  ReadyIndex ready_;              // each deque's oldest item's Item::ready (steal_around); steal = 0 only
  BackoffIndex backoffs_;         // steal-backoff ends (no_thief_looking); kept when Costs::backoff > 0
  std::uint64_t queued_ = 0;  // items on all deques: none, and a failed attempt fails until a push
  bool done_ = false;
  bool woke_ = false;
  // The earliest `ready` of an item that a failed steal attempt saw but could not take yet (~0:
  // none); a thief that would park (zero steal latency) waits for it instead.
  Time soonest_item_ = ~Time(0);
};

}  // namespace weft_sim::detail
