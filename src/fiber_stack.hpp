// weft — the fiber engine's stacks (SPEC §5: "its own small pooled stack"; the guard regions are
// SPEC §2's "never a bare crash": an overflow is reported, naming its setting).  Stacks of
// config::fiber_stack_bytes are carved from arenas mapped with MAP_NORESERVE (committed as used),
// each with a guard region below it; a freed stack goes back on a free list and is reused youngest
// first (its pages are still warm).  Each arena is registered as one guard of kind fiber_stack: its
// only inaccessible pages are the guards, so a fault anywhere inside it is a fiber's stack
// overflow, reported with the setting that raises the size (stack_guard.hpp).
//
// The pool counts stacks in use and their high-water mark: counters::fiber_stack_peak_bytes, the
// fiber memory, counted apart from the heap that weft::malloc accounts (SPEC §5).
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fork_checked_mutex.hpp"

namespace weft::detail {

class runtime;

class fiber_stack_pool {
 public:
  fiber_stack_pool(const runtime& rt, std::size_t stack_bytes);
  ~fiber_stack_pool();
  fiber_stack_pool(const fiber_stack_pool&) = delete;
  fiber_stack_pool& operator=(const fiber_stack_pool&) = delete;

  // A stack's lowest usable address; throws std::runtime_error naming the limit when no arena can
  // be mapped (address space, or the kernel's vm.max_map_count).
  void* take();
  // A stack whose thread has finished for the program but still runs on it until its last switch
  // (a root thread: its job is done, its caller may go on): out of the count now.  Its give()
  // then only puts it back on the free list.
  void retire() noexcept;
  void give(void* lowest, bool retired) noexcept;
  std::size_t stack_bytes() const noexcept { return usable_; }

  std::uint64_t in_use() const;
  std::uint64_t peak() const;
  void reset_peak();

 private:
  void map_arena();
  const std::size_t usable_;
  // Checked for a fork: a worker of a forked child that joins takes a stack under it, and another
  // worker of the parent may have held it at the fork (stop 49's space hunt: the child waited for
  // ever, about 1 fork in 100 inside a pool of 8 workers joining).
  mutable fork_checked_mutex mu_;
  std::vector<void*> free_;  // guarded by mu_
  struct arena {
    void* base;
    std::size_t bytes;
    int guard_handle;
  };
  std::vector<arena> arenas_;  // guarded by mu_
  std::uint64_t in_use_ = 0, peak_ = 0;  // guarded by mu_
  std::size_t total_stacks_ = 0;         // guarded by mu_
};

// Boost.Context's StackAllocator concept over the pool (a fiber's stack: [sp - size, sp)).
struct pooled_stack {
  fiber_stack_pool* pool;
  const void** lowest;  // where to note the stack's lowest address (the sanitizers' switch needs it)
  const bool* retired;  // the thread's note that retire() counted its stack out already
  boost::context::stack_context allocate() {
    boost::context::stack_context sc;
    sc.size = pool->stack_bytes();
    void* lo = pool->take();
    *lowest = lo;
    sc.sp = static_cast<char*>(lo) + sc.size;
    return sc;
  }
  void deallocate(boost::context::stack_context& sc) noexcept {
    pool->give(static_cast<char*>(sc.sp) - sc.size, *retired);
  }
};

}  // namespace weft::detail
