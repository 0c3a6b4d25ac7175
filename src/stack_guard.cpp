// weft — guard regions and the message when one is hit (see stack_guard.hpp).
#include "stack_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace weft::detail {

namespace {

// A table the handler reads without locks or allocation: chunks of slots, the first static, the
// others mapped when every slot before them is taken and linked for good (never unmapped: the
// handler may be walking them).  A slot is free when `hi` is 0; it is filled (lo, kind, limit, then
// hi with release) and emptied (hi = 0) under `table_mutex`.  Until stop 41 the table was one fixed
// chunk of 8192 slots and a stack registered past it quietly had no guard message: 70 pools of 64
// workers alive at once overflowed with a bare SIGSEGV (found by stop 41's bug hunt).
struct guard_slot {
  std::atomic<std::uintptr_t> lo{0}, hi{0};
  std::atomic<std::size_t> limit{0};
  std::atomic<guard_kind> kind{guard_kind::task_stack};
};
constexpr int chunk_slots = 8192;  // 1024 workers x 2 stacks x 4 pools alive at once
struct guard_chunk {
  guard_slot slots[chunk_slots];
  std::atomic<guard_chunk*> next{nullptr};  // written once (release), under table_mutex
};
guard_chunk first_chunk;
std::mutex table_mutex;
struct sigaction previous_action;
std::once_flag install_once;

// Async-signal-safe output: write(2) of a few literal pieces and decimal numbers.
void put(const char* s) noexcept { [[maybe_unused]] auto r = ::write(2, s, std::strlen(s)); }
void put_number(std::size_t v) noexcept {
  char buf[24];
  char* p = buf + sizeof buf;
  *--p = '\0';
  do {
    *--p = char('0' + v % 10);
    v /= 10;
  } while (v != 0);
  put(p);
}

void report(guard_kind kind, std::size_t limit) noexcept {
  if (kind == guard_kind::task_stack) {
    put("weft: joins nested deeper than ");
    put_number(limit);
    put(" on one worker: its task stack is full. Raise the limit with WEFT_MAX_DEPTH or "
        "weft::config::max_depth (frames of 64 bytes, reserved and committed as used).\n");
  } else if (kind == guard_kind::fiber_stack) {
    put("weft: a fiber's stack (");
    put_number(limit);
    put(" bytes) overflowed under the fiber engine (adf, dfd, fifo): deep recursion inside one branch. Raise it "
        "with WEFT_FIBER_STACK_BYTES or weft::config::fiber_stack_bytes (reserved and committed as used).\n");
  } else {
    put("weft: a worker's native stack (");
    put_number(limit);
    put(" bytes) overflowed: joins nested too deep, or deep recursion inside a task. Raise it with "
        "WEFT_STACK_BYTES or weft::config::stack_bytes (reserved and committed as used).\n");
  }
}

void on_fault(int, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (const guard_chunk* c = &first_chunk; c != nullptr; c = c->next.load(std::memory_order_acquire)) {
    for (const guard_slot& g : c->slots) {
      const std::uintptr_t hi = g.hi.load(std::memory_order_acquire);
      if (hi != 0 && addr >= g.lo.load(std::memory_order_relaxed) && addr < hi) {
        report(g.kind.load(std::memory_order_relaxed), g.limit.load(std::memory_order_relaxed));
        std::abort();
      }
    }
  }
  // Not a weft guard: put the previous handler back; the faulting access recurs and meets it.
  ::sigaction(SIGSEGV, &previous_action, nullptr);
}

void install_handler() noexcept {
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previous_action);
}

}  // namespace

int register_guard(std::uintptr_t lo, std::uintptr_t hi, guard_kind kind, std::size_t limit) noexcept {
  std::call_once(install_once, install_handler);
  std::lock_guard lk(table_mutex);
  int base = 0;
  for (guard_chunk* c = &first_chunk;; c = c->next.load(std::memory_order_relaxed), base += chunk_slots) {
    for (int i = 0; i < chunk_slots; ++i) {
      guard_slot& g = c->slots[i];
      if (g.hi.load(std::memory_order_relaxed) != 0) continue;
      g.lo.store(lo, std::memory_order_relaxed);
      g.kind.store(kind, std::memory_order_relaxed);
      g.limit.store(limit, std::memory_order_relaxed);
      g.hi.store(hi, std::memory_order_release);  // the handler reads hi first (acquire), then the rest
      return base + i;
    }
    if (c->next.load(std::memory_order_relaxed) == nullptr) {
      // mmap: zero pages are empty slots (hi = 0) and a null `next`, as the constructors make them.
      void* p = ::mmap(nullptr, sizeof(guard_chunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return -1;  // no memory for the table: the stack has no message, only a SIGSEGV
      c->next.store(::new (p) guard_chunk, std::memory_order_release);  // the handler reads it (acquire)
    }
  }
}

void unregister_guard(int handle) noexcept {
  if (handle < 0) return;
  std::lock_guard lk(table_mutex);
  guard_chunk* c = &first_chunk;
  for (; handle >= chunk_slots; handle -= chunk_slots) c = c->next.load(std::memory_order_relaxed);
  c->slots[handle].hi.store(0, std::memory_order_release);
}

void lock_guard_table() noexcept { table_mutex.lock(); }
void unlock_guard_table() noexcept { table_mutex.unlock(); }

namespace {
constexpr std::size_t signal_stack_bytes = 64 << 10;
}

alternate_signal_stack::alternate_signal_stack() noexcept {
  void* p = ::mmap(nullptr, signal_stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;  // then an overflow crashes without the message
  stack_t ss{};
  ss.ss_sp = p;
  ss.ss_size = signal_stack_bytes;
  if (::sigaltstack(&ss, nullptr) != 0) {
    ::munmap(p, signal_stack_bytes);
    return;
  }
  memory_ = p;
}

alternate_signal_stack::~alternate_signal_stack() {
  if (memory_ == nullptr) return;
  stack_t ss{};
  ss.ss_flags = SS_DISABLE;
  ::sigaltstack(&ss, nullptr);
  ::munmap(memory_, signal_stack_bytes);
}

}  // namespace weft::detail
