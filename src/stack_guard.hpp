// weft — guard regions and the message when one is hit (SPEC §2: past a limit, a clear error naming
// the limit and the setting that raises it, never a bare crash).
//
// Every task stack, every worker's native stack and every fiber's stack (fiber_stack.hpp) ends in a
// guard region (PROT_NONE).  A join
// nested deeper than the task stack's capacity, or a native stack overflow, faults there.  The
// SIGSEGV handler installed here (on an alternate signal stack in worker threads, so that it runs
// even when the native stack is exhausted) looks the fault address up among the registered guard
// regions: in one, it prints which limit was hit and how to raise it, then aborts; elsewhere, it
// puts back the handler that was there before and returns, so the fault recurs and is handled as it
// would have been without weft (a crash, or a sanitizer's report).
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::detail {

// The guard region below every native and fiber stack.  A function's first access below the end
// of its stack is up to its frame's size below the previous one (a compiler without
// -fstack-clash-protection touches a large frame where it likes), so a frame larger than the guard
// steps over it: into unmapped memory (a bare SIGSEGV) or into a mapping there (another fiber's
// stack in the same arena, another worker's stack), which it overwrites.  64 KiB until stop 45's
// bug hunt, where a recursion of 200 KB frames (a local buffer of 25,000 doubles) crashed bare and
// one of 3 MB frames ran on through other stacks; 1 MiB now, the gap Linux keeps below the main
// thread's stack (stack_guard_gap): address space only, never committed.  Larger frames need
// -fstack-clash-protection (README, "Nesting").
inline constexpr std::size_t stack_guard_bytes = std::size_t(1) << 20;

enum class guard_kind : std::uint8_t { task_stack, native_stack, fiber_stack };

// Registers [lo, hi) as the guard of a stack of `limit` (frames for a task stack, bytes for a
// native stack); returns a handle for unregister_guard, or -1 when there is no memory for the table
// to grow (the guard still protects, without the message).  Installs the handler on first use.
int register_guard(std::uintptr_t lo, std::uintptr_t hi, guard_kind kind, std::size_t limit) noexcept;
void unregister_guard(int handle) noexcept;
// Held by the forking thread across fork() (global_pool.cpp): the child's new pools register their
// stacks, and must not find the table locked by a thread the child does not have.
void lock_guard_table() noexcept;
void unlock_guard_table() noexcept;

// A worker thread's alternate signal stack, for the handler to run on after a native overflow.
class alternate_signal_stack {
 public:
  alternate_signal_stack() noexcept;
  ~alternate_signal_stack();
  alternate_signal_stack(const alternate_signal_stack&) = delete;
  alternate_signal_stack& operator=(const alternate_signal_stack&) = delete;

 private:
  void* memory_ = nullptr;
};

}  // namespace weft::detail
