// weft — the latent-work record shared by every policy: the frame of a worker's direct task stack.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>

#include "checks.hpp"
#include "policy_table.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define WEFT_INLINE inline __attribute__((always_inline))
#define WEFT_NOINLINE __attribute__((noinline))
// Forced inlining that only buys speed: a loop piece's machinery (detail/loop.hpp), copied into
// every loop's caller so that a short loop costs no calls.  The sanitizer builds define
// WEFT_NO_FORCED_INLINE (CMakeLists.txt) and let the compiler choose: the copies made ~25 % of the
// loop tests' compile time at -O0 and -O1 (test_loops.cpp under ASan: 58 s, 44 s without; stop 66),
// and the sanitizers check the same code either way.  WEFT_INLINE stays forced there too: the
// join's path inlined is also what keeps a level of nesting to one frame (Nesting's million
// nested joins overflowed ASan's -O0 stack with it uninlined).
#if defined(WEFT_NO_FORCED_INLINE)
#define WEFT_INLINE_FOR_SPEED inline
#else
#define WEFT_INLINE_FOR_SPEED inline __attribute__((always_inline))
#endif
// Task wrappers are stored in the state word (WOOL Fig. 3: TASK(w) is the wrapper's address), so
// their low three bits must be free for EMPTY/DONE/STOLEN(i) and the public tag.  gcc and clang
// honour function alignment.
#define WEFT_TASK_FN __attribute__((aligned(8)))
#else
#error "weft needs gcc or clang (function alignment, always_inline, initial-exec TLS)"
#endif
// Said here, once, rather than by the compiler at the first try/catch deep in join.hpp or loops.hpp.
#if !defined(__cpp_exceptions)
#error "weft needs C++ exceptions (a task's exception is carried to the join, loop, scope or run that owns it): compile without -fno-exceptions"
#endif

