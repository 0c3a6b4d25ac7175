// weft — native stacks that weft maps itself (reserved with MAP_NORESERVE, committed as used, a
// guard region below registered for the overflow message; see stack_guard.hpp): a worker's thread
// runs on one (std::thread cannot choose its stack), and a caller of pool::run that borrows a
// sleeping worker's slot runs its job on the slot's second one (root_jobs.cpp), so that the job
// has the stack config::stack_bytes promises whichever thread runs it.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace weft::detail {

class native_stack {
 public:
  native_stack() = default;
  ~native_stack();
  native_stack(const native_stack&) = delete;
  native_stack& operator=(const native_stack&) = delete;

  // Maps a stack of `stack_bytes` (rounded up to pages) and registers its guard; false, with
  // nothing mapped, when there is no memory for it.
  bool map(std::size_t stack_bytes) noexcept;
  bool mapped() const noexcept { return mapping_ != nullptr; }
  // Mapped already, or mapped now (a stack kept for later runs); false when there is no memory.
  bool map_once(std::size_t stack_bytes) noexcept { return mapped() || map(stack_bytes); }
  void* lowest() const noexcept;  // the lowest usable address (the stack grows down towards it)
  std::size_t size() const noexcept { return usable_; }
  void unmap() noexcept;

  // Giving back what a deep run committed (README, "Deep nesting's costs").  The caller runs on
  // this stack at `sp` (or on none: a stack nobody runs on, sp its top), and nothing below `sp`
  // is live: the pages below sp - stack_trim_margin go back to the kernel (MADV_DONTNEED: read
  // again, they are zero pages).  The page just below the margin stays, its top `canary_bytes`
  // a canary; while that is intact nothing has been written below the margin since the last trim
  // (a call writes its return address at least once in any stretch of its frame's size it
  // passes: frames up to canary_bytes are seen), and the call costs a compare, no system call.
  // A stack whose sp lies outside it is left alone.  Owner-private: called by the thread that
  // runs on the stack, or holds it (slot_tenure, a serial context's mutex).
  void trim_below(const void* sp, std::size_t canary_bytes) noexcept;
  // A stack nobody runs on (a lent slot's or a serial context's, after the run): checked after
  // every such run, so its canary is 512 bytes (~13 ns of a ~0.5 us warm serial run; a whole
  // page took ~110 ns).  A deeper run of larger frames that steps over it stays committed until
  // a later run breaks the canary — as every run's did before the trim.
  void trim_unused() noexcept { trim_below(static_cast<char*>(lowest()) + usable_, 512); }

 private:
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0, usable_ = 0;
  int guard_handle_ = -1;
  std::uintptr_t canary_ = 0;  // the canary's lowest address (0: none written since the stack was mapped)
};

// The native stack a trim keeps below the stack pointer (native_stack::trim_below): a thread that
// wakes and runs shallow work touches none of what was given back (no page faults per wake), and
// a signal handler run meanwhile (a few KiB) stays above the canary.
inline constexpr std::size_t stack_trim_margin = std::size_t(256) << 10;

// Throws the std::system_error of a native stack of `stack_bytes` that could not be mapped (errno
// `err`), naming the setting that sized it.
[[noreturn]] void throw_no_native_stack(int err, std::size_t stack_bytes);

// Runs fn(arg) on `stack` and returns when it returns; fn must not throw.  The calling thread gets
// an alternate signal stack (once, unless it has one) so that an overflow of `stack` is reported.
void run_on_stack(native_stack& stack, void (*fn)(void*), void* arg);

// The calling thread's alternate signal stack for the overflow handler (stack_guard.cpp), made on
// first use and kept until the thread exits; none when the thread has one of its own.  Called by
// run_on_stack, and by a caller that runs fiber-engine threads on a borrowed slot (their stacks'
// overflow is reported on it).
void ensure_alternate_signal_stack();

class native_thread {
 public:
  native_thread() = default;
  ~native_thread();  // the thread must have been joined
  native_thread(const native_thread&) = delete;
  native_thread& operator=(const native_thread&) = delete;

  // Starts body() on a new thread with a native stack of `stack_bytes`; throws std::system_error
  // (no memory for the stack, or no thread) with nothing left behind.
  void start(std::size_t stack_bytes, std::function<void()> body);
  bool joinable() const noexcept { return started_; }
  native_stack& stack() noexcept { return stack_; }  // the running thread's own (trim_below)
  void join() noexcept;

 private:
  static void* entry(void* self);
  std::function<void()> body_;
  pthread_t id_{};
  bool started_ = false;
  native_stack stack_;
};

}  // namespace weft::detail
