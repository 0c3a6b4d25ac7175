// weft — accounted memory (SPEC §5).  Allocations made by a worker are charged to its pool, whose
// stats report the heap high-water mark (counters::heap_peak_bytes) so that the memory of every
// policy can be compared on one program.  Calls from a thread that is no worker are served but
// charged to no pool.
#pragma once

#include <cstddef>
#include <limits>
#include <new>

namespace weft {

// At least alignof(std::max_align_t); throws std::bad_alloc.  malloc(0) returns a unique pointer.
void* malloc(std::size_t bytes);
// `bytes` must be what was passed to malloc (the accounting needs it, like sized delete).
void free(void* p, std::size_t bytes) noexcept;

// A std-compatible allocator on top of weft::malloc / weft::free.
template <class T>
struct allocator {
  using value_type = T;
  allocator() noexcept = default;
  template <class U>
  allocator(const allocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t), "weft::allocator: over-aligned type");
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(weft::malloc(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { weft::free(p, n * sizeof(T)); }

  template <class U>
  friend bool operator==(const allocator&, const allocator<U>&) noexcept { return true; }
};

}  // namespace weft
