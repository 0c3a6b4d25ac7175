// weft — join, the fast path.  Read this file top to bottom: it is the whole cost of a join that is
// never promoted (SPEC §3): a poll (one load, one branch), a few plain stores to push the frame (the
// second branch's closure copied in place, the wrapper, the new top), the first branch, one store
// to pop, one load and branch to see that nobody promoted it, the second branch.  Everything else
// is out of line.
#pragma once

#include <concepts>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "call.hpp"
#include "eager.hpp"
#include "fiber_join.hpp"
#include "frame.hpp"
#include "slow_path.hpp"

namespace weft {

template <class F, class G>
auto join(F&& f, G&& g);

namespace detail {

constexpr std::size_t align_up(std::size_t n, std::size_t a) noexcept { return (n + a - 1) / a * a; }

// Where the second branch of a join lives while it is latent.
//
// A result that holds nothing (weft::unit, the result of a void branch, or any empty trivial type)
// is not stored: a thief makes none and the join makes a fresh one.  So a void branch capturing
// five references (40 bytes) still fits the payload in place.
template <class R>
inline constexpr bool stateless_result =
    std::is_empty_v<R> && std::is_trivially_default_constructible_v<R> && std::is_trivially_copyable_v<R>;

// In place (the common case: a lambda capturing by reference): a copy of the closure and room for
// its result fit in the frame's payload.  The copy is what a thief runs; the owner runs the
// original.  Only for closures whose copy behaves the same: trivially copyable and callable as
// const (not `mutable`).
template <class G>
struct branch_in_frame {
  using result_type = ret_t<G>;
  static constexpr std::size_t result_offset = align_up(sizeof(G), alignof(result_type));
  static constexpr std::size_t result_bytes = stateless_result<result_type> ? 0 : sizeof(result_type);
  static constexpr bool fits = std::is_trivially_copyable_v<G> && std::is_invocable_v<const G&> &&
                               alignof(G) <= 8 && alignof(result_type) <= 8 &&
                               result_offset + result_bytes <= frame_payload_bytes;

