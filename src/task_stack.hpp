// weft — the direct task stack: a worker's array of frames (WOOL §I.a).
#pragma once

#include <cstddef>

#include "weft/detail/frame.hpp"

namespace weft::detail {

// Frames in place, in an mmap'ed array with a guard page after it, so that a join nested deeper
// than the capacity faults instead of overwriting memory.
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
  frame* frames_;
  std::size_t capacity_;
  std::size_t mapped_bytes_;
};

// Capacity of every task stack, in frames of 64 bytes: 1 MiB per worker.  Joins nested deeper
// fault on the guard page; scope spawns beyond half of it run at once instead.
inline constexpr std::size_t stack_frames = std::size_t(1) << 14;

}  // namespace weft::detail
