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
// Under adf and dfd with a finite quota K (config::quota_bytes) on a worker, it is a scheduling point
// like a join (NAR §5.3): a request that exceeds what is left of the quota preempts the calling
// thread first, and one of m > K bytes first forks about m/K dummy threads, so the caller may go on
// on another worker (thread_local values change; do not hold a std::mutex across it), and it may
// also throw the fiber engine's std::runtime_error naming the fiber-stack limits when those dummy
// threads get no stack.
void* malloc(std::size_t bytes);
// `bytes` must be what was passed to malloc (the accounting needs it, like sized delete); another
// size stops the process with a message naming both (the block records its size).
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