  struct holder {
    explicit holder(G*) noexcept {}
  };
  WEFT_INLINE static void store(frame* fr, G& g, holder&) noexcept { ::new (fr->payload) G(g); }
  static G& branch(frame* fr) noexcept { return *std::launder(reinterpret_cast<G*>(fr->payload)); }
  // The never-promoted join runs the frame's copy of the branch, not the caller's closure, when the
  // closure is one word, or three or four: its captures are then dead across the first branch
  // instead of held in callee-saved registers (a save and a restore each per call) — Lace's SYNC
  // runs its task from the copy in its deque too.  The frame is intact: a frame that was never
  // promoted is visible to no thief (push_frame), and only its owner writes it.  Lace's knapsack
  // (four captures): six saved registers → two, 16.6 % fewer instructions, ~0.8 of the time; fib
  // with `[n]`: 2 instructions a join beyond two calls instead of 6.  Measured, not derived (gcc 12,
  // callgrind of every bench kernel, docs/results/fine-grained.md, "The second branch from the
  // frame's copy"): two words lost (treesum's two references: +4 % instructions), and so did five,
  // mergesort's merge (+2.1 %: gcc turns that second branch, the function's last call, into a loop
  // with its values in registers).
  static constexpr bool owner_runs_copy =
      sizeof(G) <= sizeof(void*) || (sizeof(G) > 2 * sizeof(void*) && sizeof(G) <= 4 * sizeof(void*));
  // The owner runs the branch of a frame it took back (join_promoted) from a copy on its own stack:
  // the join has popped the frame, so the branch's first join, spawn or loop pushes its own frame
  // into this very slot — over the closure it would be running from.  (A thief runs the frame's copy
  // in place: the slot is not reused before its DONE.)
  static result_type run_on_owner(frame* fr) {
    const G g = branch(fr);
    return call(g);
  }
  // The thief's result, moved out and destroyed (join_stolen), or only destroyed (join_unwind).
  static result_type take_value(frame* fr) {
    if constexpr (stateless_result<result_type>) {
      return result_type{};
    } else {
      return take_and_destroy(*std::launder(reinterpret_cast<result_type*>(fr->payload + result_offset)));
    }
  }
  static void drop_value(frame* fr) noexcept {
    if constexpr (!stateless_result<result_type>)
      std::launder(reinterpret_cast<result_type*>(fr->payload + result_offset))->~result_type();
  }
  // Runs on a thief (WOOL Fig. 3 wrap_f).
  WEFT_TASK_FN static void run(frame* fr) {
    try {
      if constexpr (stateless_result<result_type>)
        call(branch(fr));
      else
        ::new (static_cast<void*>(fr->payload + result_offset)) result_type(call(branch(fr)));
    } catch (...) {
      fr->error = std::current_exception();
    }
  }
};

// Otherwise: a record on the owner's stack (the closure's address, room for the result), and its
// address in the payload.
template <class G>
struct branch_on_stack {
  using result_type = ret_t<G>;
  struct holder {
    G* g;
    alignas(result_type) unsigned char result[sizeof(result_type)];  // left uninitialized
    explicit holder(G* branch) noexcept : g(branch) {}
  };
  WEFT_INLINE static void store(frame* fr, G&, holder& h) noexcept {
    ::new (fr->payload) holder*(&h);
  }
  static holder& record(frame* fr) noexcept { return **std::launder(reinterpret_cast<holder**>(fr->payload)); }
  static G& branch(frame* fr) noexcept { return *record(fr).g; }
  static constexpr bool owner_runs_copy = false;
  // The closure is the owner's own (the frame holds the record's address, read before the call).
  static result_type run_on_owner(frame* fr) { return call(branch(fr)); }
  static result_type take_value(frame* fr) {
    return take_and_destroy(*std::launder(reinterpret_cast<result_type*>(record(fr).result)));
  }
  static void drop_value(frame* fr) noexcept {
    std::launder(reinterpret_cast<result_type*>(record(fr).result))->~result_type();
  }
  WEFT_TASK_FN static void run(frame* fr) {
    try {
      ::new (static_cast<void*>(record(fr).result)) result_type(call(branch(fr)));
    } catch (...) {
      fr->error = std::current_exception();
    }
  }
};

template <class G>
using branch_t = std::conditional_t<branch_in_frame<G>::fits, branch_in_frame<G>, branch_on_stack<G>>;

// Push: plain stores only (relaxed).  Nothing is published here: a frame becomes visible to thieves
// only through a promotion, which is an out-of-line call (so the compiler has written everything the
// branch needs to memory by then) ending in a release store — the deque's bottom index, or Wool's
// tagged state word (WOOL §III.A: "the write which makes the task stealable is the last write").
WEFT_INLINE void push_frame(hot_state& h, frame* fr, task_fn run) noexcept {
  WEFT_ASSERT(!task_state::is_stolen(fr->state.load(std::memory_order_relaxed)), "a frame pushed again while its thief still runs it (STOLEN, not DONE)");
  fr->state.store(task_state::task(run), std::memory_order_relaxed);
  h.top = fr + 1;
  ++h.joins;
}

// How the first branch's result reaches join_promoted: by value when its move cannot throw (then
// the fast path may keep it in a register: a reference would make it live in memory on every join,
// one store per join for nothing), by reference otherwise, moved only after the frame is reclaimed,
// so that a result move that throws leaves a join that owns its frame again, never one whose thief
// may still write to it.
template <class A>
using first_result_arg = std::conditional_t<std::is_nothrow_move_constructible_v<A>, A, A&>;

// What a thief left in a frame it ran to completion (reclaim() said `stolen`): its error, thrown, or
// its result.  The thief's result is destroyed on every way out (take_value), a throwing move
// included.
template <class G>
ret_t<G> stolen_result(frame* fr) {
  if (fr->error) {
    std::exception_ptr e = std::move(fr->error);
    fr->error = nullptr;
    std::rethrow_exception(e);
  }
  return branch_t<G>::take_value(fr);
}

// The join of a frame that a thief ran to completion.  Out of line: it happens at most once per steal.
template <class A, class G>
WEFT_NOINLINE std::pair<A, ret_t<G>> join_stolen(frame* fr, first_result_arg<A> a) {
  return {std::move(a), stolen_result<G>(fr)};
}

// The join of a promoted frame: out of line, it costs synchronization with thieves anyway.  It finds
// the branch through the frame (a copy of the in-place closure, or the record's pointer), so the
// fast path need not keep the closure's address alive.
template <class A, class G>
WEFT_NOINLINE std::pair<A, ret_t<G>> join_promoted(hot_state& h, frame* fr, first_result_arg<A> a) {
  if (reclaim(h, fr) == reclaimed::run_inline) return {std::move(a), branch_t<G>::run_on_owner(fr)};
  return join_stolen<A, G>(fr, static_cast<first_result_arg<A>&&>(a));
}

// The first branch threw while the second was promoted: take it back or wait for its thief.
template <class G>
WEFT_NOINLINE void join_unwind(hot_state& h, frame* fr) noexcept {
  if (reclaim_after_throw(h, fr) && !fr->error) branch_t<G>::drop_value(fr);
  fr->error = nullptr;  // the first branch's exception comes first in serial order
}

// A first branch that cannot throw (declared noexcept, its result made without a throwing copy)
// needs no cleanup around its call, and a join without one is a function without an exception
// landing pad: gcc then compiles a recursion of joins as it compiles the serial one — the base case
// tested before the prologue (shrink-wrapping), the last call turned into a loop — which it does not
// do in a function with a landing pad.  fib: 21–33 % less time (docs/results/fine-grained.md, "The
// first branch's landing pad").
template <class F>
inline constexpr bool cannot_throw =
    std::is_nothrow_invocable_v<F&> &&
    (std::is_void_v<std::invoke_result_t<F&>> || std::is_nothrow_constructible_v<ret_t<F>, std::invoke_result_t<F&>>);

// The first branch threw: its frame is popped and, if the second branch was promoted, taken back or
// waited for (join_unwind), while the exception passes — a cleanup, not a handler that catches and
// rethrows it.  A rethrow is a throw begun again: its search for a handler and its unwinding start
// anew at every join, and through nested joins each level cost what a catch-and-rethrow costs
// (2.7–2.8 µs a level on the Intel VM, 1.0–1.1 µs as a cleanup, 0.3 µs for the same recursion as
// plain calls; 10^6 nested joins 3.8 s → 1.07 s: docs/results/fine-grained.md, "An exception
// through nested joins").  A task that the waiting join_unwind leapfrogs runs with the thread's
// count of exceptions in flight set aside (execute_stolen), as on a thief.
// `threw` is cleared once the first result is made (in place: no move of it can throw before): the
// compiler then drops the test, and the cleanup, from every later way out.  A first branch that
// cannot throw gets none (cannot_throw: no landing pad).
template <class G, bool Eager>
struct first_branch_cleanup {
  hot_state& h;
  frame* fr;
  bool threw = true;
  WEFT_INLINE first_branch_cleanup(hot_state& hs, frame* f) noexcept : h(hs), fr(f) {}
  WEFT_INLINE ~first_branch_cleanup() {
    if (threw) [[unlikely]] {
      h.top = fr;
      if (Eager || must_reclaim(fr)) join_unwind<G>(h, fr);
    }
  }
};
struct no_cleanup {
  bool threw;
  WEFT_INLINE no_cleanup(hot_state&, frame*) noexcept {}
};

// After the push: run the first branch, pop, and run the second inline unless it was promoted (or,
// `Eager`, the frame promoted by join_eager, unless a thief took it: the eager join takes its frame
// back inline, and knows without a mark that it must).
template <class F, class G, bool Eager = false>
WEFT_INLINE std::pair<ret_t<F>, ret_t<G>> join_pushed(hot_state& h, frame* fr, F& f, G& g) {
  std::conditional_t<cannot_throw<F>, no_cleanup, first_branch_cleanup<G, Eager>> cleanup(h, fr);
  ret_t<F> a = call(f);
  cleanup.threw = false;
  h.top = fr;
  using A = first_result_arg<ret_t<F>>;
  if constexpr (Eager) {
    if (eager_reclaim(h, fr) == reclaimed::stolen) [[unlikely]]
      return join_stolen<ret_t<F>, G>(fr, static_cast<A&&>(a));
  } else if (must_reclaim(fr)) [[unlikely]] {
    return join_promoted<ret_t<F>, G>(h, fr, static_cast<A&&>(a));
  }
  if constexpr (!Eager && branch_t<G>::owner_runs_copy) {
    G copy = branch_t<G>::branch(fr);
    return {std::move(a), call(copy)};
  }
  return {std::move(a), call(g)};
}

// `OnWorker`: the caller is known to run on a pool worker outside the work/span mode — a loop's
// halving split (loops.hpp, for_tree and reduce_tree), which is made only where loops_run_as says
// `halving` on a worker, and whose pieces run only there and on that pool's thieves.  Such a join
// does not instantiate the paths it can never take (join_external: a root job entering the global
// pool; join_measured): a file of one parallel_for compiled 50 KB of code, 35 KB without them
// (stop 59's loopsize hunt, docs/results/ci-time.md).  Every other join passes false.
template <class F, class G, bool OnWorker = false>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_general(F f, G g);

// The branches as join_general takes them from the slow path: a loop's split halves (loops.hpp
// split_half: the same tree, adjacent bounds, and `shared_branch()`, the type shared by many call
// sites to run through) go on as that, so that the general path — promotion, the promoted join,
// the thief's entry, the fiber engine — is compiled once for all of them.  join_slow_halves and its
// eager path stay each call site's own: ws's loops split through them at every level, with the
// branches' calls direct and inlined (stop 60, docs/results/ci-time.md).
template <class F, class G>
concept split_halves = std::same_as<F, G> && requires(const F& f) {
  f.shared_branch();
  F{f.tree, f.lo, f.hi};
};

// Out of line: inlined, the shared branches' construction let gcc load both branches into
// registers at the slow path's entry, and ws's eager path (the likely one there) kept six registers
// more: spmv's splits +13 % instructions under ws (callgrind, stop 60).  Cold: from the slow path
// the general path is the unlikely one (ws: a full deque; the others: a promotion), and gcc lays
// the eager path out for that (ws spmv 11,601 -> 11,551 M, nqueens 4,262 -> 4,227 M at stop 60;
// with the halves by value, stop 61, the same counts with it or without).  The halves come as the
// tree's address and three bounds, in registers, as join_slow_halves takes them: from its entry
// the call is a jump.  (Stop 60 passed the two halves by reference: their addresses kept that call
// from being a jump, and gcc merged its result with the eager path's, building ws's
// pair<double, double> through the stack on every split: spmv +4.1 % instructions; stop 61.)
template <class H, bool OnWorker>
[[gnu::cold]] WEFT_NOINLINE std::pair<ret_t<H>, ret_t<H>> join_general_halves(decltype(H::tree) tree, decltype(H::lo) lo,
                                                                              decltype(H::lo) mid, decltype(H::lo) hi) {
  using S = decltype(std::declval<const H&>().shared_branch());
  return join_general<S, S, OnWorker>(H{tree, lo, mid}.shared_branch(), H{tree, mid, hi}.shared_branch());
}

template <class F, class G, bool OnWorker>
WEFT_INLINE std::pair<ret_t<F>, ret_t<G>> join_general_of(F& f, G& g) {
  if constexpr (split_halves<F, G>)
    return join_general_halves<F, OnWorker>(f.tree, f.lo, f.hi, g.hi);
  else
    return join_general<F, G, OnWorker>(std::move(f), std::move(g));
}

// The eager join (ws, ws-ap; eager.hpp): every frame promoted as it is pushed and taken back inline.
// Inlined into join_slow, so that a promotion costs the deque's push and pop and not two more
// out-of-line calls.  (Inlined into the fast path itself it costs the never-promoted join of every
// other policy ~10 instructions: gcc then keeps the branches in memory.)
template <class F, class G, bool OnWorker>
WEFT_INLINE std::pair<ret_t<F>, ret_t<G>> join_eager(hot_state& h, F& f, G& g) {
  WEFT_ASSERT(h.eager_deque != nullptr, "the poll word says eager on a worker without an eager deque");
  using B = branch_t<G>;
  typename B::holder holder(&g);
  frame* fr = h.top;
  B::store(fr, g, holder);
  push_frame(h, fr, &B::run);
  if (!eager_promote(h, fr)) [[unlikely]] {
    // The deque is full (it holds as many items as the task stack holds frames: only a ws-ap
    // loop's split-off ranges, which share it, can fill it).  The frame is taken off again, never
    // published, and the join is the general path's: its promotion leaves the frame latent, or, if
    // a thief has made room meanwhile, pushes and marks it as every other deque promotion does.
    h.top = fr;
    --h.joins;
    return join_general_of<F, G, OnWorker>(f, g);
  }
  return join_pushed<F, G, true>(h, fr, f, g);
}

template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_external(F f, G g);

// A branch counts as a call in the work/span mode's `calls` unit unless its type says it is weft's
// own plumbing (`static constexpr bool measured_as_call = false`): parallel_invoke's inner nodes,
// which are no call of the program, as a loop's splits are not (measured_loop).
template <class F>
constexpr bool measured_as_call() noexcept {
  if constexpr (requires { F::measured_as_call; })
    return F::measured_as_call;
  else
    return true;
}

// The work/span mode (work_span.hpp): the serial elision, each branch a measured call.
template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_measured(hot_state& h, F& f, G& g) {
  ++h.joins;
  measured_pair m(h, measured_as_call<F>());
  ret_t<F> a = call(f);
  m.second(measured_as_call<G>());
  return {std::move(a), call(g)};
}

// Is this join an eager one?  The poll word holds `always` and `eager` alone: a worker whose deque
// takes joins inline (eager.hpp), with no other reason to look (the work/span mode's `measure`
// included).
WEFT_INLINE bool eager_join(const hot_state& h) noexcept {
  return h.poll.load(std::memory_order_relaxed) == (poll_bit::always | poll_bit::eager);
}

// A poll found a reason to leave the fast path: not a worker, or the policy wants to look.  The
// branches come by value (moved), so that their addresses do not escape from the fast path: that
// would force the compiler to keep the closures in memory on the fast path too.
template <class F, class G, bool OnWorker>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_general(F f, G g) {
  using B = branch_t<G>;
  hot_state& h = tls_hot;
  if constexpr (!OnWorker) {
    if (h.self == nullptr) return join_external(std::move(f), std::move(g));
  }
  const std::uint32_t bits = h.poll.load(std::memory_order_relaxed);
  if constexpr (OnWorker) {
    // The work/span mode sets loops_run_as to `measured` with its poll bit (measured_root), so a
    // loop begun there is measured_loop's, never a halving split; a split's pieces run on the
    // worker that made it or on its pool's thieves, neither inside a measured job (one entered from
    // a piece's body — another pool's run — ends before the body returns).
    WEFT_ASSERT(h.self != nullptr, "a loop's halving split on a thread that is no pool worker");
    WEFT_ASSERT(!(bits & poll_bit::measure), "a loop's halving split inside the work/span mode");
  } else {
    if (bits & poll_bit::measure) return join_measured(h, f, g);
  }
  if (bits & poll_bit::fibers) return join_fibered(f, g);
  typename B::holder holder(&g);
  frame* fr = h.top;
  B::store(fr, g, holder);
  push_frame(h, fr, &B::run);
  promote_at_poll(h, fr);
  return join_pushed(h, fr, f, g);
}

// The eager join has this function to itself (its registers and its frame are what the eager join
// needs, nothing of the general path's); everything else goes on to join_general.
template <class F, class G, bool OnWorker = false>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_slow(F f, G g) {
  hot_state& h = tls_hot;
  if (eager_join(h)) [[likely]] return join_eager<F, G, OnWorker>(h, f, g);
  return join_general_of<F, G, OnWorker>(f, g);
}

// join_slow for a loop's split halves, which come as the tree's address and the three bounds: four
// scalar arguments, in registers.  As two split_halfs by value, 24 bytes each with a 64-bit index,
// they went through memory: the split stored 48 bytes of arguments on every slow-path join (every
// split under ws) and join_slow loaded them back (stop 61, docs/results/ci-time.md).  The body is
// join_slow's, written again: shared through an inlined function taking the branches by
// reference, it changed gcc's registers in weft::join's own join_slow (fib under ws).
template <class H, bool OnWorker>
WEFT_NOINLINE std::pair<ret_t<H>, ret_t<H>> join_slow_halves(decltype(H::tree) tree, decltype(H::lo) lo,
                                                             decltype(H::lo) mid, decltype(H::lo) hi) {
  H f{tree, lo, mid}, g{tree, mid, hi};
  hot_state& h = tls_hot;
  if (eager_join(h)) [[likely]] return join_eager<H, H, OnWorker>(h, f, g);
  return join_general_of<H, H, OnWorker>(f, g);
}

// The branch as join keeps it: a temporary closure is used as it is (a copy of it, run by a thief,
// is indistinguishable from it); an lvalue (a named function object, a function) is wrapped in a
// closure holding a reference to it, so it is always the caller's object that gets called.
template <class F>
WEFT_INLINE decltype(auto) as_branch(F&& f) {
  if constexpr (std::is_lvalue_reference_v<F&&>)
    return [&f]() -> decltype(auto) { return f(); };
  else
    return static_cast<F&&>(f);
}

// The by-value argument of join_slow, made inside the unlikely block.  Passed as `std::move(f)`,
// gcc builds a closure larger than two registers (passed in memory) where the caller makes it,
// before the poll, so every join paid the stores of the slow path's argument: knapsack's four
// captures, 4 stores per join (docs/results/fine-grained.md, "The slow path's arguments").  A
// prvalue made here is built in the block that uses it.
template <class T>
WEFT_INLINE std::remove_cv_t<T> slow_path_arg(T& t) {
  return std::move(t);
}

// A branch as join_slow takes it: by value (slow_path_arg) when that move cannot throw, else a
// closure holding a reference to it, as a named branch is kept (as_branch).  The serial elision
// moves no branch, nor does the fast path: a closure capturing an object whose move throws made a
// join throw whenever its poll sent it to the slow path (every join under ws, ws-ap, wool, adf, dfd,
// fifo; stop 48's exceptions hunt).  Only such closures pay for it (their address escapes).
template <class T>
WEFT_INLINE auto slow_path_branch(T& t) {
  if constexpr (std::is_nothrow_constructible_v<std::remove_cv_t<T>, T&&>)
    return slow_path_arg(t);
  else
    return [&t]() -> decltype(auto) { return t(); };
}

template <class F, class G, bool OnWorker = false>
WEFT_INLINE auto join_branches(F& f, G& g) {
  static_assert(result_movable<F> && result_movable<G>, WEFT_RESULT_MOVABLE_MESSAGE);
  using B = branch_t<G>;
  hot_state& h = tls_hot;
  if (poll_pending(h)) [[unlikely]] {
    if constexpr (split_halves<F, G>) {
      WEFT_ASSERT(f.tree == g.tree && f.hi == g.lo, "a split's halves are adjacent halves of one tree");
      return join_slow_halves<F, OnWorker>(f.tree, f.lo, f.hi, g.hi);
    } else {
      return join_slow<decltype(slow_path_branch(f)), decltype(slow_path_branch(g)), OnWorker>(slow_path_branch(f),
                                                                                                slow_path_branch(g));
    }
  }
  typename B::holder holder(&g);
  frame* fr = h.top;
  B::store(fr, g, holder);
  push_frame(h, fr, &B::run);
  return join_pushed<F, G>(h, fr, f, g);
}

// weft::join's body: each branch as join keeps it, then the join.  `OnWorker` as join_general's.
template <bool OnWorker, class F, class G>
WEFT_INLINE auto join_kept_branches(F&& f, G&& g) {
  auto&& fb = as_branch(std::forward<F>(f));
  auto&& gb = as_branch(std::forward<G>(g));
  return join_branches<std::remove_reference_t<decltype(fb)>, std::remove_reference_t<decltype(gb)>, OnWorker>(fb, gb);
}

// weft::join for a caller known to be on a pool worker outside the work/span mode (join_general's
// OnWorker): a loop's halving split.  The same fast path, the same slow path but the two ways in
// it can never take.
template <class F, class G>
WEFT_INLINE auto join_on_worker(F&& f, G&& g) {
  return join_kept_branches<true>(std::forward<F>(f), std::forward<G>(g));
}

}  // namespace detail

// f runs first on this worker; g is latent work that the policy may make stealable.
// Returns both results as a std::pair; a void branch gives weft::unit.
template <class F, class G>
WEFT_INLINE auto join(F&& f, G&& g) {
  // As spawn and parallel_invoke say it (a branch taking arguments failed in std::invoke_result,
  // several errors deep).
  static_assert(std::is_invocable_v<std::remove_reference_t<F>&> && std::is_invocable_v<std::remove_reference_t<G>&>,
                "weft::join: each branch must be callable with no arguments (capture what it needs)");
  return detail::join_kept_branches<false>(std::forward<F>(f), std::forward<G>(g));
}

}  // namespace weft
