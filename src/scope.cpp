// weft — scope: spawn/sync on top of the join machinery.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "pool_runtime.hpp"
#include "weft/scope.hpp"

namespace weft {

struct scope::chunk {
  chunk* next;
  std::size_t size;
  alignas(std::max_align_t) unsigned char data[1];
};

// A measured spawn's fork (scope.hpp, spawn_measured): what measure_join needs at sync, and the
// path its continuation began on (tagged as owner_id_ is), where the scope's next spawn is at its
// level.  Listed with the records (destroy null: nothing to destroy, sync_records closes it instead).
struct scope::measured_record : record {
  detail::measure_saved outer, first;
  std::uintptr_t level = 0;
};

namespace {

// A spawned task of a scope made on a thread that is no worker: it runs in the global pool.
struct external_job : detail::root_job {
  void (*fn)(void*) = nullptr;
  void* record = nullptr;
  // The process generation it was submitted in (detail::current_fork_generation): in the child of a
  // fork() its task ran, or runs, in the parent's global pool, which the child does not have.
  std::uint64_t fork_generation = 0;
};

}  // namespace

// ---- measured spawns (the work/span mode; scope.hpp, spawn_measured) ----

namespace {
std::uintptr_t measured_owner_id(detail::hot_state& h) noexcept {
  return std::uintptr_t(detail::measured_path(h)) << 1 | 1;
}
bool measuring(const detail::hot_state& h) noexcept {
  return h.self != nullptr && (h.poll.load(std::memory_order_relaxed) & detail::poll_bit::measure);
}
}  // namespace

// At the scope's level: the scope was made in the mode (its limit null, its id odd) and this is the
// path it expects — where its youngest measured spawn's continuation began, or with none open, where
// the scope was made (joins, regions and typed spawns opened since have closed again).  Its records
// are all measured ones there (frames need a limit, external records a scope made outside a pool).
// owner_id_ stays as the constructor wrote it: a thread that is not measuring reads it (spawn_slow).
// The record is made first: a spawn that cannot get one throws std::bad_alloc before anything ran or
// was measured.
scope::measured_record* scope::measured_spawn_begin(detail::hot_state& h) {
  if (limit_ != nullptr || (owner_id_ & 1) == 0) return nullptr;
  const bool open = last_ != nullptr && last_->destroy == nullptr;
  const std::uintptr_t level = open ? static_cast<measured_record*>(last_)->level : owner_id_;
  if (level != measured_owner_id(h)) return nullptr;
  auto* r = ::new (allocate(sizeof(measured_record), alignof(measured_record))) measured_record();
  detail::measure_fork(h, r->outer, true);  // the task's path: one call
  // Listed before its task runs, as running (level 0, no path's id: a spawn from inside the task is
  // not at the scope's level, as it was not before), so that a sync called from inside the task
  // finds it and throws instead of freeing it (sync_records; stop 47's spawn hunt: heap-use-after-free).
  r->running_on.store(&h, std::memory_order_relaxed);
  r->running_job.store(detail::running_job(), std::memory_order_relaxed);
  r->prev = last_;
  last_ = r;
  return r;
}

// The task has run: the continuation's path opens (no call), and the scope's next own spawn is on it.
void scope::measured_spawn_end(detail::hot_state& h, measured_record* r) noexcept {
  detail::measure_next(h, r->first, false);
  r->level = measured_owner_id(h);
  r->running_on.store(nullptr, std::memory_order_relaxed);
  r->running_job.store(nullptr, std::memory_order_relaxed);
}

// sync_records reaches the records youngest first: each joins its task's path with the owner's since
// the spawn, and the path the spawn was made on goes on (the scope's level is that path again).  A
// sync called elsewhere than at the scope's level (inside a branch opened since: a misuse the deque
// policies report with std::logic_error while spawns are latent, and which succeeds where all ran at
// once) joins them into the branch open there: the figures stay sums of strands that ran, but are no
// longer exact.  A sync on a thread that is not measuring (a scope that outlived its job) joins
// nothing: that job's figures are closed already.
void scope::close_measured(record* r) noexcept {
  auto* m = static_cast<measured_record*>(r);
  detail::hot_state& h = detail::tls_hot;
  if (owner_ == &h && measuring(h)) detail::measure_join(h, m->outer, m->first);
}

void scope::start_unlimited() noexcept {
  if (limit_ == nullptr) owner_id_ = detail::scope_owner_id();
  uncaught_at_start_ = detail::exceptions_in_flight_now();
}

void scope::sync_in_destructor() {
  // An exception thrown since the scope was made unwinds it (uncaught_at_start_; the count is this
  // thread's, or under the fiber engine the fiber's, swapped in with it, as at the constructor).
  // The tasks run here are not unwinding themselves: the scopes and handles they make save the
  // count as it is now, and compare with that.
  if (detail::unwound_since(uncaught_at_start_)) {
    try {
      sync();
    } catch (...) {
      // Already unwinding from another exception: the tasks' errors are dropped.
    }
    return;
  }
  sync();
}

void* scope::allocate(std::size_t bytes, std::size_t align) {
  // `align` is a type's alignment: a power of two.  An over-aligned closure (one capturing an
  // alignas(64) object, say) is placed by its address, in the inline buffer as in a heap block;
  // before, such a spawn threw std::bad_alloc under every policy but the fiber engine's.
  if (!chunks_started()) {
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(inline_buf_);
    const std::size_t aligned = std::size_t(((base + used_ + align - 1) & ~std::uintptr_t(align - 1)) - base);
    if (aligned + bytes <= sizeof(inline_buf_)) {
      used_ = static_cast<std::uint32_t>(aligned + bytes);  // at most sizeof(inline_buf_)
      return inline_buf_ + aligned;
    }
    // Each record beyond the inline buffer gets its own block (spawns past 128 bytes of records are
    // the slow case anyway); blocks are chained and freed at sync.  The first overflow starts the
    // chain (the constructor leaves chunks_ unwritten) and marks used_ past the buffer for good.
    chunks_ = nullptr;
    used_ = static_cast<std::uint32_t>(sizeof(inline_buf_) + 1);
  }
  const std::size_t header = offsetof(chunk, data);  // data: aligned as malloc's blocks are
  const std::size_t slack = align > alignof(std::max_align_t) ? align - alignof(std::max_align_t) : 0;
  void* mem = std::malloc(header + bytes + slack);
  if (mem == nullptr) throw std::bad_alloc();
  auto* c = static_cast<chunk*>(mem);
  c->next = chunks_;
  c->size = bytes;
  chunks_ = c;
  const std::uintptr_t data = reinterpret_cast<std::uintptr_t>(c->data);
  return c->data + (((data + align - 1) & ~std::uintptr_t(align - 1)) - data);
}

// Called right after allocate returned p: p lies either in the inline buffer (it stays counted in
// used_: the buffer is the scope's own, nothing leaks) or in the newest heap block, the head of the
// chunk list (allocate pushes each there).
void scope::deallocate_newest(void* p) noexcept {
  auto* const bytes = static_cast<unsigned char*>(p);
  if (bytes >= inline_buf_ && bytes < inline_buf_ + sizeof(inline_buf_)) return;
  chunk* const c = chunks_;
  chunks_ = c->next;
  std::free(c);
}

// The errors in spawn order (error_bound_ in scope.hpp).  error_ is guarded by a spin lock: errors
// are rare, and a spawn from another thread may record one concurrently; error_bound_ and error_seq_
// are the owner's alone.  The locks are shared, a scope hashed to one of 64 (so that a scope's
// constructor stores no lock of its own): a lock is held for a few stores of one scope and never
// while taking another, so sharing one costs at most a short wait, never a deadlock.
// The 64 locks are also held across fork() (global_pool.cpp, lock_scope_error_locks): a fork while
// another thread recorded an error left its lock set in the child, whose next error in a scope
// hashed to it spun for ever.
namespace {
struct alignas(64) padded_lock {
  std::atomic_flag flag = ATOMIC_FLAG_INIT;
};
padded_lock error_locks[64];
void acquire(std::atomic_flag& f) noexcept {
  while (f.test_and_set(std::memory_order_acquire)) detail::cpu_relax();
}

class error_guard {
 public:
  explicit error_guard(const scope* s) noexcept : lock_(lock_of(s)) { acquire(lock_); }
  ~error_guard() { lock_.clear(std::memory_order_release); }
  error_guard(const error_guard&) = delete;
  error_guard& operator=(const error_guard&) = delete;

