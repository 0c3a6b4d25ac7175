// weft — a worker's thread on a native stack weft maps itself (see native_thread.hpp).
#include "native_thread.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <system_error>

#include "stack_guard.hpp"

namespace weft::detail {

namespace {
// Below the stack (it grows down): large enough that one function's frame cannot step over it.
constexpr std::size_t guard_bytes = 64 << 10;
constexpr std::size_t page = 4096;
}  // namespace

void native_thread::start(std::size_t stack_bytes, std::function<void()> body) {
  const std::size_t usable = (stack_bytes + page - 1) / page * page;
  const std::size_t total = usable + guard_bytes;
  void* p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
  if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "weft: mapping a worker's native stack");
  char* base = static_cast<char*>(p);
  ::mprotect(base, guard_bytes, PROT_NONE);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, base + guard_bytes, usable);
  body_ = std::move(body);
  mapping_ = p;
  mapping_bytes_ = total;
  guard_handle_ = register_guard(reinterpret_cast<std::uintptr_t>(base),
                                 reinterpret_cast<std::uintptr_t>(base + guard_bytes), guard_kind::native_stack,
                                 usable);
  const int err = ::pthread_create(&id_, &attr, &native_thread::entry, this);
  pthread_attr_destroy(&attr);
  if (err != 0) {
    unregister_guard(guard_handle_);
    ::munmap(mapping_, mapping_bytes_);
    mapping_ = nullptr;
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
  unregister_guard(guard_handle_);
  ::munmap(mapping_, mapping_bytes_);
  mapping_ = nullptr;
}

native_thread::~native_thread() { join(); }

}  // namespace weft::detail
