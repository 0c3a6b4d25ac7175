// weft — the fiber engine's stacks (see fiber_stack.hpp).
#include "fiber_stack.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fiber_thread.hpp"  // WEFT_FIBER_ASAN and the ASan interface
#include "pool_runtime.hpp"
#include "stack_guard.hpp"

namespace weft::detail {

namespace {
#ifdef WEFT_FIBER_ASAN
// The top of a stack, where a fiber's entry frames lie: they never return (the fiber's last switch
// leaves them), so AddressSanitizer's scope poisoning of their locals stays in the shadow of these
// addresses after the fiber has ended — for the next fiber on this stack, and, once the arena is
// unmapped, for whatever is mapped there next (another pool's stacks, at other offsets: the next
// fiber's deeper frames there read as stack-use-after-scope; Fibers.* under ASan in one process,
// stop 56's forklimit hunt).  Cleared when a stack is given back and when an arena is unmapped: a
// stack's top only (the public unpoison writes the shadow byte by byte: a whole 64 MiB stack is 8 MiB
// of shadow per fork).
constexpr std::size_t entry_frames_bytes = 64 * 1024;
void clear_entry_frames(void* lowest, std::size_t usable) noexcept {
  const std::size_t n = std::min(entry_frames_bytes, usable);
  ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(lowest) + usable - n, n);
}
#endif
// Below each stack, as below the native stacks: stack_guard.hpp says how large and why (the stack
// below in an arena is another fiber's).  Reserved address space only: PROT_NONE pages are never
// committed.
constexpr std::size_t guard_bytes = stack_guard_bytes;
// Arenas grow: 4 stacks, then 8, ... up to 64 (a small program reserves little address space).
constexpr std::size_t first_arena_stacks = 4, max_arena_stacks = 64;
}  // namespace

fiber_stack_pool::fiber_stack_pool(const runtime& rt, std::size_t stack_bytes)
    : usable_((stack_bytes + 4095) / 4096 * 4096), mu_(rt) {}

fiber_stack_pool::~fiber_stack_pool() {
#ifdef WEFT_FIBER_ASAN
  for (void* lowest : free_) clear_entry_frames(lowest, usable_);
#endif
  for (const arena& a : arenas_) {
    unregister_guard(a.guard_handle);
    ::munmap(a.base, a.bytes);
  }
}

void fiber_stack_pool::map_arena() {
  const std::size_t slot = usable_ + guard_bytes;
  const std::size_t stacks_per_arena = std::min(max_arena_stacks, first_arena_stacks << std::min<std::size_t>(arenas_.size(), 4));
  const std::size_t bytes = slot * stacks_per_arena;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
  char* base = static_cast<char*>(p);
  bool guarded = p != MAP_FAILED;
  for (std::size_t i = 0; guarded && i < stacks_per_arena; ++i)
    guarded = ::mprotect(base + i * slot, guard_bytes, PROT_NONE) == 0;
  if (!guarded) {
    if (p != MAP_FAILED) ::munmap(p, bytes);
    throw std::runtime_error(
        "weft: no address space for more fiber stacks (" + std::to_string(in_use_) + " stacks of " +
        std::to_string(usable_) + " bytes in use): the program has too many live threads for this machine's "
        "limits (address space, or the kernel's vm.max_map_count: each stack is two mappings). Lower "
        "WEFT_FIBER_STACK_BYTES / weft::config::fiber_stack_bytes (address space), raise vm.max_map_count "
        "(mappings), or lower WEFT_FIBER_FORK_LIMIT / weft::config::fiber_fork_limit (past it, joins run on the "
        "thread that meets them instead of forking)");
  }
  const int handle = register_guard(reinterpret_cast<std::uintptr_t>(base),
                                    reinterpret_cast<std::uintptr_t>(base + bytes), guard_kind::fiber_stack, usable_);
  arenas_.push_back({p, bytes, handle});
  total_stacks_ += stacks_per_arena;
  free_.reserve(total_stacks_);  // room for every stack: give() never allocates
  // Youngest first: the stack at the lowest address is taken first.
  for (std::size_t i = stacks_per_arena; i-- > 0;) free_.push_back(base + i * slot + guard_bytes);
}

void* fiber_stack_pool::take() {
  std::lock_guard lk(mu_);
  if (free_.empty()) map_arena();
  void* s = free_.back();
  free_.pop_back();
  if (++in_use_ > peak_) peak_ = in_use_;
  return s;
}

void fiber_stack_pool::retire() noexcept {
  std::lock_guard lk(mu_);
  --in_use_;
}

void fiber_stack_pool::give(void* lowest, bool retired) noexcept {
#ifdef WEFT_FIBER_ASAN
  clear_entry_frames(lowest, usable_);
#endif
  std::lock_guard lk(mu_);
  free_.push_back(lowest);  // cannot throw: capacity for every stack was reserved when its arena was mapped
  if (!retired) --in_use_;
}

std::uint64_t fiber_stack_pool::in_use() const {
  std::lock_guard lk(mu_);
  return in_use_;
}

std::uint64_t fiber_stack_pool::peak() const {
  std::lock_guard lk(mu_);
  return peak_;
}

void fiber_stack_pool::reset_peak() {
  std::lock_guard lk(mu_);
  peak_ = in_use_;
}

}  // namespace weft::detail
