// weft — SPAWN/SYNC style fork-join (SPEC §2).  A spawned task is latent work, like a join's second
// branch; sync() joins the spawned tasks, youngest first, running inline the ones nobody stole.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "detail/join.hpp"
#include "detail/slow_path.hpp"

namespace weft {

class scope {
 public:
  scope() noexcept : scope(detail::tls_hot) {}
  // Syncs.  If a task threw and sync() was not called, the exception leaves the destructor — unless
  // an exception thrown since the scope was made is unwinding it (std::uncaught_exceptions() above
  // its count when the scope was made, the rule of a scope guard — N4152, the reason the count
  // exists — rather than oneTBB's task_group rule, `> 0`), in which case the tasks' errors are
  // dropped: the exception in flight wins.  A scope made in code that runs during an unwinding (a
  // destructor an exception calls, a task run from there, inline or on a thief) is not unwound by
  // it: its destructor throws its tasks' errors as anywhere else (the serial elision's calls would
  // throw them there), as a weft::spawn handle made there syncs.  Until stop 58 such a scope
  // dropped them, silently — and one in a join branch of that cleanup kept them only when a thief
  // ran the branch.
  ~scope() noexcept(false) {
    if (has_work()) [[unlikely]] sync_in_destructor();
  }
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;

  // Spawns f() (a copy of the callable is kept until sync).  Spawned on the thread that made the
  // scope, at the scope's own nesting level, the task is latent work of this worker; spawned from
  // anywhere else (another thread, e.g. a task of this scope that a thief runs, or inside a join
  // branch opened after the scope), it runs at once — the serial elision — since its frame could
  // not outlive that branch — also where this thread runs such a branch inline after popping its
  // frame (a join's second branch, a task that another scope's or a handle's sync runs itself),
  // found by the level mark below; a task of this scope that its sync runs spawns latent work again.
  // A spawn at the scope's level after a join, loop or nested scope opened there since its last
  // spawn (or since it was made or synced) runs at once too: the mark cannot tell that place from
  // the inside of the branch.  On a thread that is no worker, tasks run in the global pool.  Errors
  // of tasks spawned from other threads come after those of the owner's spawns in sync's order.
  // In the work/span mode (work_span.hpp) every spawn runs at once, and one at the scope's level is
  // measured as Cilk's spawn: the task in parallel with the owner's code up to sync (spawn_measured).
  template <class F>
  void spawn(F&& f);

  // Waits for every spawned task; rethrows the exception of the earliest-spawned task that threw,
  // in the serial elision's order (a spawn runs at once there: the spawns a task makes come right
  // after it, before its later siblings).  Called where the spawns are: on the scope's thread, at
  // its nesting level, with nothing opened since still open (no join branch, loop body or task
  // started after the spawns, no younger weft::spawn handle unsynced).  Elsewhere, while the scope
  // holds latent tasks, it throws std::logic_error: it cannot take them back past younger frames
  // (a policy whose spawns all ran at once has none, and there such a sync succeeds).  On another
  // thread than the one that made the scope (one of its tasks, or a join branch, that a thief runs)
  // it throws whatever the scope holds, under every policy whose spawns make frames: the owner
  // writes the scope's fields meanwhile, and no read of them there would be race-free.
  void sync();

 private:
  // A scope is made per node of a recursion (one spawn and one sync a node in fib written with
  // spawns), so its constructor is part of what a spawn costs: five loads, a few stores, no poll
  // word and no call on a worker.  The spawn limit is null wherever every spawn must run at once —
  // on a thread that is no worker, under the fiber engine, in the work/span mode (the runtime clears
  // hot_state::spawn_limit there) — and only then is the owning fiber (or measured path) looked up.
  // The count of exceptions in flight (~scope's rule) is read as a handle's spawn reads it: through
  // the worker's pointer where the limit is set (lifecycle.cpp and acting_as set both), by the C++
  // runtime's call elsewhere (start_unlimited, out of line; a thread that is no worker points at a
  // zero there; under the fiber engine either would do: the fiber's count is swapped into the
  // thread's, fiber_thread.hpp).  Three instructions on a worker (docs/results/fine-grained.md).
  explicit scope(detail::hot_state& h) noexcept
      : owner_(&h), base_(h.top), expected_top_(h.top), limit_(h.spawn_limit) {
    if (base_ < limit_) [[likely]] {
      mark_level(base_);
      uncaught_at_start_ = *h.exceptions_in_flight;
    } else {
      start_unlimited();
    }
  }