 private:
  static std::atomic_flag& lock_of(const scope* s) noexcept {
    return error_locks[(reinterpret_cast<std::uintptr_t>(s) / alignof(std::max_align_t)) % 64].flag;
  }
  std::atomic_flag& lock_;
};
}  // namespace

namespace detail {
void lock_scope_error_locks() noexcept {
  for (padded_lock& l : error_locks) acquire(l.flag);
}
void unlock_scope_error_locks() noexcept {
  for (padded_lock& l : error_locks) l.flag.clear(std::memory_order_release);
}
}  // namespace detail

// The frame sync popped at fr: earlier than the recorded error when its key is below the bound.
// Then the live frames below fr are earlier than it, and any frame pushed since its pop (at fr or
// above, key fr + half a frame) later.
void scope::note_frame_error(const detail::frame* fr, std::exception_ptr e) noexcept {
  const error_guard g(this);
  if (error_bound_ == no_owner_error || popped_key(fr) < error_bound_) {
    error_.swap(e);  // a replaced error is destroyed with e, after the lock: its destructor is the program's
    error_bound_ = live_key(fr);
    error_seq_ = 0;  // no slow spawn ranks before a frame's recorded error (see note_slow_error)
  }
}

// A spawn that made no frame: a task run at its spawn, or an external record's task (a scope made on
// a thread that is no worker: it never has frames, its limit is null).  Its error is noted when the
// task ends.  An error recorded before then is a frame's (sync popped it before this task began:
// sync does not run inside a task run at its spawn, which makes no frames in the scope either) or an
// earlier slow spawn's, or a later one's that this task's run contained (a task run at once spawned
// from inside it): slow spawns rank among themselves by seq, and after the recorded frame errors.
// While the task ran no frame was pushed or popped, so the bound it leaves holds: every frame live
// now, and the one sync may be popping (its key is its own address, at most expected_top_), is
// earlier; a frame pushed from now on, at expected_top_ or above, later.
void scope::note_slow_error(std::size_t seq, std::exception_ptr e) noexcept {
  const error_guard g(this);
  if (error_bound_ == no_owner_error || seq < error_seq_) {
    error_.swap(e);  // as in note_frame_error
    error_bound_ = live_key(expected_top_);
    error_seq_ = seq;
  }
}

void scope::note_foreign_error(std::exception_ptr e) noexcept {
  const error_guard g(this);
  if (!error_) error_ = std::move(e);
}

// sync pops the frame at `popped` while an owner error is recorded.  The frame turns from live (key
// popped + half) into popped (key popped): its order against the error must not change, and frames
// pushed from now on at popped or above are later than the error — when the frame is not earlier
// than it.  When the frame is earlier, the error is later than everything this sync loop has still
// to see: the frame's own run and the spawns it makes (in the serial elision they run inside the
// frame's task, before its later siblings), then the frames below it and theirs.  sync runs the
// scope's spawns in reverse serial order, a task's own spawns after it; so the bound becomes
// after_all_keys, which any error noted next outranks (a frame's or a slow spawn's), and the rules
// above take over from that error.
void scope::narrow_error_bound(const detail::frame* popped) noexcept {
  if (error_bound_ > live_key(popped)) {
    error_bound_ = after_all_keys;
    error_seq_ = after_all_seqs;
  } else if (error_bound_ == live_key(popped)) {
    error_bound_ = popped_key(popped);
  }
}

void scope::throw_sync_inside_a_task() {
  throw std::logic_error(
      "weft::scope::sync: called from inside one of its own tasks (it would free the running task, or wait for "
      "it); sync a scope where its spawns are, after them");
}

void scope::throw_sync_on_another_thread() {
  throw std::logic_error(
      "weft::scope::sync: called on another thread than the one that made the scope — from inside one of its "
      "own tasks, or a join branch, that a thief runs; sync a scope on its own thread, where its spawns are, "
      "after them");
}

// sync_slow's refusal on a worker of a scope made on a thread that is no worker: from there it cannot
// tell one of the scope's own tasks from any other code on that worker (a pool::run job another
// thread called, say) without reading the owner's records, so the message names both (until stop
// 55 it named the task alone, wrongly for a job).
void scope::throw_sync_on_a_worker() {
  throw std::logic_error(
      "weft::scope::sync: called on a pool's worker for a scope made on a thread that is no worker — from "
      "inside one of its own tasks (it would wait for it), or from a pool::run job or join branch running on "
      "another thread than the scope's; sync such a scope on the thread that made it, after its spawns");
}

void scope::spawn_external(record* r) {
  // Everything that can throw comes before the record is linked: a record in the list is one that
  // sync() waits for, so a job that was never submitted must not be there (sync would wait for
  // ever).  Getting the global pool throws on a bad WEFT_* setting.
  external_job* job = nullptr;
  detail::runtime* rt = nullptr;
  try {
    rt = detail::global_runtime();
    job = ::new (allocate(sizeof(external_job), alignof(external_job))) external_job();
    job->fn = [](void* rec) {
      auto* rr = static_cast<record*>(rec);
      const running_mark mark(*rr);
      rr->run_inline(rr);
    };
    job->record = r;
    job->body = [](detail::root_job* j) {
      auto* ej = static_cast<external_job*>(j);
      // The spawn counts in the global pool, where its task runs, as a join made on a thread that is
      // no worker counts there (SPEC §6: joins and scope spawns): on the thread running the job, in
      // the counters of the slot it holds (stop 49's seeing-inside hunt: counted nowhere).
      ++detail::tls_hot.joins;
      ej->fn(ej->record);
    };
    r->job = job;
    job->fork_generation = detail::current_fork_generation();
    detail::submit(rt, *job);
  } catch (...) {
    if (job != nullptr) {
      job->~external_job();
      deallocate_newest(job);
    }
    r->destroy(r);
    deallocate_newest(r);
    throw;
  }
  r->prev = last_;
  last_ = r;
}

void scope::sync_slow() {
  detail::hot_state& h = detail::tls_hot;
  // A scope made on a thread that is no worker (limit_ null, no owner fiber, not measured: owner_id_
  // 0; fields written before any task of it ran) runs its tasks on the global pool's workers, so a
  // worker syncing it is on another thread than the scope's, which only a misuse does — a task of
  // the scope, say, whose join branch a thief runs: neither the record's mark nor a fiber of its job
  // (sync_records), it waited for its own task for ever under ws, ws-ap, wool and the lazy policies
  // (every run of a probe, stop 54) — or a pool::run job that another thread called, which no
  // record marks either.  Refused before anything the owner writes is read: the owner
  // links its records meanwhile, with no synchronization with its tasks (ThreadSanitizer reported
  // the read, stop 54's fibertls hunt).
  if (owner_ != &h && limit_ == nullptr && owner_id_ == 0 && h.self != nullptr) throw_sync_on_a_worker();
  // A scope made on a worker (limit_ set: not the fiber engine, whose owner is a fiber, nor the
  // work/span mode) belongs to that worker's thread, and its code never leaves that thread: a sync
  // on another thread is one in a task of the scope, or a join branch, that a thief runs — the
  // misuse of "sync where the spawns are".  It went on to read expected_top_, error_, last_ and the
  // records while the owner's spawns and sync wrote them (ThreadSanitizer reported it in stop 52's CI
  // rehearsal) and threw "different nesting level", or returned, or rethrew and cleared the owner's
  // error, as the race fell.  Refused here before any of those reads: only owner_ and limit_ are read,
  // which the constructor wrote before the spawn that made the task stealable.  Free on the fast
  // path, which sends every sync on another thread here already (sync(): stop 54); the Known issue
  // had said such a check would cost every sync a load (stop 58's costclaims hunt).
  if (owner_ != &h && limit_ != nullptr) throw_sync_on_another_thread();
  if (expected_top_ != base_ && h.top != expected_top_)
    throw std::logic_error("weft::scope::sync: called at a different nesting level than spawn");
  // The scope's frames, youngest first: a stolen one is waited for, the others run here.
  while (expected_top_ != base_) {
    detail::frame* fr = expected_top_ - 1;
    h.top = fr;
    expected_top_ = fr;
    if (error_bound_ != no_owner_error) narrow_error_bound(fr);
    if (detail::must_reclaim(fr) && detail::reclaim(h, fr) == detail::reclaimed::stolen) {
      if (fr->error) {
        note_frame_error(fr, std::move(fr->error));
        fr->error = nullptr;
      }
      continue;
    }
    mark_level(fr);  // as in sync(): the task's own spawns into this scope are latent, at fr
    run_frame_inline(fr);
  }
  mark_base_again(h);  // as at the end of sync()
  const std::size_t lost = last_ != nullptr || chunks_started() ? sync_records() : 0;
  used_ = 0;
  error_bound_ = no_owner_error;
  if (lost > 0) {
    // Waiting for them would wait for ever (the hunt of stop 44: a plain thread spawned, forked, and
    // the child's sync hung).  Their results and errors are the parent's.
    error_ = nullptr;
    throw std::logic_error("weft::scope::sync: " + std::to_string(lost) +
                           " task(s) spawned before fork() were left to the parent's global pool, which this "
                           "child process does not have: they are lost here (sync the scope before fork())");
  }
  if (error_) {
    std::exception_ptr e = std::move(error_);
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

// The records: external jobs are waited for; every record (their tasks all done now) destroyed, a
// measured spawn's closed (close_measured), and the heap chunks freed.  Returns how many external
// jobs were lost to a fork(): submitted by the parent and not done when it forked.  Such a job's
// lock may have been held at the fork by a thread the child does not have: it is neither waited
// for nor destroyed (its mutex and condition variable are left in the storage as they are); one
// the parent had finished gives its error, written before done_hint's release.
std::size_t scope::sync_records() {
  // A sync called from inside one of the scope's own tasks (a misuse: "sync where the spawns are")
  // while that task's record is running on this thread: destroying the records would destroy the
  // running closure and free its storage under it (a task run inline from a record, a measured
  // spawn's), and waiting for the external jobs would wait for its own (a hang).  Nothing is
  // destroyed: the sync that is running the task sees to the records once the task has ended (the
  // stop 47 spawn hunt found both).
  // Relaxed loads suffice: a thread asks only whether it is itself running a record's task, and
  // reads its own stores in program order (coherence: a load never returns a value older than the
  // thread's own last store to that word).  Only the one thread running a record's task stores its
  // address there, so a load that returns `self` sees this thread's mark, set and not yet cleared.
  // Under the fiber engine the task's code may run here on another worker than the one that marked
  // it (a fiber of its job that moved, or was forked there): the job's mark (running_job) is then
  // what finds it.  Its store was made by a fiber of this job before this fiber ran here, and the
  // switches between them go through the scheduler's lock (PROTOCOLS 11c: a thread is published
  // and taken under mu_, and a child is made ready under it), so that store happens-before this
  // load, which reads it or a later store; the only later one, the clear, comes after every fiber
  // of the task has ended (a job's branches are all joined before its body returns).  (Since
  // 889a9d2 sync_slow refuses a worker's sync of a scope made on a plain thread before this, which
  // covers that case too; the job's mark stays as the record-level check.)
  const detail::hot_state* const self = &detail::tls_hot;
  const void* const job = detail::running_job();
  for (const record* r = last_; r != nullptr; r = r->prev)
    if (r->running_on.load(std::memory_order_relaxed) == self ||
        (job != nullptr && r->running_job.load(std::memory_order_relaxed) == job))
      throw_sync_inside_a_task();
  std::size_t lost = 0;
  while (record* r = last_) {
    if (r->job != nullptr) {
      auto* job = static_cast<external_job*>(r->job);
      if (job->fork_generation == detail::current_fork_generation()) {
        detail::wait_for(*job);
        if (job->error) note_slow_error(r->seq, job->error);
        job->~external_job();
      } else if (job->done_hint.load(std::memory_order_acquire)) {
        if (job->error) note_slow_error(r->seq, std::exchange(job->error, nullptr));
      } else {
        ++lost;  // nothing of it touched: the parent may have been writing it at the fork
      }
    }
    last_ = r->prev;
    if (r->destroy != nullptr)
      r->destroy(r);
    else
      close_measured(r);
  }
  if (!chunks_started()) return lost;  // no heap chunk was ever made: chunks_ unwritten
  while (chunks_ != nullptr) {
    chunk* next = chunks_->next;
    std::free(chunks_);
    chunks_ = next;
  }
  return lost;
}

namespace detail {
std::uintptr_t scope_owner_id() noexcept {
  hot_state& h = tls_hot;
  if (measuring(h)) return measured_owner_id(h);
  return reinterpret_cast<std::uintptr_t>(running_fiber());
}
}  // namespace detail

}  // namespace weft
