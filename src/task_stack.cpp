// weft — the direct task stack's memory: an mmap'ed frame array and its guard page.
#include "task_stack.hpp"

#include <sys/mman.h>

#include <new>

namespace weft::detail {

task_stack::task_stack(std::size_t capacity) : capacity_(capacity) {
  const std::size_t page = 4096;
  const std::size_t bytes = (capacity * sizeof(frame) + page - 1) / page * page;
  mapped_bytes_ = bytes + page;
  void* p = ::mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // The guard page: a join nested deeper than `capacity` faults here.  (Constructing the frames
  // touches the array once: capacity * 64 bytes per worker, at pool creation.)
  ::mprotect(static_cast<char*>(p) + bytes, page, PROT_NONE);
  frames_ = static_cast<frame*>(p);
  for (std::size_t i = 0; i < capacity; ++i) ::new (&frames_[i]) frame();
}

task_stack::~task_stack() {
  for (std::size_t i = 0; i < capacity_; ++i) frames_[i].~frame();
  ::munmap(frames_, mapped_bytes_);
}

}  // namespace weft::detail
