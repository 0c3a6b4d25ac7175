// weft — the timeline trace (SPEC §6, issue 12): each worker records what it is doing in a buffer of
// its own, and the pool writes them as one Chrome/Perfetto trace-event JSON file.
//
// What is recorded is WOOL §IV.D's breakdown of CPU time (Fig. 6): startup/shutdown (TR),
// application work (NA), application work acquired by leapfrogging (LA), stealing (ST), leapfrogging
// (LF), plus idle (asleep on a futex: WOOL's workers never sleep).  A worker is always in exactly one
// activity; it records each change of activity, so its lane is a sequence of intervals that never
// overlap.  Promotions, steals and heartbeats are instants.
//
// Zero cost when off: the worker holds no buffer (a null pointer), and every hook sits on a slow path
// that already costs far more than its test of that pointer (a steal, a promotion, a blocked join,
// going to sleep, thread start and exit).  The join fast path has no hook.
//
// Bounded: a buffer holds at most `capacity` events, allocated once (the pages are touched only as
// events are written).  Past 7/8 of it, instants are dropped and activity changes still recorded
// (the lanes stay whole); when it is full, one `full` event closes the lane and everything later is
// dropped.  Each buffer counts what it dropped; the file reports the counts, and the pool says on
// stderr that events are missing, naming config.trace_events (trace_pool.cpp).
//
// Reading while the owner writes (pool::write_trace on a running pool, the global pool at exit): the
// owner writes an event, then publishes the new size with a release store; a reader loads the size
// with acquire and reads only the events below it (docs/PROTOCOLS.md, trace buffers).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/detail/loop.hpp"

namespace weft::detail {

// WOOL Fig. 6's categories (with its abbreviations), and idle.
enum class activity : std::uint8_t {
  startup,        // TR: thread start until it first looks for work
  work,           // NA: application code (a root job or a stolen task)
  leapfrog_work,  // LA: application code acquired by leapfrogging in a blocked join
  stealing,       // ST: looking for work (random victims, root jobs), spinning
  leapfrogging,   // LF: a blocked join looking for work to leapfrog, or spinning on DONE
  idle,           // asleep (the idle loop's futex, or a parked blocked join)
  shutdown,       // TR: from seeing the pool stop until the thread exits
};
inline constexpr std::size_t activity_count = 7;
const char* activity_name(activity a) noexcept;

// A steal's victim when the thread came from no worker's deque (adf's and fifo's shared structure,
// an unowned deque under dfd): the trace writes "victim": null and no stolen-from instant.
inline constexpr std::uint32_t no_victim = ~std::uint32_t(0);

enum class trace_kind : std::uint8_t {
  enter,                // now in activity a
  promotion,            // a = the promoted frame's slot, b = promotion_kind
  steal,                // a = victim (no_victim: none); b = 1 if a leapfrog (recorded on the thief)
  heartbeat_delivered,  // a beat reached a poll of this worker
  heartbeat_sent,       // the timer set the beat bit of a = workers (timer lane)
  end,                  // the lane ends (thread exit)
  full,                 // the buffer is full: nothing later was recorded
};

struct trace_event {
  std::uint64_t tick;  // cycle_count(): the cheapest clock there is; converted to ns when written
  std::uint32_t a;
  std::uint16_t b;
  trace_kind kind;
  activity act;
};
static_assert(sizeof(trace_event) == 16);

class trace_buffer {
 public:
  explicit trace_buffer(std::size_t capacity);

  // Owner only.  enter/leave keep a stack: a steal in a blocked join runs work (LA) on top of
  // leapfrogging, and returns to it.
  void enter(activity a) noexcept;
  void leave() noexcept;
  void replace(activity a) noexcept;  // the current activity becomes `a` (no nesting)
  activity current() const noexcept { return stack_.empty() ? activity::startup : stack_.back(); }
  bool instant(trace_kind k, std::uint32_t a, std::uint16_t b) noexcept;  // false: dropped

  // Promotion instants (one per join under ws) stop for good at the first one dropped: from then on
  // the hook costs one test, not a call per join.  The ones not recorded are counted from the
  // worker's promotions counter: dropped = promotions now - promotions at the cut (rebased when the
  // counters are reset).  Owner writes; relaxed atomics so that a snapshot may read them.
  bool promotions_closed() const noexcept { return promotions_closed_.load(std::memory_order_relaxed); }
  void close_promotions(std::uint64_t promotions_now) noexcept;
  void rebase_promotions(std::uint64_t promotions_now) noexcept;  // pool::reset_stats, between runs
  std::uint64_t dropped_promotions(std::uint64_t promotions_now) const noexcept;
  void finish() noexcept { record(trace_kind::end, 0, 0, current(), true); }

  // Any thread.
  std::size_t published() const noexcept { return size_.load(std::memory_order_acquire); }
  const trace_event* events() const noexcept { return events_.get(); }
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  bool record(trace_kind k, std::uint32_t a, std::uint16_t b, activity act, bool essential) noexcept;

  std::unique_ptr<trace_event[]> events_;
  const std::size_t capacity_;
  std::size_t size_private_ = 0;  // the owner's copy of size_
  std::atomic<std::size_t> size_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<bool> promotions_closed_{false};
  std::atomic<std::uint64_t> promotions_cut_{0}, promotions_dropped_{0};
  std::vector<activity> stack_;
};

// One lane of the file: a buffer and its name.
struct trace_lane {
  const trace_buffer* buffer;
  std::string name;
  std::uint64_t dropped_promotions = 0;  // not in buffer->dropped(): see close_promotions
};

// Converts ticks to ns since the pool started: two (tick, ns) pairs, at start and at writing.
struct trace_clock {
  std::uint64_t tick0, ns0;
  static trace_clock now();
};

// Writes the lanes as trace-event JSON; `meta` is a list of "key": value members for "otherData"
// (already JSON).  Returns the events dropped (otherData.dropped_events).  Throws std::runtime_error
// when the file cannot be written.
std::uint64_t write_trace_file(const std::string& path, const std::vector<trace_lane>& lanes, const trace_clock& start,
                               const std::string& meta);

// write_trace_file holds a process-wide lock: files written at once (two threads' snapshots, pools
// sharing a path as WEFT_TRACE makes them) each replace the last whole instead of interleaving into
// invalid JSON (stop 43's bug hunt).  Held across fork() (global_pool.cpp), as the other locks.
void lock_trace_files() noexcept;
void unlock_trace_files() noexcept;

// Whether the trace file can be made or written (config.cpp asks when a pool is made, so that a
// path that cannot be written is refused then, not reported on stderr after the run): 0, or the
// errno that says why not.  A file that is not there is made and removed again; one that is there
// is opened for writing and left as it was (not truncated, nothing written).
int trace_file_unwritable(const std::string& path);

}  // namespace weft::detail
