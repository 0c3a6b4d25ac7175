// weft — scope: spawn/sync on top of the join machinery.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include "pool_runtime.hpp"
#include "weft/scope.hpp"

namespace weft {

struct scope::chunk {
  chunk* next;
  std::size_t size;
  alignas(std::max_align_t) unsigned char data[1];
};

namespace {

// A spawned task of a scope made on a thread that is no worker: it runs in the global pool.
struct external_job : detail::root_job {
  void (*fn)(void*) = nullptr;
  void* record = nullptr;
};

}  // namespace

void scope::sync_in_destructor() {
  if (std::uncaught_exceptions() > 0) {
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
  if (align > alignof(std::max_align_t)) throw std::bad_alloc();  // over-aligned closures: unsupported
  const std::size_t aligned = (used_ + align - 1) / align * align;
  if (aligned + bytes <= sizeof(inline_buf_)) {
    used_ = aligned + bytes;
    return inline_buf_ + aligned;
  }
  // Each record beyond the inline buffer gets its own block (spawns past 512 bytes of closures are
  // the slow case anyway); blocks are chained and freed at sync.
  const std::size_t header = offsetof(chunk, data);
  void* mem = std::malloc(header + bytes);
  if (mem == nullptr) throw std::bad_alloc();
  auto* c = static_cast<chunk*>(mem);
  c->next = chunks_;
  c->size = bytes;
  chunks_ = c;
  return c->data;
}

void scope::note_error(std::size_t index, std::exception_ptr e) noexcept {
  // A spin lock: errors are rare, and a spawn from another thread may record one concurrently.
  while (error_lock_.test_and_set(std::memory_order_acquire)) detail::cpu_relax();
  if (!error_ || index < error_index_) {
    error_ = std::move(e);
    error_index_ = index;
  }
  error_lock_.clear(std::memory_order_release);
}

void scope::note_foreign_error(std::exception_ptr e) noexcept { note_error(~std::size_t(0), std::move(e)); }

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
      rr->run_inline(rr);
    };
    job->record = r;
    job->body = [](detail::root_job* j) {
      auto* ej = static_cast<external_job*>(j);
      ej->fn(ej->record);
    };
    r->job = job;
    detail::submit(rt, *job);
  } catch (...) {
    if (job != nullptr) job->~external_job();
    r->destroy(r);
    throw;
  }
  r->prev = last_;
  last_ = r;
}

void scope::sync_slow() {
  detail::hot_state& h = detail::tls_hot;
  if (expected_top_ != base_ && h.top != expected_top_)
    throw std::logic_error("weft::scope::sync: called at a different nesting level than spawn");
  // The scope's frames, youngest first: a stolen one is waited for, the others run here.
  while (expected_top_ != base_) {
    detail::frame* fr = expected_top_ - 1;
    h.top = fr;
    expected_top_ = fr;
    if (detail::must_reclaim(fr) && detail::reclaim(h, fr) == detail::reclaimed::stolen) {
      if (fr->error) {
        note_error(head_of(fr).index, std::move(fr->error));
        fr->error = nullptr;
      }
      continue;
    }
    run_frame_inline(fr);
  }
  if (last_ != nullptr || chunks_ != nullptr) sync_records();
  used_ = 0;
  if (error_) {
    std::exception_ptr e = std::move(error_);
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

// The records: external jobs are waited for; every record (their tasks all done now) destroyed and
// the heap chunks freed.
void scope::sync_records() {
  while (record* r = last_) {
    if (r->job != nullptr) {
      auto* job = static_cast<external_job*>(r->job);
      detail::wait_for(*job);
      if (job->error) note_error(r->index, job->error);
      job->~external_job();
    }
    last_ = r->prev;
    r->destroy(r);
  }
  while (chunks_ != nullptr) {
    chunk* next = chunks_->next;
    std::free(chunks_);
    chunks_ = next;
  }
}

}  // namespace weft
