// weft — native stacks weft maps itself, and threads on them (see native_thread.hpp).
#include "native_thread.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

#include <boost/context/fiber.hpp>

#include "stack_guard.hpp"

namespace weft::detail {

namespace {
// Below the stack (it grows down): stack_guard.hpp says how large and why.
constexpr std::size_t guard_bytes = stack_guard_bytes;
constexpr std::size_t page = 4096;
}  // namespace

bool native_stack::map(std::size_t stack_bytes) noexcept {
  const std::size_t usable = (stack_bytes + page - 1) / page * page;
  const std::size_t total = usable + guard_bytes;
  void* p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
  if (p == MAP_FAILED) return false;
  char* base = static_cast<char*>(p);
  ::mprotect(base, guard_bytes, PROT_NONE);
  mapping_ = p;
  mapping_bytes_ = total;
  usable_ = usable;
  guard_handle_ = register_guard(reinterpret_cast<std::uintptr_t>(base),
                                 reinterpret_cast<std::uintptr_t>(base + guard_bytes), guard_kind::native_stack,
                                 usable);
  return true;
}

void* native_stack::lowest() const noexcept { return static_cast<char*>(mapping_) + guard_bytes; }

void native_stack::unmap() noexcept {
  if (mapping_ == nullptr) return;
  unregister_guard(guard_handle_);
  ::munmap(mapping_, mapping_bytes_);
  mapping_ = nullptr;
  canary_ = 0;
}

namespace {

// The canary: a word no frame is likely to write in every slot it touches, repeated.  Read and
// written below the stack pointer, where the sanitizers may still hold a returned frame's state
// (ASan's poisoned redzones after an exception, TSan's last accesses): not instrumented.
constexpr std::uint64_t canary_word = 0x7e57'ca7a'0dd5'eed5ULL;

__attribute__((no_sanitize("address", "thread"))) void write_canary(std::uintptr_t at, std::size_t bytes) noexcept {
  auto* w = reinterpret_cast<std::uint64_t*>(at);
  for (std::size_t i = 0; i < bytes / sizeof(std::uint64_t); ++i) w[i] = canary_word;
}

__attribute__((no_sanitize("address", "thread"))) bool canary_intact(std::uintptr_t at, std::size_t bytes) noexcept {
  const auto* w = reinterpret_cast<const std::uint64_t*>(at);
  std::uint64_t diff = 0;  // one pass without branches: a compare in vector registers
  for (std::size_t i = 0; i < bytes / sizeof(std::uint64_t); ++i) diff |= w[i] ^ canary_word;
  return diff == 0;
}

}  // namespace

// The region given back lies wholly below the caller's frame less the margin, on a stack the
// caller alone uses: nothing live is there, and no other thread reads it (a thief reads a join's
// closure on its owner's native stack only while the owner is inside that join, above its sp).
// A signal handler that runs on the stack meanwhile writes above the canary (it would need 256
// KiB), or, deeper, merely spoils it and the next trim gives back its pages too.
void native_stack::trim_below(const void* sp, std::size_t canary_bytes) noexcept {
  if (mapping_ == nullptr) return;
  const auto lo = reinterpret_cast<std::uintptr_t>(lowest());
  const auto at = reinterpret_cast<std::uintptr_t>(sp);
  if (at <= lo || at > lo + usable_) return;  // not on this stack (a fiber's, a sanitizer's fake stack)
  if (at - lo < stack_trim_margin + 2 * page) return;  // nothing below the margin to give back
  const std::uintptr_t kept = (at - stack_trim_margin) & ~std::uintptr_t(page - 1);  // the canary's page ends here
  const std::uintptr_t canary = kept - canary_bytes;
  // Intact where the last trim left it: nothing below the margin has been written since.
  if (canary == canary_ && canary_intact(canary, canary_bytes)) return;
  // Failure (EINVAL, EAGAIN) leaves the pages committed as they were: nothing to report.
  ::madvise(reinterpret_cast<void*>(lo), kept - page - lo, MADV_DONTNEED);
  write_canary(canary, canary_bytes);
  canary_ = canary;
}

native_stack::~native_stack() { unmap(); }

namespace {

// The stack to run on, as Boost.Context's fiber takes one: given, not allocated (the native_stack
// owns it and outlives the call).
struct given_stack {
  boost::context::stack_context sc;
  boost::context::stack_context allocate() noexcept { return sc; }
  void deallocate(boost::context::stack_context&) noexcept {}
};

}  // namespace

// The calling thread's alternate signal stack for the overflow handler, made on first use and kept
// until the thread exits; none when the thread has one of its own (it is left alone).
void ensure_alternate_signal_stack() {
  thread_local std::unique_ptr<alternate_signal_stack> mine;
  thread_local bool checked = false;
  if (checked) return;
  checked = true;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
  mine = std::make_unique<alternate_signal_stack>();
}

// A Boost.Context fiber on the given stack, resumed once: it runs fn(arg) and switches back.  Until
// stop 38 this was ucontext's makecontext/swapcontext, whose two switches save and restore the signal
// mask with a system call each: 0.6 us of a warm serial `run` (0.1 us on the caller's own stack).
void run_on_stack(native_stack& stack, void (*fn)(void*), void* arg) {
  ensure_alternate_signal_stack();
  boost::context::stack_context sc;
  sc.size = stack.size();
  sc.sp = static_cast<char*>(stack.lowest()) + stack.size();
  boost::context::fiber on_stack(std::allocator_arg, given_stack{sc}, [fn, arg](boost::context::fiber&& caller) {
    fn(arg);
    return std::move(caller);
  });
  std::move(on_stack).resume();
}

// The setting named (before stop 45's bug hunt: "weft: mapping a worker's native stack: Cannot
// allocate memory", which left the user to guess which of weft's reservations it was).
void throw_no_native_stack(int err, std::size_t stack_bytes) {
  throw std::system_error(err, std::generic_category(),
                          "weft: no memory for a native stack of " + std::to_string(stack_bytes) +
                              " bytes (config.stack_bytes / WEFT_STACK_BYTES; reserved for each worker and serial "
                              "run, committed as used): lower it");
}

void native_thread::start(std::size_t stack_bytes, std::function<void()> body) {
  if (!stack_.map(stack_bytes)) throw_no_native_stack(errno, stack_bytes);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack_.lowest(), stack_.size());
  body_ = std::move(body);
  const int err = ::pthread_create(&id_, &attr, &native_thread::entry, this);
  pthread_attr_destroy(&attr);
  if (err != 0) {
    stack_.unmap();
    throw std::system_error(err, std::generic_category(), "weft: starting a worker thread");
  }
  started_ = true;
}

void* native_thread::entry(void* self) {
  alternate_signal_stack on_overflow;  // the overflow handler runs here when the stack is exhausted
  static_cast<native_thread*>(self)->body_();
  return nullptr;
}

void native_thread::join() noexcept {
  if (!started_) return;
  ::pthread_join(id_, nullptr);
  started_ = false;
  stack_.unmap();
}

native_thread::~native_thread() { join(); }

}  // namespace weft::detail
