// weft — accounted memory (SPEC §5): weft::malloc / weft::free keep each worker's live bytes (of
// the blocks it allocated) and the pool's high-water mark.
//
// The pool's mark, two ways:
//  - exact (the fiber engine: adf, dfd, fifo): one pool-wide atomic count, updated on every call,
//    and a CAS on the peak when it grows — NAR's space bound (S1 + c·K·p·D) is checked on it, and
//    those policies pay a thread switch per join anyway.  Also under serial, whose mark is that
//    bound's S1: its pool has one worker, but each thread calling run at once gets a serial context
//    of its own, and posted counts made two callers holding 3000 bytes each read 3000 (stop 43's bug
//    hunt);
//  - posted (the other policies): SPEC §6 asks for counting that is per-worker and unshared.  Each
//    worker keeps the bytes it has not yet posted to the pool's count and posts them (one
//    fetch_add) only when they reach ±heap_post_bytes; at each call it records the pool's count
//    plus its own unposted bytes as its view of the pool's usage, and the mark is the largest
//    view (stats.cpp).  Exact with one worker; with P, off by at most the other workers' unposted
//    bytes, (P − 1) · 4 KiB.  A kernel that allocates a temporary per iteration on every worker
//    (meshspmv) spent 61 % of its time on the shared count at 2 workers (heartbeat-delivery.md §4).
//
// Which pool: each block starts with a header naming the pool it was charged to (none from a thread
// that is no worker) and the slot that allocated it, and its free credits that pool and that slot's
// own count (counters::heap_peak_bytes per worker, worker.hpp) whoever calls it — a worker of the same pool
// through its own count, anyone else through the pool's count directly, looked up in a registry
// of the live pools (a pool gone meanwhile: nothing to credit).  Before stop 40 a free was credited
// to the caller's pool: a block allocated outside a pool and freed inside one drove the pool's count
// negative for good, and later allocations did not show in its peak (the bug hunt's find).
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>

#include "pool_runtime.hpp"
#include "weft/detail/checks.hpp"
#include "weft/memory.hpp"

namespace weft {

namespace {

constexpr std::int64_t heap_post_bytes = 4096;

// The header before every block: whole max_align_ts (32 bytes), so that the block keeps malloc's
// alignment.
struct alignas(std::max_align_t) block_header {
  std::uint64_t pool;     // runtime::heap_id, 0: charged to no pool
  detail::worker* owner;  // the slot that allocated it (its per-worker count); valid while the pool lives
  // What weft::malloc was asked for, checked against free's `bytes`: a free naming another size
  // was taken as given and left the pool's count off by the difference for its life (stop 54's
  // space hunt), with nothing to say so.
  std::size_t bytes;
};

struct heap_registry {
  std::mutex mu;
  std::uint64_t next_id = 1;
  std::unordered_map<std::uint64_t, detail::runtime*> live;
};
heap_registry& registry() {
  // Never destroyed: a block may be freed by a static destructor after every pool is gone.
  static heap_registry* const r = new heap_registry;
  return *r;
}

// A block of pool `id`, allocated by its worker `owner`, freed by a thread that is none of its
// workers: the pool's count and the owner's, if the pool still lives (then so does `owner`: a
// pool's slots live as long as it).  Relaxed, as every count.
void credit_elsewhere(std::uint64_t id, detail::worker* owner, std::int64_t bytes) noexcept {
  heap_registry& r = registry();
  const std::lock_guard lk(r.mu);
  const auto it = r.live.find(id);
  if (it == r.live.end()) return;
  it->second->heap_now.fetch_sub(bytes, std::memory_order_relaxed);
  owner->heap_freed_elsewhere.fetch_add(bytes, std::memory_order_relaxed);
}

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
WEFT_INLINE void count_posted(detail::runtime& rt, detail::worker& w, std::int64_t bytes) {
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

// The pool's count, through the calling worker `w`.  Inlined into malloc and free (with
// count_posted): called, it cost each allocation and each free ~8 instructions of call and
// register saves, around a test and a few loads and stores (meshspmv allocates a temporary a row).
WEFT_INLINE void count_pool(detail::worker& w, std::int64_t bytes) {
  detail::runtime& rt = *w.rt;
  if (rt.uses_fibers || rt.runs_on_caller)
    count_exact(rt, bytes);
  else
    count_posted(rt, w, bytes);
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

namespace detail {
std::uint64_t register_heap_owner(runtime& rt) {
  heap_registry& r = registry();
  const std::lock_guard lk(r.mu);
  const std::uint64_t id = r.next_id++;
  r.live.emplace(id, &rt);
  return id;
}
void unregister_heap_owner(runtime& rt) noexcept {
  heap_registry& r = registry();
  const std::lock_guard lk(r.mu);
  r.live.erase(rt.heap_id);
}
void lock_heap_registry() noexcept { registry().mu.lock(); }
void unlock_heap_registry() noexcept { registry().mu.unlock(); }
}  // namespace detail

void* malloc(std::size_t bytes) {
  // The quota's scheduling point, except in the work/span mode: that runs the job as its serial
  // elision on this thread, whose hot state holds the mode (the `measure` bit, set and cleared by
  // this thread alone, so the relaxed load reads this thread's own write).  Preempted there, the
  // job's fiber went on on another worker that measured nothing, and its dummy threads were forks
  // the serial elision does not make (stop 54's fibertls hunt).
  if (detail::worker* w = detail::tls_hot.self;
      w != nullptr && w->rt->quota_applies &&
      !(detail::tls_hot.poll.load(std::memory_order_relaxed) & detail::poll_bit::measure)) {
    if (bytes > w->rt->cfg.quota_bytes && !could_allocate(bytes)) throw std::bad_alloc();
    detail::fiber_before_alloc(bytes);  // may preempt: this thread may run on another worker after it
  }
  if (bytes > SIZE_MAX - sizeof(block_header)) throw std::bad_alloc();
  auto* h = static_cast<block_header*>(std::malloc(sizeof(block_header) + bytes));
  if (h == nullptr) throw std::bad_alloc();
  h->pool = 0;
  h->owner = nullptr;
  h->bytes = bytes;
  if (detail::worker* w = detail::tls_hot.self) {
    h->pool = w->rt->heap_id;
    h->owner = w;
    count_pool(*w, std::int64_t(bytes));
    w->heap_now += std::int64_t(bytes);
    if (const std::int64_t live = w->heap_live(); live > w->heap_peak) w->heap_peak = live;
  }
  return h + 1;
}

void free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  block_header* const h = static_cast<block_header*>(p) - 1;
  // free is noexcept (it runs in destructors, as sized delete does): a wrong size stops the process
  // with a message rather than corrupting every later heap_peak_bytes of the pool.
  if (h->bytes != bytes)
    detail::fatal("weft::free(p, %zu): p is a block of weft::malloc(%zu); give free the size given to malloc "
                  "(weft::allocator does)",
                  bytes, h->bytes);
  if (h->pool != 0) {
    detail::worker* const w = detail::tls_hot.self;
    if (w != nullptr && w->rt->heap_id == h->pool) {
      count_pool(*w, -std::int64_t(bytes));
      // The per-worker count is the allocating slot's (worker.hpp, heap_freed_elsewhere).
      if (h->owner == w)
        w->heap_now -= std::int64_t(bytes);
      else
        h->owner->heap_freed_elsewhere.fetch_add(std::int64_t(bytes), std::memory_order_relaxed);
    } else {
      credit_elsewhere(h->pool, h->owner, std::int64_t(bytes));
    }
  }
  std::free(h);
}

}  // namespace weft
