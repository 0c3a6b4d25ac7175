// weft — a worker's thread: a pthread on a native stack of a chosen size that weft maps itself
// (reserved with MAP_NORESERVE, committed as used, a guard region below it registered for the
// overflow message; see stack_guard.hpp).  std::thread cannot choose its stack.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>

namespace weft::detail {

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
  void join() noexcept;

 private:
  static void* entry(void* self);
  std::function<void()> body_;
  pthread_t id_{};
  bool started_ = false;
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  int guard_handle_ = -1;
};

}  // namespace weft::detail