  // The level mark.  A spawn is latent work only at the scope's own level: where h.top is
  // expected_top_ and nothing opened there since the scope's last spawn is still running.  The top
  // alone cannot say the second: a join's second branch run inline, or a task that another scope's
  // sync or a weft::spawn handle's sync runs itself, runs after its frame was popped, at the very
  // top its join began from — and a spawn there left latent ran at the scope's sync, after the
  // branch had returned, with the branch's locals gone (stop 55's spawnapi hunt: a
  // stack-use-after-scope under AddressSanitizer).  So the scope marks the slot at expected_top_
  // (task_state::level: its own address, low bits 111) when it is made, after each latent spawn,
  // before sync runs one of its tasks there (a task's own spawns into its scope stay latent, as
  // in WOOL), and when a sync ends at its base; anything else opened at that slot — a join's
  // push, a loop frame, a weft::spawn handle, another scope — writes the slot's state word first,
  // and so does leave_scope_level where a branch pushes no frame.  A spawn that finds the mark gone
  // runs at once: correct wherever it is, and latent only where nothing else was opened since.
  // What it gives up: a spawn at the level after a join (or loop, handle, nested scope) made there
  // since the scope's last spawn runs at once, in its serial place, until the scope's next sync
  // (the tasks spawned before it stay stealable; a completed join leaves nothing that tells it from
  // one still in its second branch, short of a store per join).  The cost falls on scopes, not
  // joins: a load and a compare per spawn, a store per latent spawn, per task sync runs, per scope
  // and per sync (fib written with a scope: 58 -> 86 instructions a node; docs/results/
  // fine-grained.md, "The level mark").  Only this
  // scope writes its value, so a mark left by an older scope at the same slot cannot pass for it;
  // a sync called inside a branch opened at the level (a misuse: "sync where the spawns are")
  // marks the base as a sync at the level does.  The state word is written relaxed, as a push
  // writes it: the slot lies at or above the top, where no thief takes a task (a wool thief reading
  // it finds no public task and leaves it).
  void mark_level(detail::frame* fr) noexcept {
    fr->state.store(detail::task_state::level(this), std::memory_order_relaxed);
  }
  // At the end of a sync with nothing latent: later spawns at the level are latent again, also
  // after a join or loop made there had taken the mark.  Only with the top at the base (which also
  // says this is the owner: another thread's top lies in another reservation, or is null): a task
  // run above may have left a frame at the base (a misuse, another scope synced and spawned into
  // inside it), latent work whose state word a mark must not replace — a thief called the mark as
  // its wrapper (stop 56's levelmark hunt).
  void mark_base_again(const detail::hot_state& h) noexcept {
    if (h.top == base_ && base_ < limit_) mark_level(base_);
  }
  bool level_marked(const detail::frame* fr) const noexcept {
    return fr->state.load(std::memory_order_relaxed) == detail::task_state::level(this);
  }

  // A task spawned as latent work is a frame on the owner's task stack, like a join's second branch
  // (WOOL's SPAWN): its payload holds what sync needs to run it inline (the runner) and the closure
  // itself when it is small (frame_closure), else a pointer to a record holding it.  sync pops the
  // scope's frames youngest first and runs inline the ones nobody stole (WOOL's SYNC, untyped:
  // through the runner in the payload).  A frame holds no spawn index: its place on the task stack
  // gives its spawn order (error_bound_ below).
  using inline_runner = void (*)(detail::frame*);  // runs the task on the owner at sync; throws its error
  static constexpr std::size_t closure_offset = sizeof(inline_runner);
  static inline_runner runner_of(const detail::frame* fr) noexcept {
    return *std::launder(reinterpret_cast<const inline_runner*>(fr->payload));
  }
  // The stores every latent spawn makes, after its closure (or the record's address) is in place:
  // the runner, the push (the thief's wrapper in the state word), the scope's new top and its level
  // mark there (fr + 1 <= limit_: the slot exists, half-way up the task stack).  The closure
  // goes in as 8-byte words (frame_closure::store), not as bytes, which may alias the scope's fields.
  WEFT_INLINE void push_task(detail::hot_state& h, detail::frame* fr, inline_runner run_inline,
                             detail::task_fn run) noexcept {
    ::new (fr->payload) inline_runner(run_inline);
    detail::push_frame(h, fr, run);
    expected_top_ = h.top;
    mark_level(expected_top_);
  }
  template <class F>
  static constexpr bool in_frame = std::is_trivially_copyable_v<F> && std::is_invocable_v<const F&> &&
                                   alignof(F) <= 8 && closure_offset + sizeof(F) <= detail::frame_payload_bytes;
  template <class F>
  struct frame_closure;

