// weft — runtime internals: workers, the pool's runtime, and the scheduler interface that every
// policy implements.  Policies are small objects answering "when" and "which" (SPEC §3); the
// mechanism they drive is one of two: the Chase-Lev deque of promoted frames (sched_deque.cpp) or
// Wool's direct task stack, stolen in place (sched_wool.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "deque.hpp"
#include "weft/config.hpp"
#include "weft/detail/frame.hpp"
#include "weft/detail/loop.hpp"
#include "weft/detail/runtime.hpp"

namespace weft::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

inline std::uint64_t now_ns() noexcept {
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count());
}

// The direct task stack: frames in place, in an mmap'ed array with a guard page after it, so that a
// join nested deeper than the capacity faults instead of overwriting memory.
class frame_stack {
 public:
  explicit frame_stack(std::size_t capacity);
  ~frame_stack();
  frame_stack(const frame_stack&) = delete;
  frame_stack& operator=(const frame_stack&) = delete;
  frame* begin() const noexcept { return frames_; }
  std::size_t capacity() const noexcept { return capacity_; }
  frame* end() const noexcept { return frames_ + capacity_; }

 private:
  frame* frames_;
  std::size_t capacity_;
  std::size_t mapped_bytes_;
};

struct worker {
  worker(runtime* owner, unsigned idx, std::size_t capacity);

  runtime* const rt;
  const unsigned index;
  hot_state* hot = nullptr;  // the TLS block of the thread running this worker
  frame_stack stack;
  // Frames below `base` belong to tasks suspended under the one now running (a blocked join that
  // leapfrogs, or the worker's stolen task's caller): they are never promoted from here.
  frame* base;

  // Deque mechanism.
  chase_lev_deque deque;

  // Wool mechanism (WOOL §I): `bot` is shared with thieves; `pub`, `trip` describe the public
  // window (slots [0, pub) are public; a steal at or above `trip` trips the wire).
  alignas(64) std::atomic<frame*> bot;
  std::atomic<std::size_t> trip{0};
  std::size_t pub = 0;
  std::uint32_t inlined_public = 0;

  // Transitive leapfrogging: the thief this worker waits for in a blocked join, or -1.
  std::atomic<int> blocked_on{-1};

  // Counters written only by this worker (see hot_state for the reading rule).
  std::uint64_t promotions = 0, steals = 0, leapfrogs = 0, deque_checks = 0;
  std::uint64_t live = 0, live_peak = 0;
  std::int64_t heap_now = 0, heap_peak = 0;  // this worker's weft::malloc net bytes
  // Serial contexts: counts of finished runs (their TLS block belongs to the caller).
  std::uint64_t retired_joins = 0, retired_loop_iterations = 0;
  // Counters written by the idle loop while a stats() reader may be running.
  std::atomic<std::uint64_t> steal_attempts{0}, idle_ns{0};

  std::uint64_t rng;
  std::thread thread;
  std::uint64_t idle_since = 0;  // when this worker last became idle (0: busy)

  // Split-off loop ranges (loop frames), allocated and freed by this worker only.
  std::vector<loop_child*> free_children;
  std::vector<std::unique_ptr<loop_child[]>> child_blocks;

  void note_promotion() noexcept {
    ++promotions;
    if (++live > live_peak) live_peak = live;
  }
};

// What a policy decides, on top of one of the two mechanisms.
class scheduler {
 public:
  virtual ~scheduler() = default;
  // Poll bits a worker starts with (e.g. `always` for ws, `public_next` for wool).
  virtual std::uint32_t initial_poll_bits(worker& w) = 0;
  // A join or spawn took the slow path after pushing `fr`.
  virtual void on_poll(worker& w, hot_state& h, frame* fr) = 0;
  // The join of a promoted frame `fr` (now h.top == fr).
  virtual reclaimed reclaim(worker& w, hot_state& h, frame* fr) = 0;
  // One steal attempt by `thief` on `victim`; runs the task and returns true on success.
  virtual bool steal(worker& thief, worker& victim) = 0;
  // Is there something `victim` would give a thief?  (a hint, for sleeping and waking)
  virtual bool has_stealable(const worker& victim) const = 0;
};

std::unique_ptr<scheduler> make_deque_scheduler(runtime& rt, policy p);
void report_promotion(const worker& w, const frame* f, promotion_kind kind) noexcept;
std::uint8_t loop_style_of(policy p) noexcept;
std::unique_ptr<scheduler> make_wool_scheduler(runtime& rt);

class runtime {
 public:
  explicit runtime(const config& resolved);
  ~runtime();

  const config cfg;
  const bool inline_caller;  // the serial policy: run() executes on the calling thread
  std::unique_ptr<scheduler> sched;
  std::vector<std::unique_ptr<worker>> workers;

  // Deque mechanism: publish `fr` on w's deque (false when full).  Wakes a sleeper if the deque
  // was empty.
  bool promote_frame(worker& w, frame* fr);
  // Runs a stolen frame's task on `w` and marks it DONE.  `fn` is the task's wrapper.
  void execute_stolen(worker& w, frame* t, task_fn fn);
  // Waits until the stolen frame `fr` is DONE, leapfrogging on its thief (and, transitively, on
  // the worker that thief waits for: their work descends from `fr` too).
  void wait_stolen(worker& w, frame* fr, unsigned thief);
  // After making work stealable: wake a sleeping worker if there is one.  The caller's publishing
  // store and this load of `sleepers` need store-load order (see sleep()).
  void notify_work() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_relaxed) != 0) wake_one();
  }

  void submit(root_job& job);
  worker& serial_context_acquire();
  void serial_context_release(worker& w);

  // Accounted memory (weft::malloc).
  std::atomic<std::int64_t> heap_now{0};
  std::atomic<std::uint64_t> heap_peak{0};

  weft::stats collect_stats() const;
  void reset_stats();

  const std::uint32_t heartbeat_bits;  // poll bits the heartbeat thread sets (0: no heartbeat)

 private:
  void heartbeat_main();
  void end_idle(worker& w) noexcept;
  std::mutex beat_mutex_;
  std::condition_variable beat_cv_;
  std::thread heartbeat_thread_;
  std::atomic<std::uint32_t> awake_epoch_{0};  // bumped when a worker wakes (the heartbeat waits on it)

  void worker_main(worker& w);
  bool find_work(worker& w);
  bool take_root(worker& w);
  void run_root(worker& w, root_job& job);
  void sleep(worker& w);
  bool work_visible() const;
  void wake_one() noexcept;

  std::mutex inject_mu_;
  std::deque<root_job*> inject_;
  std::atomic<std::size_t> injected_{0};

  std::atomic<std::uint32_t> wake_epoch_{0};
  std::atomic<std::uint32_t> sleepers_{0};
  std::atomic<bool> stopping_{false};

  std::mutex serial_mu_;
  std::vector<worker*> serial_free_;
  std::vector<std::unique_ptr<worker>> serial_all_;
};


// Capacity of every task stack, in frames of 64 bytes: 1 MiB per worker.  Joins nested deeper
// fault on the guard page; scope spawns beyond half of it run at once instead.
inline constexpr std::size_t stack_frames = std::size_t(1) << 14;

}  // namespace weft::detail
