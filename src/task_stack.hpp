// weft — the direct task stack: a worker's array of frames (WOOL §III.A).
#pragma once

#include <cstddef>

#include "weft/detail/frame.hpp"

namespace weft::detail {

// Frames in place, in an mmap'ed array with a guard page after it, so that a join nested deeper
// than the capacity (config::max_depth) stops the process with a message naming that setting
// (stack_guard.hpp) instead of overwriting memory.  Scope spawns beyond half of it run at once.
class task_stack {
 public:
  explicit task_stack(std::size_t capacity);
  ~task_stack();
  task_stack(const task_stack&) = delete;
  task_stack& operator=(const task_stack&) = delete;
  frame* begin() const noexcept { return frames_; }
  std::size_t capacity() const noexcept { return capacity_; }
  frame* end() const noexcept { return frames_ + capacity_; }

 private:
  void* mapping_;  // the frames end at its guard page (task_stack.cpp)
  frame* frames_;
  std::size_t capacity_;
  std::size_t mapped_bytes_;
  int guard_handle_ = -1;  // the guard page's entry for the overflow message (stack_guard.hpp)
};


}  // namespace weft::detail