  // A task whose closure does not fit a frame, or one spawned on a thread that is no worker (a job
  // in the global pool): a record in the scope's storage (an inline buffer, then heap chunks),
  // listed for sync, which destroys it.
  struct record {
    record* prev = nullptr;
    detail::root_job* job = nullptr;  // external mode: the job in the global pool
    std::size_t seq = 0;  // external records: spawn order among the scope's slow spawns
    void (*run_inline)(record*) = nullptr;
    void (*destroy)(record*) = nullptr;
    // The hot state of the thread running the task from this record (its owner running it inline
    // at sync, a global-pool worker running an external job, the owner running a measured spawn's
    // task), null otherwise.  A sync called from inside the task (a misuse) finds its own thread
    // here and throws (sync_records): it would destroy the running closure, or wait for its own job.
    std::atomic<const detail::hot_state*> running_on{nullptr};
    // And under the fiber engine the job running it (detail::running_job), null otherwise: the
    // task's code is a tree of fibers that move between workers, and a sync called from one that
    // runs on another worker than the one that began the task missed running_on and waited for its
    // own job for ever (stop 54's fibertls hunt).
    std::atomic<const void*> running_job{nullptr};
  };
  // Marks a record's task as running on this thread (and job) while it runs (record::running_on).
  struct running_mark {
    record& r;
    explicit running_mark(record& rec) noexcept : r(rec) {
      r.running_on.store(&detail::tls_hot, std::memory_order_relaxed);
      r.running_job.store(detail::running_job(), std::memory_order_relaxed);
    }
    ~running_mark() {
      r.running_on.store(nullptr, std::memory_order_relaxed);
      r.running_job.store(nullptr, std::memory_order_relaxed);
    }
    running_mark(const running_mark&) = delete;
    running_mark& operator=(const running_mark&) = delete;
  };
  template <class F>
  struct typed_record;

  template <class F>
  record* make_record(F&& f);
  void* allocate(std::size_t bytes, std::size_t align);
  // Gives back what allocate just returned when the record made there is not kept (its closure's
  // copy threw, or it could not be submitted): a heap chunk is freed at once, since the destructor
  // syncs only a scope with records, frames or an error, and no later sync need come.
  void deallocate_newest(void* p) noexcept;
  // The errors, kept in spawn order (sync rethrows the earliest-spawned task's): see error_bound_.
  void note_frame_error(const detail::frame* fr, std::exception_ptr e) noexcept;  // the frame sync pops
  void note_slow_error(std::size_t seq, std::exception_ptr e) noexcept;  // a run-at-once or record task
  void note_foreign_error(std::exception_ptr e) noexcept;  // from another thread: after all owner spawns
  void narrow_error_bound(const detail::frame* popped) noexcept;
  void spawn_external(record* r);
  template <class F>
  void run_now(F& f, std::size_t seq) noexcept;
  // The work/span mode (scope.cpp, "measured spawns"): a spawn at the scope's level is a fork whose
  // record (measured_record, in the scope's storage, listed with the records) sync joins.
  struct measured_record;
  template <class F>
  WEFT_NOINLINE void spawn_measured(F& f);
  measured_record* measured_spawn_begin(detail::hot_state& h);
  void measured_spawn_end(detail::hot_state& h, measured_record* r) noexcept;
  void close_measured(record* r) noexcept;
  template <class F>
  WEFT_NOINLINE void spawn_slow(F&& f);
  template <class Fn>
  WEFT_NOINLINE void spawn_slow_by_value(Fn f) { spawn_slow(std::move(f)); }
  void run_frame_inline(detail::frame* fr) noexcept;
  // Frames not yet synced, records, or an error to throw: what sync (and the destructor) must see to.
  WEFT_INLINE bool has_work() const noexcept { return expected_top_ != base_ || last_ != nullptr || error_; }
  void sync_slow();
  void sync_in_destructor();
  // The constructor's unlikely branch: no spawn limit (owner_id_), or a full stack.
  void start_unlimited() noexcept;
  std::size_t sync_records();  // the external jobs lost to a fork()
  [[noreturn]] static void throw_sync_inside_a_task();
  [[noreturn]] static void throw_sync_on_a_worker();  // a worker's sync of a scope made on a plain thread
  [[noreturn]] static void throw_sync_on_another_thread();  // a thief's sync of a worker's scope

