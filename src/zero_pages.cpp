// weft — memory that is fresh zero pages, committed as it is touched.
#include "weft/detail/zero_pages.hpp"

#include <sys/mman.h>

#include <new>

namespace weft::detail {

// An anonymous mapping of its own, never the allocator's memory: calloc returns fresh zero pages
// only while malloc maps a large block anew, and glibc stops doing that for blocks of a size it has
// freed before (its mmap threshold rises to the freed size): the next calloc of that size is cleared
// with memset, every page committed.  MAP_NORESERVE: pages nobody touches are no commitment.
void* map_zero_pages(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void unmap_zero_pages(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

}  // namespace weft::detail