namespace weft::detail {

struct frame;
struct worker;
class chase_lev_deque;
struct promotion_ledger;
using task_fn = void (*)(frame*);

// The state word of WOOL §III.A / Fig. 3, packed in one pointer-sized word as the paper does:
//   TASK(w)    the wrapper's address (aligned to 8, so the low three bits are 0); under `wool`,
//              bit 2 tags a task in a public slot: only a tagged task may be stolen (see
//              sched_wool.cpp for why the tag lives in the state word and not beside it)
//   EMPTY      transient during a steal, or no task in the slot
//   STOLEN(i)  taken by worker i (needed for leapfrogging)
//   DONE       a stolen task that its thief has finished
// and one value no task, thief or loop ever has (low bits 111):
//   LEVEL(s)   the slot just above the youngest latent frame of weft::scope s, as s left it: every
//              push overwrites the state word, so a spawn that still finds its scope's mark at the
//              top knows nothing was opened at the scope's level since (scope.hpp, "the level mark")
namespace task_state {
inline constexpr std::uintptr_t none = 0;   // a slot not used since its task stack was mapped
inline constexpr std::uintptr_t empty = 1;
inline constexpr std::uintptr_t done = 3;
inline constexpr std::uintptr_t public_tag = 4;
inline constexpr std::uintptr_t loop = 5;  // the frame of a running parallel loop (see loops.hpp)
constexpr bool is_task(std::uintptr_t s) noexcept { return s != 0 && (s & 3) == 0; }
constexpr bool is_public_task(std::uintptr_t s) noexcept { return s != 0 && (s & 7) == public_tag; }
constexpr bool is_stolen(std::uintptr_t s) noexcept { return (s & 3) == 2; }
constexpr std::uintptr_t stolen(unsigned thief) noexcept { return (std::uintptr_t(thief) << 2) | 2; }
constexpr unsigned thief_of(std::uintptr_t s) noexcept { return unsigned(s >> 2); }
inline std::uintptr_t task(task_fn f) noexcept { return reinterpret_cast<std::uintptr_t>(f); }
inline task_fn wrapper(std::uintptr_t s) noexcept { return reinterpret_cast<task_fn>(s & ~std::uintptr_t(7)); }
// A scope is at least 8-aligned, so its mark keeps its address whole: no two live scopes share one.
inline std::uintptr_t level(const void* scope) noexcept { return reinterpret_cast<std::uintptr_t>(scope) | 7; }
}  // namespace task_state

// One slot of a worker's task stack.  Frames live in place in a per-worker array (WOOL §III.A):
// a join writes its slot with plain stores; only promotion makes it visible to thieves.
inline constexpr std::size_t frame_payload_bytes = 40;

struct alignas(64) frame {
  // A default frame is all zero bytes, so the zero pages of a fresh task stack are frames already
  // (task_stack.cpp; a test checks the representation).
  std::atomic<std::uintptr_t> state{task_state::none};
  // Owner-private marks (frame_mark), read by the join: any set mark means the join must synchronize
  // with thieves (reclaim()).  Thieves never read them.
  std::uint8_t marks = 0;
  // A stolen task's exception, written by the thief before DONE, taken by the owner after it.
  std::exception_ptr error;
  // The latent work itself, written by the owner with plain stores and published by the release
  // that promotes the frame: a small closure copied in place with room for its result (WOOL keeps a
  // task's arguments in its descriptor the same way), or a pointer to a record on the owner's stack.
  alignas(8) unsigned char payload[frame_payload_bytes];
};
static_assert(sizeof(frame) == 64, "a frame is one cache line");

// The marks of frame::marks; each mechanism sets only its own.
namespace frame_mark {
// Deque mechanism: the frame is on its owner's deque (set at promotion, cleared when joined).
inline constexpr std::uint8_t on_deque = 1u << 0;
// wool: the slot lies in the public window (WOOL §III.B): a property of the slot, kept across
// joins.
inline constexpr std::uint8_t public_slot = 1u << 1;
// Eager mechanism (ws, ws-ap): the frame of a weft::spawn that eager_promote put on the deque
// (spawn.hpp).  An eager join needs no mark, since it takes its frame back in the same function;
// a spawn's sync is another call, which finds out through this mark that it must.
inline constexpr std::uint8_t eager_spawn = 1u << 2;
}  // namespace frame_mark

// Must the join of `fr` synchronize with thieves?  (one load and one branch on the fast path)
WEFT_INLINE bool must_reclaim(const frame* fr) noexcept { return fr->marks != 0; }

// Reasons for a poll to leave the fast path; any set bit sends the next join/spawn to the slow path.
namespace poll_bit {
inline constexpr std::uint32_t external = 1u << 0;     // this thread is no worker: use the global pool
inline constexpr std::uint32_t always = 1u << 1;       // ws: promote every join
// The owner should look again at what it offers thieves: under wool a steal hit the trip wire
// (WOOL §III.B); under the lazy policies the deque may have dropped below THR (LS §3.3).
inline constexpr std::uint32_t notify = 1u << 2;
inline constexpr std::uint32_t public_next = 1u << 3;  // wool: the next push lands in a public slot
inline constexpr std::uint32_t heartbeat = 1u << 4;    // a heartbeat is due
// The work/span mode (work_span.hpp) measures the job this thread runs: joins go to join_measured.
inline constexpr std::uint32_t measure = 1u << 5;
// adf, dfd, fifo (NAR): every join forks a thread on the fiber engine (src/sched_fibers.cpp); set
// for good on the workers of such a pool, so the fast path never pushes a frame there.
inline constexpr std::uint32_t fibers = 1u << 6;
// Beside `always` on the workers of a ws or ws-ap pool that does not trace: their joins promote and
// take back inline (eager.hpp, hot_state::eager_deque).  One compare of the poll word tells the
// eager join from every other reason to leave the fast path.
inline constexpr std::uint32_t eager = 1u << 7;
}  // namespace poll_bit

// What hot_state::exceptions_in_flight reads on a thread that has not yet set it.
inline constexpr unsigned int no_exceptions_in_flight = 0;

// The owner's private fast-path state, in thread-local storage so that a join reaches it with
// %fs-relative addressing.  `poll` is also written by other threads (thieves, the timer) with
// fetch_or; the owner reads it with a relaxed load: a poll is one load and one branch.
struct hot_state {
  std::atomic<std::uint32_t> poll{poll_bit::external};
  frame* top = nullptr;  // next free slot of the task stack
  // Owner-private counters (SPEC §6).  Read by pool::stats() after the run that wrote them has
  // returned (the root's completion orders them); reading them during a run is racy by design.
  std::uint64_t joins = 0;
  std::uint64_t loop_iterations = 0;
  worker* self = nullptr;
  // How parallel loops run under the pool's policy (policy_table.hpp; read once per loop).
  loop_style loops_run_as = loop_style::halving;
  // ws and ws-ap (trigger::every_push) in a pool that does not trace: the deque and ledger of the
  // worker this thread runs as, so that a join promotes and takes back its frame inline (eager.hpp);
  // null under every other policy.  Set and cleared with `self`, and non-null exactly when the poll
  // word a worker starts from (scheduler::idle_poll_bits) holds poll_bit::eager.
  chase_lev_deque* eager_deque = nullptr;
  promotion_ledger* eager_ledger = nullptr;
  // A scope's spawned frames stay below this slot, half-way up the task stack: the rest is for the
  // joins nested in them (scope.hpp; a spawn that would reach it runs at once).  Set and cleared
  // with `self`; null on a thread that is no worker.
  frame* spawn_limit = nullptr;
  // This OS thread's count of exceptions in flight, the one std::uncaught_exceptions() reads (the
  // Itanium ABI's __cxa_eh_globals::uncaughtExceptions; a fiber's switch swaps its contents, never
  // its place).  weft::spawn's fast path saves it in the handle, and a scope's constructor in the
  // scope, so that ~spawned and ~scope tell an exception thrown since (drop the task, or the tasks'
  // errors) from one that was unwinding already when they were made in a destructor it calls (run
  // it, throw them): a load here and one there instead of a call into the C++ runtime.  Set where
  // `self` is set (lifecycle.cpp, acting_as.hpp) and kept with the thread; until then it points at a
  // zero, and the slow paths, which every thread that is no worker takes (a null spawn limit for a
  // scope), call std::uncaught_exceptions() instead.
  const unsigned int* exceptions_in_flight = &no_exceptions_in_flight;
  // weft::spawn handles open on this thread whose spawn made no frame (spawn_state::deferred and
  // the work/span mode's measured ones): each keeps its place in this count, and its sync checks
  // that it is the youngest (spawn.cpp, frameless_handles; a fiber-engine thread keeps its own).
  std::uint32_t frameless_handles = 0;
  // The oldest-first check's memory (sched_deque.cpp, promote_one): every frame from scan_base up to
  // scan_floor was no candidate for promotion at the last check, and a frame that is none never
  // becomes one until it is popped — a popped non-candidate (a loop piece's frame, loop.hpp
  // pop_loop_frame; a promoted frame, the scheduler's reclaim) lowers the floor to its slot.  So the
  // next check starts there instead of at the base: a path of 10^5 nested one-iteration loops made
  // each of its 10^5 checks walk every frame below it (quadratic: 77 s, stop 40's bug hunt).
  frame* scan_floor = nullptr;
  frame* scan_base = nullptr;
};

// The TLS model of tls_hot.  initial-exec works in any module loaded at start-up (weft itself, a
// shared library using it); it reaches the variable through its offset loaded from the GOT, which
// gcc keeps in a callee-saved register for the whole function: one register less for the
// recursion's own values (knapsack spilled an argument around its first branch for it).  An
// executable linked with the static libweft defines tls_hot itself, and there local-exec makes the
// offset a constant of the instruction: the build defines WEFT_TLS_LOCAL_EXEC for exactly those
// (CMakeLists.txt).  Both models name the same variable; only the code that reaches it differs.
#if defined(WEFT_TLS_LOCAL_EXEC)
#define WEFT_TLS_MODEL "local-exec"
#else
#define WEFT_TLS_MODEL "initial-exec"
#endif
extern constinit thread_local hot_state tls_hot __attribute__((tls_model(WEFT_TLS_MODEL)));

// The poll of the fast path: is any poll bit set?  Semantically a relaxed load of `poll` compared
// with 0.  On x86-64 it is written as one `cmpl $0, %fs:...` (one instruction where gcc and clang
// make a load and a test of a std::atomic: neither folds an atomic load into a compare): an aligned
// 4-byte load is single-copy atomic there, and x86-TSO gives it at least the ordering of a relaxed
// load (it is even an acquire), which is all a poll needs — a bit set by another thread is seen at
// some later poll, and nothing is read through it (the slow path re-reads the word with a real
// atomic load before acting).  `volatile` keeps every poll a load of its own (no two merged, none
// hoisted out of a loop).  ThreadSanitizer does not see inside asm, so its builds (and every other
// target) use the atomic load itself.
#if defined(__SANITIZE_THREAD__)
#define WEFT_POLL_AS_ATOMIC_LOAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WEFT_POLL_AS_ATOMIC_LOAD 1
#endif
#endif
WEFT_INLINE bool poll_pending(const hot_state& h) noexcept {
#if defined(__x86_64__) && !defined(WEFT_POLL_AS_ATOMIC_LOAD)
  static_assert(sizeof(h.poll) == sizeof(std::uint32_t) && std::atomic<std::uint32_t>::is_always_lock_free);
  bool set;
  asm volatile("cmpl $0, %1" : "=@ccne"(set) : "m"(*reinterpret_cast<const std::uint32_t*>(&h.poll)));
  return set;
#else
  return h.poll.load(std::memory_order_relaxed) != 0;
#endif
}

// Code that runs a callable of the program as a branch of its own without pushing a frame (a loop
// split by halves whose whole range is one leaf, parallel_invoke of one callable, a pool::run job
// that a worker of the same pool runs inline, a weft::region outside the work/span mode) clears any
// scope's level mark at the top, as a push
// would: a scope spawn from inside it runs at once, as from a join's branch, instead of leaving a
// latent task that outlives the branch (scope.hpp, "The level mark").  One store per loop, invoke
// or inline run.  Below spawn_limit only: no scope marks a slot
// above it (its spawns there run at once anyway), and a thread that is no worker has none.
// The store is relaxed, as a push's store of the word: the slot is at the top, where no thief takes
// a task (docs/PROTOCOLS.md §11e).
inline void leave_scope_level(hot_state& h) noexcept {
  if (h.top < h.spawn_limit) h.top->state.store(task_state::empty, std::memory_order_relaxed);
}

}  // namespace weft::detail