  detail::hot_state* owner_;
  detail::frame* base_;          // the owner's task-stack top when the scope was made
  detail::frame* expected_top_;  // above the scope's youngest frame; a spawn must find h.top here
  detail::frame* limit_;         // spawned frames stay below this (hot_state::spawn_limit; null: none)
  // Written and read only when limit_ is null (detail::scope_owner_id).  Under the fiber engine
  // (adf, dfd, fifo): the address of the fiber that made the scope, which is "the owner" there —
  // not a thread: the fiber may go on on another worker after any join (owner_fiber()).  In the
  // work/span mode: odd, 2 * the id of the measured path the scope was made on (where its spawns are
  // at its level while none is open: measured_spawn_begin); the owner is the thread there (a
  // measured job runs on one thread, and makes no fibers).  Otherwise 0.
  std::uintptr_t owner_id_;
  const void* owner_fiber() const noexcept {
    return limit_ == nullptr && (owner_id_ & 1) == 0 ? reinterpret_cast<const void*>(owner_id_) : nullptr;
  }
  // The fields below start as zero bytes, side by side: the compiler makes them with a few wide
  // stores.  The rest (error_seq_, chunks_) is written before it is read, and the lock guarding
  // error_ is shared by all scopes (scope.cpp): nothing more for a constructor to store.
  record* last_ = nullptr;       // records, youngest first
  std::size_t slow_spawns_ = 0;  // spawns that made no frame (run at once, external records): their seq
  // Bytes of inline_buf_ in use; past sizeof(inline_buf_) once records overflowed into heap chunks
  // (chunks_started()).  32 bits, to leave room for the next field in the same word: a scope of 240
  // bytes instead of 224 (a field of its own) made gcc inline fib written with a scope differently,
  // 9 more instructions a node (tools/join_cost.sh scope:lazy-bf).
  std::uint32_t used_ = 0;
  // std::uncaught_exceptions() when the scope was made (the constructor writes it): the destructor
  // drops the tasks' errors only when more are in flight — an exception thrown since unwinds it.
  unsigned int uncaught_at_start_;
  // The serial order of errors without a spawn index in the frames.  The scope's live frames lie in
  // spawn order on the task stack; a frame sync has popped (it runs it, or takes it back from its
  // thief) comes after the live frames below it and before any frame pushed since its pop, at its
  // place or above.  So every spawn has a key: a live frame at address a, a + half a frame; the frame
  // being popped at a, a itself.  error_bound_ is the key at which "later than the recorded error"
  // begins: a task whose key is below it was spawned before the recorded error's.  no_owner_error (0,
  // no frame's key): no error of an owner spawn yet, a bound above every key (a foreign error may be
  // recorded: it ranks after every owner spawn).  Only the owner reads or writes error_bound_ and
  // error_seq_ (the fast sync loop reads the bound without the lock).  after_all_keys: the recorded
  // error is later than every spawn sync has still to run (narrow_error_bound), the spawns made from
  // inside those tasks included, so that the order is the serial elision's: a task's own spawns
  // right after it, before its later siblings (pre-order).
  static constexpr std::uintptr_t no_owner_error = 0;
  static constexpr std::uintptr_t after_all_keys = ~std::uintptr_t{0};
  static constexpr std::size_t after_all_seqs = ~std::size_t{0};
  static std::uintptr_t live_key(const detail::frame* fr) noexcept {
    return reinterpret_cast<std::uintptr_t>(fr) + sizeof(detail::frame) / 2;
  }
  static std::uintptr_t popped_key(const detail::frame* fr) noexcept { return reinterpret_cast<std::uintptr_t>(fr); }
  std::uintptr_t error_bound_ = no_owner_error;
  // error_ is also written by other threads' spawns, under the lock of scope.cpp's error_guard.
  std::exception_ptr error_;
  std::size_t error_seq_;  // the recorded error's seq, when a slow spawn's (records rank by it); set with the bound
  // Records live in an inline buffer, then in heap chunks freed at sync.  128 bytes: one record of a
  // closure up to 80 bytes.  The buffer is part of every scope's stack frame, and a scope is made
  // per node of a recursion: with 256 bytes fib written with a scope ran ~5 % slower
  // (docs/results/fine-grained.md, "fib written with a scope").
  struct chunk;
  chunk* chunks_;  // valid once chunks_started()
  alignas(std::max_align_t) unsigned char inline_buf_[128];
  // Records overflowed the inline buffer at least once since the last sync: chunks_ is valid.
  bool chunks_started() const noexcept { return used_ > sizeof(inline_buf_); }
};

// A small closure copied into its frame.  A thief runs it there (the frame is not reused before its
// DONE); the owner copies it out before running it inline, because the task may join or spawn, and
// the first frame it pushes is this very slot.
//
// A closure without padding (the common case: pointers, and ints in pairs) is stored and copied out
// as 8-byte words.  Stored field by field, as the compiler would, and copied out a word at a time, as
// it would too, a word made of two 4-byte captures is loaded from two narrower stores: the store
// buffer cannot forward them, and the youngest task, which sync runs right after its spawn, waited
// ~a dozen cycles for them (docs/results/fine-grained.md, "Spawn").
template <class F>
struct scope::frame_closure {
  static constexpr bool as_words = sizeof(F) % 8 == 0;  // F is trivially copyable (in_frame)
  using words = std::array<std::uint64_t, sizeof(F) / 8>;
  WEFT_INLINE static void store(detail::frame* fr, const F& f) noexcept {
    if constexpr (as_words) {
      // The slot holds the closure's bytes as a `words` object: F is trivially copyable, so its bytes
      // copied out again make an F (bit_cast, below).  Stored as words, not through memcpy into the
      // payload: a byte copy may alias anything, and the compiler would reload the scope's fields
      // after every spawn.
      words w;
      std::memcpy(w.data(), &f, sizeof(F));
#if defined(__GNUC__)
      // Each word made whole in a register: left alone, the compiler sees through the cast and
      // stores the captures one by one again.
      for (std::uint64_t& word : w) asm("" : "+r"(word));
#endif
      ::new (fr->payload + closure_offset) words(w);
    } else {
      ::new (fr->payload + closure_offset) F(f);
    }
  }
  // A copy of the closure: the owner's copy out of the slot before it runs the task (the task's first
  // join or spawn reuses the slot), the thief's too (one copy either way).
  static F load(const detail::frame* fr) noexcept {
    if constexpr (as_words) {
      return std::bit_cast<F>(*std::launder(reinterpret_cast<const words*>(fr->payload + closure_offset)));
    } else {
      return *std::launder(reinterpret_cast<const F*>(fr->payload + closure_offset));
    }
  }
  static void run_inline(detail::frame* fr) {
    const F f = load(fr);
    f();
  }
  WEFT_TASK_FN static void run(detail::frame* fr) {  // on a thief (WOOL Fig. 3 wrap_f)
    try {
      const F f = load(fr);
      f();
    } catch (...) {
      fr->error = std::current_exception();
    }
  }
};

template <class F>
struct scope::typed_record : record {
  F fn;
  template <class A>
  explicit typed_record(A&& a) : fn(std::forward<A>(a)) {
    run_inline = [](record* r) { static_cast<typed_record*>(r)->fn(); };
    destroy = [](record* r) { static_cast<typed_record*>(r)->~typed_record(); };
  }
  static typed_record& of(detail::frame* fr) noexcept {
    return **std::launder(reinterpret_cast<typed_record**>(fr->payload + closure_offset));
  }
  static void run_from_frame(detail::frame* fr) {  // on the owner, at sync
    typed_record& r = of(fr);
    const running_mark mark(r);
    r.fn();
  }
  WEFT_TASK_FN static void run(detail::frame* fr) {  // on a thief
    try {
      typed_record& r = of(fr);
      const running_mark mark(r);
      r.fn();
    } catch (...) {
      fr->error = std::current_exception();
    }
  }
};

template <class F>
scope::record* scope::make_record(F&& f) {
  using Fn = std::decay_t<F>;
  void* const mem = allocate(sizeof(typed_record<Fn>), alignof(typed_record<Fn>));
  try {
    return ::new (mem) typed_record<Fn>(std::forward<F>(f));
  } catch (...) {
    deallocate_newest(mem);
    throw;
  }
}

template <class F>
void scope::run_now(F& f, std::size_t seq) noexcept {
  try {
    f();
  } catch (...) {
    note_slow_error(seq, std::current_exception());
  }
}

// The fast path of a spawn: the owner, at the scope's own level, a closure that fits the frame —
// the stores of a join's push, and the poll (see detail/join.hpp).  Everything else: spawn_slow.
// The owner test reads only what the constructor wrote: a top in [base_, limit_) lies on the
// owner's own task stack (any other thread's top is in another reservation, or null with a null
// limit).  expected_top_, which the owner writes, is read only then: a thief running one of this
// scope's tasks must not read it (a data race with the owner's sync).
// A small closure goes to the slow path by value (in registers): were its address taken there,
// the compiler would build the closure in memory field by field before the test and copy it into
// the frame with one wide load, which the narrower stores cannot forward to (a stall of ~a dozen
// cycles on every spawn, measured on Lace's dfs: docs/results/fine-grained.md, "Spawn").
template <class F>
WEFT_INLINE void scope::spawn(F&& f) {
  using Fn = std::decay_t<F>;
  detail::hot_state& h = detail::tls_hot;
  detail::frame* fr = h.top;
  if constexpr (in_frame<Fn>) {
    if (fr < limit_ && fr >= base_ && fr == expected_top_ && level_marked(fr)) [[likely]] {
      frame_closure<Fn>::store(fr, f);
      push_task(h, fr, &frame_closure<Fn>::run_inline, &frame_closure<Fn>::run);
      if (detail::poll_pending(h)) [[unlikely]] detail::promote_at_poll(h, fr);
      return;
    }
    return spawn_slow_by_value<Fn>(f);
  } else {
    spawn_slow(std::forward<F>(f));
  }
}

template <class F>
void scope::spawn_slow(F&& f) {
  using Fn = std::decay_t<F>;
  detail::hot_state& h = detail::tls_hot;
  if (h.poll.load(std::memory_order_relaxed) & detail::poll_bit::measure) [[unlikely]] return spawn_measured(f);
  if (owner_fiber() != nullptr && detail::running_fiber() == owner_fiber()) {
    // The fiber engine runs every spawn at once (README).  The owner is the fiber, whichever worker
    // it is on now: its spawns are the owner's, so that the scope's error is the first in spawn
    // order even when the fiber moved between workers at a join inside an earlier task (an error of
    // a spawn counted as foreign would rank after every owner one).
    ++h.joins;
    return run_now(f, slow_spawns_++);
  }
  if (owner_ != &h || owner_fiber() != nullptr) {
    // Another thread (a thief running one of this scope's tasks, say): the scope's storage belongs
    // to its owner, so the task runs here and now, touching nothing but the error slot.
    if (h.self != nullptr) ++h.joins;  // every spawn counts as a join
    try {
      f();
    } catch (...) {
      note_foreign_error(std::current_exception());
    }
    return;
  }
  detail::frame* fr = h.top;
  if (fr != expected_top_ || fr >= limit_ || !level_marked(fr)) {
    // Not on a worker (external: the global pool), or not at the scope's own level (a join branch
    // opened since, or run inline since: the level mark), or past the spawn limit: not latent work
    // of this worker.
    if (h.self == nullptr) {
      record* r = make_record(std::forward<F>(f));
      r->seq = slow_spawns_++;
      return spawn_external(r);
    }
    ++h.joins;
    return run_now(f, slow_spawns_++);
  }
  // A closure too large for the frame: the frame points at a record holding it.
  record* r = make_record(std::forward<F>(f));
  r->prev = last_;  // destroyed by sync, after its frame is done
  last_ = r;
  ::new (fr->payload + closure_offset) typed_record<Fn>*(static_cast<typed_record<Fn>*>(r));
  push_task(h, fr, &typed_record<Fn>::run_from_frame, &typed_record<Fn>::run);
  if (detail::poll_pending(h)) [[unlikely]] detail::promote_at_poll(h, fr);
}

// The work/span mode (work_span.hpp): the task runs at once, at its spawn, as in the mode's serial
// elision, and is one call in the `calls` unit, as a join's branch is; the owner's code after the
// spawn is no call.  Spawned at the scope's level (the owner's thread, on the path the scope
// expects: measured_spawn_begin), it is Cilk's spawn: the task's path and the owner's path from the
// spawn to sync run in parallel, and sync joins them — `spawn t1; A; spawn t2; B; sync` measures as
// join(t1, [A; join(t2, B)]): a fork (measure_fork) before the task, the continuation's path opened
// after it (measure_next), the (outer, first) record kept until sync closes the records youngest
// first (measure_join, close_measured), also the destructor's sync, when a task threw or while an
// exception unwinds.  Spawned from anywhere else — inside a join branch, region, loop body or task
// opened after the scope's last spawn (a task of this scope spawning into it included), or from
// another thread measuring a job of its own — it is a fork joined at once: a serial call.  Its path
// would end at the scope's sync, after the join that closes the branch it was spawned in, which no
// nesting of joins can say; and the runtime runs such a spawn at once under every policy, so as a
// serial call it is measured as it runs.
template <class F>
void scope::spawn_measured(F& f) {
  detail::hot_state& h = detail::tls_hot;
  ++h.joins;  // every spawn counts as a join
  if (owner_ != &h) {
    // Another thread: its own measured path; of the scope it touches only the error slot.
    detail::measured_pair m(h, true);
    try {
      f();
    } catch (...) {
      note_foreign_error(std::current_exception());
    }
    m.second(false);
    return;
  }
  measured_record* const r = measured_spawn_begin(h);  // null: not at the scope's level
  const std::size_t seq = slow_spawns_++;
  if (r == nullptr) {
    detail::measured_pair m(h, true);
    run_now(f, seq);
    m.second(false);
    return;
  }
  run_now(f, seq);
  measured_spawn_end(h, r);
}

// The fast path of sync (WOOL's SYNC): the scope's frames, youngest first, run here while nobody
// promoted them and no owner spawn's error is recorded; the first promoted one, what follows an
// error (each pop narrows error_bound_), records, errors and misuse go to sync_slow.
WEFT_INLINE void scope::sync() {
  detail::hot_state& h = detail::tls_hot;
  // Another thread than the one that made the scope (under adf, dfd and fifo the owner's fiber may
  // have moved; otherwise a misuse, such as a task of the scope syncing it): sync_slow decides
  // before anything the owner writes meanwhile is read (stop 54).
  if (owner_ != &h) [[unlikely]] return sync_slow();
  if (h.top == expected_top_) {
    while (expected_top_ != base_ && !detail::must_reclaim(expected_top_ - 1) && error_bound_ == no_owner_error) {
      detail::frame* fr = expected_top_ - 1;
      h.top = fr;
      expected_top_ = fr;
      // The task runs at the scope's level: its own spawns into this scope are latent, at fr (the
      // level mark), and this loop runs them next.
      mark_level(fr);
      run_frame_inline(fr);
    }
    if (expected_top_ == base_) mark_base_again(h);
  }
  if (has_work()) [[unlikely]] sync_slow();
  // Said to the compiler: a sync that returns leaves the scope empty (sync_slow returns only so; no
  // task of the scope runs any more, so no other thread writes error_).  The destructor's test of the
  // same three fields then folds away when nothing between sync and the scope's end can change them.
  if (has_work()) __builtin_unreachable();
}

// Runs a frame's task on its owner; an exception is recorded in spawn order.
WEFT_INLINE void scope::run_frame_inline(detail::frame* fr) noexcept {
  try {
    runner_of(fr)(fr);
  } catch (...) {
    note_frame_error(fr, std::current_exception());
  }
}

}  // namespace weft
