// weft — accounted memory (SPEC §5): weft::malloc / weft::free keep each worker's net bytes and
// the pool's high-water mark.
//
// The pool's mark, two ways:
//  - exact (the fiber engine: adf, dfd, fifo): one pool-wide atomic count, updated on every call,
//    and a CAS on the peak when it grows — NAR's space bound (S1 + c·K·p·D) is checked on it, and
//    those policies pay a thread switch per join anyway;
//  - posted (every other policy): SPEC §6 asks for counting that is per-worker and unshared.  Each
//    worker keeps the bytes it has not yet posted to the pool's count and posts them (one
//    fetch_add) only when they reach ±heap_post_bytes; at each call it records the pool's count
//    plus its own unposted bytes as its view of the pool's usage, and the mark is the largest
//    view (stats.cpp).  Exact with one worker; with P, off by at most the other workers' unposted
//    bytes, (P − 1) · 4 KiB.  A kernel that allocates a temporary per iteration on every worker
//    (meshspmv) spent 61 % of its time on the shared count at 2 workers (heartbeat-delivery.md §4).
#include <cstdlib>
#include <new>

#include "pool_runtime.hpp"
#include "weft/memory.hpp"

namespace weft {

namespace {

constexpr std::int64_t heap_post_bytes = 4096;

void count_exact(detail::runtime& rt, std::int64_t bytes) {
  // Relaxed: only the maximum matters, not its ordering with anything else.
  const std::int64_t now = rt.heap_now.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::uint64_t peak = rt.heap_peak.load(std::memory_order_relaxed);
  while (now > 0 && std::uint64_t(now) > peak &&
         !rt.heap_peak.compare_exchange_weak(peak, std::uint64_t(now), std::memory_order_relaxed)) {
  }
}

// `bytes` is negative for a free.  The unposted bytes and the view are this worker's (one writer;
// a stats() reader loads them relaxed, as the other counters); the pool's count is read relaxed.
void count_posted(detail::runtime& rt, detail::worker& w, std::int64_t bytes) {
  std::int64_t unposted = w.heap_unposted.load(std::memory_order_relaxed) + bytes;
  std::int64_t pool;
  if (unposted >= heap_post_bytes || unposted <= -heap_post_bytes) {
    pool = rt.heap_now.fetch_add(unposted, std::memory_order_relaxed) + unposted;
    unposted = 0;
  } else {
    pool = rt.heap_now.load(std::memory_order_relaxed);
  }
  w.heap_unposted.store(unposted, std::memory_order_relaxed);
  const std::int64_t view = pool + unposted;
  if (bytes > 0 && view > 0 && std::uint64_t(view) > w.pool_heap_seen.load(std::memory_order_relaxed))
    w.pool_heap_seen.store(std::uint64_t(view), std::memory_order_relaxed);
}

void count(detail::worker& w, std::int64_t bytes) {
  detail::runtime& rt = *w.rt;
  if (rt.uses_fibers)
    count_exact(rt, bytes);
  else
    count_posted(rt, w, bytes);
  w.heap_now += bytes;
  if (w.heap_now > w.heap_peak) w.heap_peak = w.heap_now;
}

// Can `bytes` be allocated at all?  Asked before NAR's delay of a large allocation (m/K dummy threads
// forked first, sched_fibers.cpp before_alloc): a request that cannot succeed would otherwise fork
// them all before its std::bad_alloc — 2·10^7 threads and 9 s under adf for a terabyte at the default
// K, hours for SIZE_MAX / 2.  A probe allocation, freed at once: a system call or two, against a
// thread forked per K bytes of the request.
bool could_allocate(std::size_t bytes) noexcept {
  void* probe = std::malloc(bytes);
  std::free(probe);
  return probe != nullptr;
}

}  // namespace

void* malloc(std::size_t bytes) {
  if (detail::worker* w = detail::tls_hot.self; w != nullptr && w->rt->quota_applies) {
    if (bytes > w->rt->cfg.quota_bytes && !could_allocate(bytes)) throw std::bad_alloc();
    detail::fiber_before_alloc(bytes);  // may preempt: this thread may run on another worker after it
  }
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  if (detail::worker* w = detail::tls_hot.self) count(*w, std::int64_t(bytes));
  return p;
}

void free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (detail::worker* w = detail::tls_hot.self) count(*w, -std::int64_t(bytes));
  std::free(p);
}

}  // namespace weft
