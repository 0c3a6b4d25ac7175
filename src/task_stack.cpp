// weft — the direct task stack's memory: an mmap'ed frame array and its guard page.
#include "task_stack.hpp"

#include "config_resolve.hpp"
#include "stack_guard.hpp"
#include "weft/detail/zero_pages.hpp"

#include <sys/mman.h>

#include <new>
#include <string>

namespace weft::detail {

task_stack::task_stack(std::size_t capacity) : capacity_(capacity) {
  const std::size_t page = 4096;
  const std::size_t bytes = (capacity * sizeof(frame) + page - 1) / page * page;
  mapped_bytes_ = bytes + page;
  void* p = nullptr;
  try {
    p = map_zero_pages(mapped_bytes_);
  } catch (const std::bad_alloc&) {
    // No address space for it (RLIMIT_AS, a strict overcommit policy): said naming the setting that
    // sized it (throw_no_memory, as for the trace buffers); a bare "std::bad_alloc" from the pool's
    // constructor or a serial run before stop 45's bug hunt.  Still a std::bad_alloc.
    throw_no_memory("weft: no memory for a task stack of " + std::to_string(capacity) +
                    " frames (config.max_depth / WEFT_MAX_DEPTH; 64 bytes each, " + std::to_string(mapped_bytes_) +
                    " bytes reserved for each worker and serial run, committed as used); lower it");
  }
  mapping_ = p;
  // The guard page: a join nested deeper than `capacity` faults here.
  ::mprotect(static_cast<char*>(p) + bytes, page, PROT_NONE);
  // The frames are not constructed one by one: that would touch (commit) the whole array at pool
  // creation, 1 MiB per worker.  A fresh anonymous mapping is zero pages, committed as joins reach
  // them, and an all-zero frame is a default-constructed one (frame.hpp: state 0 = no task, not
  // marked, no error; checked by a test).
  // The frames end where the guard page begins, so that frame number `capacity` + 1 is the first to
  // fault, whatever the capacity (until stop 45's bug hunt they began at the mapping's start, and a
  // capacity that is no multiple of 64 frames had up to 63 more before the guard than it said).
  frames_ = reinterpret_cast<frame*>(static_cast<char*>(p) + bytes) - capacity;
  guard_handle_ = register_guard(reinterpret_cast<std::uintptr_t>(p) + bytes,
                                 reinterpret_cast<std::uintptr_t>(p) + mapped_bytes_, guard_kind::task_stack, capacity);
}

// Frames hold no resources once their joins are done (every error is taken by its join), so the
// mapping goes without running their destructors (which would touch every page).
task_stack::~task_stack() {
  unregister_guard(guard_handle_);
  unmap_zero_pages(mapping_, mapped_bytes_);
}

}  // namespace weft::detail
