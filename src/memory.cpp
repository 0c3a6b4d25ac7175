// weft — accounted memory (SPEC §5).
#include <cstdlib>
#include <new>

#include "pool_runtime.hpp"
#include "weft/memory.hpp"

namespace weft {

void* malloc(std::size_t bytes) {
  if (detail::worker* w = detail::tls_hot.self; w != nullptr && w->rt->quota_applies)
    detail::fiber_before_alloc(bytes);  // may preempt: this thread may run on another worker after it
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  if (detail::worker* w = detail::tls_hot.self) {
    detail::runtime& rt = *w->rt;
    // The pool's high-water mark: relaxed, since only the maximum matters, not its ordering.
    const std::int64_t now = rt.heap_now.fetch_add(std::int64_t(bytes), std::memory_order_relaxed) + std::int64_t(bytes);
    std::uint64_t peak = rt.heap_peak.load(std::memory_order_relaxed);
    while (now > 0 && std::uint64_t(now) > peak &&
           !rt.heap_peak.compare_exchange_weak(peak, std::uint64_t(now), std::memory_order_relaxed)) {
    }
    w->heap_now += std::int64_t(bytes);
    if (w->heap_now > w->heap_peak) w->heap_peak = w->heap_now;
  }
  return p;
}

void free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (detail::worker* w = detail::tls_hot.self) {
    w->rt->heap_now.fetch_sub(std::int64_t(bytes), std::memory_order_relaxed);
    w->heap_now -= std::int64_t(bytes);
  }
  std::free(p);
}

}  // namespace weft
