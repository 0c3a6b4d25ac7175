// weft — parallel loops (SPEC §2).  No grain size is needed for speed: the policy decides where a
// loop's range is split.  `weft::grain` is an optional amortizing hint only (LS "ppt").
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <ranges>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/join.hpp"
#include "detail/loop.hpp"
#include "pool.hpp"

namespace weft {

namespace detail {
[[noreturn]] WEFT_NOINLINE inline void refuse_grain_zero() {
  throw std::invalid_argument("weft::grain: must be at least 1 (got 0)");
}
}  // namespace detail

// An amortizing hint (LS's "ppt"): a range of more than `value` iterations may be split in two
// halves, one of at most `value` is not (it runs as one piece, in index order, on one thread) — so
// a split's parts hold at least about value / 2 iterations.  Must be at least 1: the constructor
// refuses 0, and so does a loop given a grain whose `value` was set to 0 afterwards (a halving
// policy split a range of one iteration in two for ever: a stack overflow under ws, wool, adf, dfd
// and fifo, while the loop-frame policies ran it as grain 1).  The loop's check costs nothing where
// the grain is made at the call (the default, or grain{n}): the compiler knows it is not 0.
struct grain {
  std::size_t value = 1;
  grain() = default;  // 1: the default of every loop
  explicit grain(std::size_t v) : value(v) {
    if (v == 0) detail::refuse_grain_zero();
  }
};

namespace detail {

template <class I>
using uindex_t = std::make_unsigned_t<I>;

template <class I>
WEFT_INLINE uindex_t<I> range_size(I lo, I hi) noexcept {
  return uindex_t<I>(uindex_t<I>(hi) - uindex_t<I>(lo));
}

template <class I>
WEFT_INLINE I range_mid(I lo, I hi) noexcept {
  return I(uindex_t<I>(lo) + range_size(lo, hi) / 2);
}

// The lowest failure (lowest_failure, loop.hpp) of a loop split by halves (the halving policies: ws,
// wool, adf, dfd, fifo), in the loop's own index type: a piece that starts above it is skipped, as a
// loop frame's pieces skip.  Without it a loop whose first iteration throws ran the rest of its range
// on every thief: 10^8 cheap iterations 1.6 s under ws, 36 s under adf.  It lives in the frame of
// the loop's first call, which outlives every piece (a join returns, or throws, only once both its
// branches are done).
template <class I>
struct split_failure {
  I lo;
  lowest_failure failure;

  explicit split_failure(I first) noexcept : lo(first) {}
  bool skips(I first) const noexcept { return failure.skips(std::uint64_t(range_size(lo, first))); }
  void fail_at(I i) noexcept { failure.fail_at(std::uint64_t(range_size(lo, i))); }
};

// Splitting by halves through join: every split is a join whose second half is latent work, so the
// policy's promotion decides which halves become stealable (ws: all of them, eagerly).  The join is
// join_on_worker (join.hpp): a split is made and run only on a pool worker outside the work/span
// mode, so its slow path leaves out weft::join's entry into the global pool and its measured path
// (a file of one parallel_for: 50 → 35 KB of code, 18 KB with split out of line, below, and the
// global pool's re-entry out of line; stop 59's loopsize hunt, docs/results/ci-time.md).  A split
// is no join of the program's, though (SPEC §6: `joins` counts joins and scope spawns; a loop frame's
// splits count none either), so each one takes back, on the thread that is about to push it, the
// count its push will make (join.hpp push_frame; the fiber engine's fork, sched_fibers.cpp, counts
// on the same thread before the fiber can move, also when the fork then fails for want of fiber
// stacks: before stop 51 that left the count one low per failed split).
WEFT_INLINE void uncount_split() noexcept { --tls_hot.joins; }

// A split's branch as the join's general slow path takes it: half of a range, run by its tree
// through a function pointer.  The general path's functions are instantiated over the branch type
// (join_general and, for the frames it pushes, join_promoted and the thief's branch_in_frame::run;
// the fiber engine's fiber_branch and join_fibered): over a closure of the tree, each loop call
// site compiled all of them again, ~2.6 KB of its ~15 KB of code at -O3; over this, every loop of
// the same index and result types shares one copy (stop 60, docs/results/ci-time.md).  The frames
// the fast path pushes hold split_halfs, so their join_promoted and thief's entry stay per loop.
template <class R, class I>
struct range_half {
  R (*run)(const void* tree, I lo, I hi);
  const void* tree;
  I lo, hi;
  WEFT_INLINE R operator()() const { return run(tree, lo, hi); }
};

// A split's branch as the split makes it: this tree's half [lo, hi), called directly, 16 bytes (in
// registers, and two stores into the frame) with a 32-bit index, 24 with a 64-bit one.  The fast
// path and the slow path (join.hpp join_slow_halves, which takes the two halves as the tree and the
// three bounds; ws's eager join: every split of ws's loops) run it as that; the general path as its
// range_half (join.hpp, join_general_of).  All range_half at every step, ws's splits paid an
// indirect call and a call level per branch: 6-13 % more instructions for its loops (callgrind,
// stop 60).
template <class Tree, class R, class I>
struct split_half {
  const Tree* tree;
  I lo, hi;
  WEFT_INLINE R operator()() const { return tree->run(lo, hi); }
  range_half<R, I> shared_branch() const noexcept { return {&run_tree, tree, lo, hi}; }
  static R run_tree(const void* t, I lo, I hi) { return static_cast<const Tree*>(t)->run(lo, hi); }
};

// One loop split by halves: what every piece shares (the body or map and combine, the grain, the
// lowest failure), in the frame of the loop's first call, which outlives every piece.  A split's
// branches hold this tree's address and their two bounds (split_half: 16 bytes, they travel in
// registers and fit a frame's payload), and a piece is a call with three arguments.  With the shared parts
// passed one by one down the recursion (six arguments, branches capturing six references), a split
// and its leaf cost ~130 instructions beyond the body under wool, ~60 now (callgrind;
// docs/results/small-work.md, "Stop 49: the halving policies' splits, cheaper").
template <class I, class Body>
struct for_tree {
  Body& body;
  uindex_t<I> grain;
  split_failure<I>& failure;

  // A piece: a leaf runs here, a longer one splits.  Half the calls of a tree are leaves, and
  // reached through `split` they paid its prologue and epilogue (the registers it keeps across
  // its join).
  WEFT_INLINE void run(I lo, I hi) const {
    if (range_size(lo, hi) > grain)
      split(lo, hi);
    else
      leaf(lo, hi);
  }
  // Never inlined: the join's slow-path functions (join_slow, join_general, join_promoted, the
  // thief's branch_in_frame::run, the fiber engine's) each run a branch, `run`, and gcc inlined one
  // level of split into them or two, and two levels into split itself, as its unit's inlining
  // budget allowed — so a split's code changed with what else the file held (join_on_worker's
  // smaller slow path made wool's stream +1.45 % instructions through join_general).  Called
  // instead, a call site compiles one split; under wool (callgrind, --size quick, 1 worker, against
  // stop 58's code) stream +0.58 % (a call per level of its recursion), flat_spmv -2.5 %, spmv and
  // nqueens -0.1 % (stop 59's loopsize hunt, docs/results/ci-time.md).
  WEFT_NOINLINE void split(I lo, I hi) const {
    if (failure.skips(lo)) return;
    const I mid = range_mid(lo, hi);
    uncount_split();
    using half = split_half<for_tree, void, I>;
    join_on_worker(half{this, lo, mid}, half{this, mid, hi});
  }
  // The body gets a copy of the index (a prvalue), as the loop frames' loop_body passes its own
  // parameter: given `i` itself, a body taking `auto&&` that changed its index moved this loop's
  // counter (512 of 1000 iterations ran under ws with grain 16: stop 52's loopshape hunt).  The
  // same code for a body taking its index by value or const reference.
  void leaf(I lo, I hi) const {
    if (failure.skips(lo)) return;
    I i = lo;
    try {
      for (; i < hi; ++i) body(I(i));
    } catch (...) {
      failure.fail_at(i);
      tls_hot.loop_iterations += range_size(lo, i);
      throw;
    }
    tls_hot.loop_iterations += range_size(lo, hi);
  }
};

// A reduction's piece that is skipped (it starts above a failure) has no value to return: it throws
// a skipped_piece instead, which never leaves the loop.  The failure's iteration f is below the
// piece, so the two meet at a join whose first branch holds f: that branch throws the failure's
// exception, and a join whose first branch throws rethrows that one (join.hpp, fiber_join.hpp) —
// the skipped piece's marker is dropped there.  (Returned as std::optional<T>, every split paid
// for the empty state: gcc moved the pair of optionals through the stack, ~16 stores and loads a
// split.)  Thrown only after a failure, a few times per worker: its cost does not matter.
struct skipped_piece {};

template <class T, class I, class Map, class Combine>
struct reduce_tree {
  Map& map;
  Combine& combine;
  uindex_t<I> grain;
  split_failure<I>& failure;

  WEFT_INLINE T run(I lo, I hi) const {
    if (range_size(lo, hi) > grain) return split(lo, hi);
    return leaf(lo, hi);
  }
  WEFT_NOINLINE T split(I lo, I hi) const {  // never inlined: as for_tree::split
    if (failure.skips(lo)) throw skipped_piece{};
    const I mid = range_mid(lo, hi);
    uncount_split();
    using half = split_half<reduce_tree, T, I>;
    auto [x, y] = join_on_worker(half{this, lo, mid}, half{this, mid, hi});
    return combine(std::move(x), std::move(y));
  }
  T leaf(I lo, I hi) const {
    if (failure.skips(lo)) throw skipped_piece{};
    I i = lo;
    try {
      T acc = map(lo);
      for (++i; i < hi; ++i) acc = combine(std::move(acc), map(i));
      tls_hot.loop_iterations += range_size(lo, hi);
      return acc;
    } catch (...) {
      failure.fail_at(i);
      tls_hot.loop_iterations += range_size(lo, i);
      throw;
    }
  }
};

template <class I>
uindex_t<I> grain_for(std::size_t g) noexcept {
  return g > std::size_t(uindex_t<I>(-1)) ? uindex_t<I>(-1) : uindex_t<I>(g);
}

// A loop's body as the pieces of the loop call it (returning R; unit for parallel_for's body).  It
// holds a copy of the function object when a copy behaves the same (trivially copyable and callable
// as const: the rule branch_in_frame uses for a join's branch), else a reference to it.  A named
// function object (an lvalue) never gets here as itself: parallel_for and parallel_reduce wrap it
// in called_in_place, whose copies all call the caller's object.
// Each piece copies this wrapper into a local (adaptive_loop::run_chunks), so that a copied body's
// captures stay in registers for the whole piece: reached through the loop's shared state instead,
// they are reloaded from memory around every poll, an opaque call (a CSR row loop paid about 18
// instructions a row for that, issue 10).
template <class F, class I>
inline constexpr bool copy_behaves_same = std::is_trivially_copyable_v<F> && std::is_invocable_v<const F&, I>;

// A named body or map, as the loop calls it: in place, through its address — the caller's object,
// as the serial elision calls it and as join calls a named branch (join.hpp, as_branch).  A copy
// differs where the object's const call changes it (a `mutable` member: stop 42's bug hunt, a
// counter of calls that read 0 under serial and the loop-frame policies, 1000 under the halving
// ones).  The wrapper is trivially copyable, so the pieces copy it (a pointer) into their
// registers.  A temporary is still copied: nobody else can call it, so only its own calls could tell.
template <class F>
struct called_in_place {
  F* f;
  template <class I>
  WEFT_INLINE decltype(auto) operator()(I i) const {
    return (*f)(static_cast<I&&>(i));
  }
};

// The index reaches the body as an rvalue, its own copy (README: "an rvalue of the bounds' common
// type"), as for_tree::leaf and measured_loop pass it and as index_callable checks it: until stop
// 58's loopsuser hunt this wrapper and called_in_place passed their parameter as an lvalue, so a
// body taking `int&&`, which the constraint lets through, failed to compile deep in the engine
// ("cannot bind rvalue reference"), and a body overloaded on the index's value category (`auto&&`
// seeing `int&` or `int&&`) took one overload under the loop-frame policies and named bodies, the
// other under the halving ones.  A cast of a scalar parameter: the same code.
//
// The copy is called as the object it copies, non-const (`mutable`, as the pieces hold the wrapper
// in const locals), as the serial elision `for (...) body(i);` calls a body and as the halving
// policies' trees and a named body's called_in_place call it: a temporary function object whose
// call operator is overloaded on const took its const overload under the loop-frame policies and in
// every reduction, its non-const one in a parallel_for under ws, wool, adf, dfd and fifo (stop 58's
// loopsuser hunt).  A lambda's call operator is const only, so its loop compiles as before.
template <class F>
struct body_copy {
  mutable std::remove_const_t<F> f;  // a const F (a const temporary) is still called as const: get()
  WEFT_INLINE F& get() const noexcept { return f; }
};
template <class F>
struct body_ref {
  F& f;
  WEFT_INLINE F& get() const noexcept { return f; }
};
template <class R, class F, class I>
struct loop_body {
  std::conditional_t<copy_behaves_same<F, I>, body_copy<F>, body_ref<F>> f;
  WEFT_INLINE R operator()(I i) const {
    if constexpr (std::is_same_v<R, unit>) {
      f.get()(static_cast<I&&>(i));
      return unit{};
    } else {
      return f.get()(static_cast<I&&>(i));
    }
  }
};

// The work/span mode (work_span.hpp): iterations [b, e) as a balanced tree of measured splits,
// each iteration one call; the tree gives the burdened span of a loop split in halves.  Split down
// to the grain, as the halving policies split (a range of at most `grain` iterations is one piece,
// run in index order on one thread: README, weft::grain): such a piece's iterations are calls one
// after the other on one path.  Split down to single iterations whatever the grain, a loop of 1000
// iterations given grain{1000}, which never runs on two threads, measured span 2 and parallelism
// 500 in `calls` (a bug hunt of the loop API).  Never inlined: gcc unrolled levels of this
// recursion into run_loop_otherwise, 2.2 KB a loop call site for a mode that measures calls, not
// time (stop 60).
template <class T, class I, class Map, class Combine>
WEFT_NOINLINE T measured_loop(I lo, std::uint64_t b, std::uint64_t e, Map& map, Combine& combine, std::uint64_t grain) {
  hot_state& h = tls_hot;
  if (e - b <= grain) {
    // A loop of one piece forks nothing: its body is a branch all the same (measured_unforked; in
    // a split, each half has a path of its own already, and this one is another).
    const measured_unforked own(h);
    const auto one = [&](std::uint64_t k) {
      measure_call(h);
      // Counted once it returns, as the loop engines count (an iteration that throws is no
      // iteration run: loops.hpp's split loops, loop.hpp's chunks); counted before it, a loop that
      // threw read one iteration more measured than under every policy (stop 47's seeing-inside hunt).
      T x = map(I(uindex_t<I>(uindex_t<I>(lo) + uindex_t<I>(k))));
      ++h.loop_iterations;
      return x;
    };
    T acc = one(b);
    for (std::uint64_t k = b + 1; k < e; ++k) acc = combine(std::move(acc), one(k));
    return acc;
  }
  const std::uint64_t mid = b + (e - b) / 2;
  measured_pair m(h, false);
  T x = measured_loop<T>(lo, b, mid, map, combine, grain);
  m.second(false);
  T y = measured_loop<T>(lo, mid, e, map, combine, grain);
  return combine(std::move(x), std::move(y));
}

// parallel_reduce's loop frame under the lazy policies, heartbeat and serial (one frame per running
// piece; its head is adaptive_loop::run_reduce), inlined only where the compiler chooses.  Forced
// into a caller's loop, spmv's 100-term rows ran 20 % slower with as many instructions (the
// reduction's chain of combines is laid out worse there; docs/results/loops.md, "A loop piece's
// fixed costs").
template <class T, class I, class Map, class Combine>
std::optional<T> reduce_loop_frame(I lo, I hi, Map& map, Combine& combine, std::size_t grain) {
  WEFT_ASSERT(tls_hot.self != nullptr, "a loop-frame style on a thread that is no pool worker (loops_run_as is set with self)");
  using L = adaptive_loop<I, T, Map, Combine>;
  typename L::shared_state sh = L::shared(lo, map, combine, grain);
  return L::run_reduce(tls_hot, sh, std::uint64_t(range_size(lo, hi)));
}

// A loop on a pool thread whose policy does not run loops as plain loop frames: ws-ap's partitioned
// frames, or the work/span mode's measured tree.  (Halving policies and threads outside a pool are
// handled by the callers, which know how to re-enter themselves.)  Out of line, so that the fast
// path of parallel_for and parallel_reduce stays small.  ws-ap's first piece is run_piece inlined
// here, its partitioner known on: through adaptive_loop::run, the out-of-line entry its children
// take (1.8 KB less code per loop call site), nqueens' nested 12-candidate loops cost ws-ap 2.5-5 %
// more instructions (callgrind, stop 60).
template <class T, class I, class Map, class Combine>
WEFT_NOINLINE std::optional<T> run_loop_otherwise(I lo, I hi, Map& map, Combine& combine, std::size_t grain) {
  if (tls_hot.loops_run_as == loop_style::measured)
    return measured_loop<T>(lo, 0, std::uint64_t(range_size(lo, hi)), map, combine, std::uint64_t(grain));
  // ws-ap's loop frame: TBB's auto partitioner splits it.
  using L = adaptive_loop<I, T, Map, Combine>;
  typename L::shared_state sh = L::shared(lo, map, combine, grain);
  return L::run_piece(tls_hot, sh, 0, std::uint64_t(range_size(lo, hi)), 0, true);
}

struct unit_combine {
  unit operator()(unit, unit) const noexcept { return {}; }
};

// parallel_reduce's combine as the loop engine calls it (two values by value, one back).  A named
// type, not a lambda in each caller: the engine is a template over it, and a lambda would be a new
// type in parallel_reduce (once for each reference kind of its arguments: the global pool's
// re-entry passes lvalues) and in parallel_reduce_off_fast_path, so each call site compiled the
// whole adaptive_loop three times (70 % of the loop code in an object file of many reductions).
template <class T, class Combine>
struct value_combine {
  Combine& combine;
  T operator()(T x, T y) const { return combine(std::move(x), std::move(y)); }
};

// parallel_for's loop frame on its fast path (the lazy policies, heartbeat, serial): one frame per
// running piece, its first chunks inlined here (adaptive_loop::run_for).
template <class I, class Body>
WEFT_INLINE_FOR_SPEED void run_for_frame(I lo, I hi, Body& each, unit_combine& none, std::size_t grain) {
  WEFT_ASSERT(tls_hot.self != nullptr, "a loop-frame style on a thread that is no pool worker (loops_run_as is set with self)");
  using L = adaptive_loop<I, unit, Body, unit_combine>;
  typename L::shared_state sh = L::shared(lo, each, none, grain);
  L::run_for(tls_hot, sh, each, lo, std::uint64_t(range_size(lo, hi)));
}

// parallel_for and parallel_reduce off their fast path (a pool worker whose policy runs loops as
// loop frames: the lazy policies, heartbeat, serial): a thread outside any pool enters the global
// one; a halving policy (ws, wool, the space-efficient ones) splits the range by joins; ws-ap and the
// work/span mode go to run_loop_otherwise.  A thread outside a pool always reads loop_style::halving
// (hot_state's default; a pool sets its policy's style with `self` and restores both together).
template <class I, class Body>
WEFT_NOINLINE void parallel_for_off_fast_path(I lo, I hi, Body& body, grain g);

template <class I, class T, class Map, class Combine>
WEFT_NOINLINE T parallel_reduce_off_fast_path(I lo, I hi, T init, Map& map, Combine& combine, grain g);

}  // namespace detail

namespace detail {
// A loop's bound: any integer type but bool (whose "range" has no ++).
template <class T>
concept loop_bound = std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool> && sizeof(T) <= 8;
// What a reduction's partial results need: the pieces' values are moved and assigned.
template <class T>
inline constexpr bool reducible_v = std::is_move_constructible_v<T> && std::is_move_assignable_v<T>;
// A body or map over [lo, hi), as every engine calls it: through an lvalue of the function object,
// with each iteration's own copy of the index, an rvalue of the bounds' common type (loop_body,
// for_tree::leaf, measured_loop).  So it may take the index by value (converted to any integer type,
// as the serial `for` converts), by const reference, by `auto` or `auto&&`, but not by non-const
// lvalue reference: that could change only a copy, never the loop.  What it returns is discarded
// (a parallel_for's) or checked by parallel_reduce's static_assert.  Constrained, not asserted, so
// that a requires-expression sees a wrong body as ill-formed; the deleted overloads at the end of
// this file name the rule.  Compile time only: no loop's code changes.
template <class F, class I>
concept index_callable = std::invocable<std::remove_reference_t<F>&, I>;
// Everything parallel_reduce's static_asserts check (result type, map's result, combine's shape),
// over the index type I or a range's reference type: where it fails, the reduction instantiates
// nothing past its static_asserts, so their message is the only error.  Instantiated on, the engine
// added its own on the same misuse ("no match for call", "cannot bind non-const lvalue reference")
// — over a std::vector<bool>, whose blocks fold in loops.hpp, before weft's message (stop 52's
// loopshape hunt).
template <class T, class M, class C, class I>
inline constexpr bool reduce_shapes_ok =
    reducible_v<T> && std::is_invocable_r_v<T, M&, I> && std::is_invocable_r_v<T, C&, T, T>;
}  // namespace detail

// Runs body(i) for every i in [lo, hi) (any integer types; an empty or reversed range runs nothing).
template <detail::loop_bound L, detail::loop_bound H, class Body>
  requires detail::index_callable<Body, std::common_type_t<L, H>>
void parallel_for(L lo, H hi, Body&& body, grain g = grain{}) {
  if (g.value == 0) [[unlikely]] detail::refuse_grain_zero();
  using I = std::common_type_t<L, H>;
  if (!(I(lo) < I(hi))) return;
  using B = std::remove_reference_t<Body>;
  if constexpr (std::is_lvalue_reference_v<Body> && detail::copy_behaves_same<B, I>) {
    return parallel_for(lo, hi, detail::called_in_place<B>{std::addressof(body)}, g);
  }
  if (detail::tls_hot.loops_run_as == detail::loop_style::loop_frame) [[likely]] {
    detail::loop_body<unit, B, I> each{body};
    detail::unit_combine none;
    detail::run_for_frame(I(lo), I(hi), each, none, g.value);
    return;
  }
  detail::parallel_for_off_fast_path<I, B>(I(lo), I(hi), body, g);
}

// combine(init, combine(map(lo), ..., map(hi-1))) with combine applied in index order (it must be
// associative; it need not be commutative).  An empty range gives init.
template <detail::loop_bound L, detail::loop_bound H, class T, class Map, class Combine>
  requires detail::index_callable<Map, std::common_type_t<L, H>>
T parallel_reduce(L lo, H hi, T init, Map&& map, Combine&& combine, grain g = grain{}) {
  static_assert(detail::reducible_v<T>,
                "weft::parallel_reduce: the result type must be move-constructible and move-assignable "
                "(the pieces' partial results are moved and assigned); wrap it, e.g. in std::optional");
  using I = std::common_type_t<L, H>;
  using M = std::remove_reference_t<Map>;
  using C = std::remove_reference_t<Combine>;
  // What the engine does with map and combine (loop_body, value_combine), said where the user's call
  // is: a map returning void, or a combine taking T& (an accumulator updated in place, TBB's style),
  // failed deep in the loop engine ("void value not ignored", "cannot bind non-const lvalue reference").
  static_assert(std::is_invocable_r_v<T, M&, I>,
                "weft::parallel_reduce: map(i) must return a value convertible to the result type (the type of "
                "init): each is made one before it is combined");
  static_assert(std::is_invocable_r_v<T, C&, T, T>,
                "weft::parallel_reduce: combine is called with two partial results as rvalues, combine(T&&, T&&), "
                "and must return a value convertible to T: take its arguments by value, const T& or T&&, not T&");
  if constexpr (!detail::reduce_shapes_ok<T, M, C, I>) {
    std::abort();  // never compiled into a program: a static_assert above has failed
  } else {
    if (g.value == 0) [[unlikely]] detail::refuse_grain_zero();
    if (!(I(lo) < I(hi))) return init;
    if constexpr (std::is_lvalue_reference_v<Map> && detail::copy_behaves_same<M, I>) {
      return parallel_reduce(lo, hi, std::move(init), detail::called_in_place<M>{std::addressof(map)},
                             std::forward<Combine>(combine), g);
    }
    if (detail::tls_hot.loops_run_as == detail::loop_style::loop_frame) [[likely]] {
      detail::loop_body<T, M, I> each{map};
      detail::value_combine<T, C> both{combine};
      std::optional<T> rest = detail::reduce_loop_frame<T>(I(lo), I(hi), each, both, g.value);
      return combine(std::move(init), std::move(*rest));
    }
    return detail::parallel_reduce_off_fast_path<I, T, M, C>(I(lo), I(hi), std::move(init), map, combine, g);
  }
}

namespace detail {

// The body or map as the global pool's re-entry passes it on: one the public entry let through as a
// copyable type came as a temporary or as its called_in_place (an lvalue is wrapped before it gets
// here), so it goes on as an rvalue — passed as an lvalue it would be wrapped again, and a
// temporary's copy into the pieces lost; any other goes on as the lvalue it is.
template <class F, class I>
WEFT_INLINE decltype(auto) as_forwarded(F& f) noexcept {
  if constexpr (copy_behaves_same<F, I>)
    return static_cast<F&&>(f);
  else
    return (f);
}

template <class I, class Body>
void parallel_for_off_fast_path(I lo, I hi, Body& body, grain g) {
  if (tls_hot.self == nullptr) {
    // A body that reached here as a copyable temporary (or a called_in_place) goes on as one.
    auto again = [&] { parallel_for(lo, hi, as_forwarded<Body, I>(body), g); };
    run_on_global_pool(again);
    return;
  }
  if (tls_hot.loops_run_as == loop_style::halving) {
    // A range of one leaf pushes no frame: the body is a branch all the same (leave_scope_level).
    leave_scope_level(tls_hot);
    split_failure<I> failure(lo);
    const for_tree<I, Body> tree{body, grain_for<I>(g.value), failure};
    tree.run(lo, hi);
    return;
  }
  loop_body<unit, Body, I> each{body};
  unit_combine none;
  run_loop_otherwise<unit>(lo, hi, each, none, g.value);
}

template <class I, class T, class Map, class Combine>
T parallel_reduce_off_fast_path(I lo, I hi, T init, Map& map, Combine& combine, grain g) {
  if (tls_hot.self == nullptr) {
    // The result made in place from the call, as pool::run makes a job's (root_result_slot), and
    // moved out once.
    root_result_slot<T> out;
    auto again = [&] {
      out.make([&] { return parallel_reduce(lo, hi, std::move(init), as_forwarded<Map, I>(map), combine, g); });
    };
    run_on_global_pool(again);
    return std::move(out.value);
  }
  if (tls_hot.loops_run_as == loop_style::halving) {
    leave_scope_level(tls_hot);  // as parallel_for's
    split_failure<I> failure(lo);
    // Through loop_body, as the loop frames call it: each map(i) is made a T before it is combined.
    // Called raw, a piece of more than one iteration passed map's own type to combine (`acc =
    // combine(acc, map(i))`), and a generic combine over a map of another type gave another sum: an
    // int reduction of doubles 1.5, -0.5, ... was 500 under serial and the loop-frame policies, 8
    // under ws, wool, adf, dfd and fifo with grain 64 (stop 46's results hunt).
    loop_body<T, Map, I> each{map};
    // And combine through value_combine, as the loop frames call it: a combine that returns a
    // reference to its first argument (`-> T&& { a += b; return std::move(a); }`) was assigned to
    // that very accumulator (`acc = combine(std::move(acc), ...)`, a self-move-assignment, which
    // empties a std::vector in libstdc++): such a loop returned init alone under these policies with a
    // grain above 1 (stop 46's results hunt).
    value_combine<T, Combine> both{combine};
    const reduce_tree<T, I, loop_body<T, Map, I>, value_combine<T, Combine>> tree{each, both, grain_for<I>(g.value), failure};
    // The whole range starts at no failure: it is never skipped (skipped_piece stays inside).
    T rest = tree.run(lo, hi);
    return combine(std::move(init), std::move(rest));
  }
  loop_body<T, Map, I> each{map};
  value_combine<T, Combine> both{combine};
  std::optional<T> rest = run_loop_otherwise<T>(lo, hi, each, both, g.value);
  return combine(std::move(init), std::move(*rest));
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The same loops over a random-access range (a vector, std::array, span, iota view, a subrange of a
// deque, a transform view over any of these): the index loops above over [0, size), each index
// turned into an element by the range's iterator — so they share the index loops' engine, their
// exception order (the lowest index's exception wins) and their serial elision
// (`for (auto&& x : r) body(x);`).  The size must be known up front to split the range: a sized
// range says it (a random-access range whose sentinel is its iterator type always can); one that is
// not (a take_while view: its end is where a predicate first fails) is measured first, by walking
// its iterator to the sentinel as `std::ranges::distance` does.  An unbounded one (an iota view
// with no end) has no size and is refused at compile time.

namespace detail {

template <class R>
concept unbounded_range = std::same_as<std::ranges::sentinel_t<R>, std::unreachable_sentinel_t>;

template <class R>
concept indexable_range = std::ranges::random_access_range<R> && !unbounded_range<R>;

// The element at offset i, through a copy of the range's first iterator (copies of an iterator are
// independent, and `first[n]` is a const operation on it: the pieces of a loop may share it).
template <class It>
struct element_at {
  It first;
  WEFT_INLINE decltype(auto) operator()(std::size_t i) const {
    return first[static_cast<std::iter_difference_t<It>>(i)];
  }
};

// std::vector<bool> (any allocator) written through: its elements are bits packed into shared words,
// and two threads writing bits of one word race (the standard exempts vector<bool> from the
// guarantee that distinct elements may be modified concurrently).  Such a loop runs over blocks of
// bits_per_block elements instead: a block is a whole number of words whatever the word type (8
// to 512 bits; element 0 starts a word), its elements run in order on one thread, so the loop
// writes as its serial elision does (a parallel_for over a vector<bool> at 4 workers under ws lost
// ~14 of 2,000,000 writes).  A class derived from one (publicly) is one too: its elements are the
// vector's, element 0 at a word's start (until stop 55 only the vector itself was rounded: a
// derived class ran element by element and raced, found by stop 55's rangesrt hunt).  A const
// vector<bool>, or a view or subrange of one, is not rounded so: reading is safe, and a view's
// elements need not start a word.
template <class A>
std::true_type bit_vector_base(std::vector<bool, A>*);  // declared only: overload resolution finds A
template <class R>
inline constexpr bool bit_vector_v = requires(R* r) {
  { detail::bit_vector_base(r) } -> std::same_as<std::true_type>;
};
inline constexpr std::size_t bits_per_block = 512;

// Before the loop starts, on the calling thread.  A range that is not sized is walked to its end
// (for a take_while view, its predicate evaluated on each element up to the first that fails —
// before any body runs, where the serial elision interleaves the two: a body that changes what the
// predicate reads sees a different end).
[[noreturn]] WEFT_NOINLINE inline void refuse_range_size() {
  throw std::length_error(
      "weft::parallel_for / weft::parallel_reduce: the range has more than 2^64 - 1 elements (SIZE_MAX), the most "
      "a loop counts (its iterations are counted in 64 bits): split it into ranges of at most that many");
}

// A size in the range's own type (128 bits for an iota view of 64- or 128-bit integers), checked to
// fit size_t: only an iota view of __int128 (an integral type under -std=gnu++20) can hold more, and
// cut to 64 bits its size ran modulo 2^64 — iota(0, 2^64 + 5) ran 5 iterations (a bug hunt of the
// loop API), as the index loops refuse __int128 bounds at compile time for.
template <class S>
std::size_t checked_size(S s) {
  if constexpr (sizeof(S) > sizeof(std::size_t)) {
    if (s > static_cast<S>(std::numeric_limits<std::size_t>::max())) refuse_range_size();
  }
  return static_cast<std::size_t>(s);
}

template <class R>
std::size_t size_of(R& r) {
  if constexpr (std::ranges::sized_range<R>)
    return checked_size(std::ranges::size(r));
  else
    return checked_size(std::ranges::distance(r));
}

}  // namespace detail

// Runs body(x) for every element x of r; x is a reference into r where r yields references, so
// `body = [](auto& x) { x *= 2; }` writes through.  Overloads with the integer form cannot clash:
// that one needs two integers first, this one a range.  The body (and parallel_reduce's map) is
// called through std::invoke, as the constraint std::invocable promises and std::ranges::for_each
// does: a pointer to a member function or data member works too (`parallel_for(v, &S::update)`;
// called as `body(x)`, it passed the constraint and then failed to compile: a bug hunt of the loop API).
template <class R, class Body>
  requires detail::indexable_range<R> && std::invocable<Body&, std::ranges::range_reference_t<R>>
void parallel_for(R&& r, Body&& body, grain g = grain{}) {
  const detail::element_at<std::ranges::iterator_t<R>> at{std::ranges::begin(r)};
  const std::size_t n = detail::size_of(r);
  if constexpr (detail::bit_vector_v<std::remove_reference_t<R>>) {
    // Blocks of whole words (bit_vector_v); the grain, in elements, rounded up to blocks (0 stays
    // 0: refused by the index loop).  The loop counts a block as one iteration; its other elements
    // are added here, so that loop_iterations still counts elements.  The work/span mode measures
    // the blocks as they run, each on one thread, with every element an iteration, one call: the
    // loop's own measure counts a block's first element, and its others are counted here, one
    // after the other on the block's path.  Until stop 54's workspan hunt the
    // mode split the elements down to single ones instead: 2,000 elements, never on more than 4
    // threads, measured span 2; and before stop 47's seeing-inside hunt a block was one call.
    constexpr std::size_t b = detail::bits_per_block;
    grain blocks;
    blocks.value = g.value / b + (g.value % b != 0);
    parallel_for(std::size_t(0), n / b + (n % b != 0), [at, &body, n](std::size_t k) {
      const std::size_t first = k * b, last = std::min(n, first + b);
      const bool measured = detail::tls_hot.loops_run_as == detail::loop_style::measured;
      std::size_t i = first;
      try {
        if (!measured) [[likely]] {
          for (; i < last; ++i) std::invoke(body, at(i));
        } else {
          for (; i < last; ++i) {
            if (i != first) detail::measure_call(detail::tls_hot);
            std::invoke(body, at(i));
          }
        }
      } catch (...) {  // the block is no iteration run; the elements before i each are
        detail::tls_hot.loop_iterations += i - first;
        throw;
      }
      detail::tls_hot.loop_iterations += last - first - 1;
    }, blocks);
    return;
  }
  parallel_for(std::size_t(0), n, [at, &body](std::size_t i) { std::invoke(body, at(i)); }, g);
}

// combine(init, combine(map(x0), ..., map(x_n-1))) over the elements of r, in their order (combine
// associative, not necessarily commutative); an empty range gives init.
template <class R, class T, class Map, class Combine>
  requires detail::indexable_range<R> && std::invocable<Map&, std::ranges::range_reference_t<R>>
T parallel_reduce(R&& r, T init, Map&& map, Combine&& combine, grain g = grain{}) {
  static_assert(std::is_invocable_r_v<T, Map&, std::ranges::range_reference_t<R>>,
                "weft::parallel_reduce: map(x) must return a value convertible to the result type (the type of "
                "init): each is made one before it is combined");
  // The rest is checked by the index form this one calls (its static_asserts, with the combine's
  // message); the vector<bool> blocks below are not instantiated without them (reduce_shapes_ok).
  constexpr bool shapes_ok = detail::reduce_shapes_ok<T, std::remove_reference_t<Map>, std::remove_reference_t<Combine>,
                                                      std::ranges::range_reference_t<R>>;
  const detail::element_at<std::ranges::iterator_t<R>> at{std::ranges::begin(r)};
  if constexpr (detail::bit_vector_v<std::remove_reference_t<R>> && shapes_ok) {
    // A (non-const) std::vector<bool>: the map gets a proxy reference and may write through it, as
    // parallel_for's body may, so the elements run in whole-word blocks here too (parallel_for over
    // a vector<bool>, above, which the work/span mode measures as it runs too).  Run element by
    // element, a map that set each bit lost writes: ~400 of 10,000,000 under adf at 4 and 8
    // workers, ~20 under wool at 8 (a bug hunt of the loop API).  A block is one partial value, its
    // elements folded in order, so the result is the serial elision's left fold regrouped (combine
    // is associative); the loop counts a block as one iteration, its other elements are added here.
    constexpr std::size_t b = detail::bits_per_block;
    const std::size_t n = detail::size_of(r);
    grain blocks;
    blocks.value = g.value / b + (g.value % b != 0);
    const auto one = [&at, &map](std::size_t i) -> T { return std::invoke(map, at(i)); };
    detail::value_combine<T, std::remove_reference_t<Combine>> both{combine};
    return parallel_reduce(std::size_t(0), n / b + (n % b != 0), std::move(init), [&one, &both, n](std::size_t k) -> T {
      const std::size_t first = k * b, last = std::min(n, first + b);
      const bool measured = detail::tls_hot.loops_run_as == detail::loop_style::measured;
      std::size_t i = first;
      try {
        T acc = one(i);
        for (++i; i < last; ++i) {
          if (measured) detail::measure_call(detail::tls_hot);  // as parallel_for's blocks, above
          acc = both(std::move(acc), one(i));
        }
        detail::tls_hot.loop_iterations += last - first - 1;
        return acc;
      } catch (...) {  // the block is no iteration run; the elements before i each are
        detail::tls_hot.loop_iterations += i - first;
        throw;
      }
    }, combine, blocks);
  }
  // Made a T here, as the index form makes each map(i) one: a map such as std::identity returns a
  // reference to its argument, which for a view of values (iota, transform) is a temporary that
  // dies at the end of this return statement, and a reference to a move-only element cannot be
  // returned by value (a copy: it did not compile until stop 46's results hunt).
  return parallel_reduce(std::size_t(0), detail::size_of(r), std::move(init),
                         [&at, &map](std::size_t i) -> T { return std::invoke(map, at(i)); }, combine, g);
}

// What the loops do not take, named in the error instead of a bare "no matching function": a range
// that is not random-access (std::list, a filter view: copy it into a vector first), one with no end
// (an unbounded iota view: give it a bound or take(n) of it), an iterator pair (pass the range, or
// std::ranges::subrange(first, last)), bool bounds, enum, floating-point and pointer bounds (cast an
// enum to its underlying type, loop over an integer count, pass a span), and a body or map that
// cannot take an index (index_callable) or an element of the range (before stop 52's loopshape hunt
// such a body failed deep in the loop engine, "no match for call", and a range loop's gave a bare
// "no matching function").  Deleted, not a static_assert, so that a requires-expression still sees
// the call as ill-formed; the compiler's message names the deleted overload and its `Why`.
namespace detail {
struct range_must_be_random_access_copy_it_into_a_vector {};
struct range_must_have_an_end_bound_the_iota_or_take_n_of_it {};
struct pass_the_range_or_a_subrange_not_an_iterator_pair {};
struct loop_bounds_are_integers_not_bool {};
struct loop_bounds_are_at_most_64_bits_wide {};
struct loop_bounds_are_integers_not_enums_static_cast_them_to_the_underlying_type {};
struct loop_bounds_are_integers_not_floating_point_loop_over_an_integer_count {};
struct loop_bounds_are_integers_not_pointers_pass_a_span_or_a_subrange {};
struct loop_body_must_take_the_index_by_value_or_const_reference {};
struct loop_map_must_take_the_index_by_value_or_const_reference {};
struct loop_body_must_be_callable_with_an_element_of_the_range {};
struct loop_map_must_be_callable_with_an_element_of_the_range {};
template <class A, class B>
concept a_bool_bound = std::same_as<std::remove_cvref_t<A>, bool> || std::same_as<std::remove_cvref_t<B>, bool>;
// __int128 (an integral type under -std=gnu++20): the loop engine counts iterations, splits and the
// lowest failure in 64 bits, so a wider range would run its size modulo 2^64.
template <class A, class B>
concept a_wide_bound = (std::integral<std::remove_cvref_t<A>> && sizeof(A) > 8) ||
                       (std::integral<std::remove_cvref_t<B>> && sizeof(B) > 8);
// A scalar that is no loop bound: an enum (it has no ++: its serial `for` does not compile either;
// an unscoped one would convert, but to which type is the caller's to say), a floating-point value
// (a loop counts whole iterations) or a pointer that is no iterator (void*, nullptr, a function
// pointer; an object pointer pair is an iterator pair, refused below).  One overload for all three,
// its Why chosen by kind, and only where both bounds are scalars (integers or these): a range's
// loop, whose second argument may be a function pointer or a floating-point init, never reaches it,
// nor do bool, wide or iterator bounds, which have overloads of their own (two deleted overloads
// that both fit would make the call ambiguous and hide the Why).
template <class T>
concept non_integer_scalar = std::is_enum_v<T> || std::is_floating_point_v<T> || std::is_pointer_v<T> ||
                             std::is_null_pointer_v<T>;
template <class A, class B>
concept a_non_integer_bound = (loop_bound<A> || non_integer_scalar<A>) && (loop_bound<B> || non_integer_scalar<B>) &&
                              (non_integer_scalar<A> || non_integer_scalar<B>) && !std::input_or_output_iterator<A>;
template <class A, class B>
using non_integer_bound_why = std::conditional_t<
    std::is_enum_v<A> || std::is_enum_v<B>, loop_bounds_are_integers_not_enums_static_cast_them_to_the_underlying_type,
    std::conditional_t<std::is_floating_point_v<A> || std::is_floating_point_v<B>,
                       loop_bounds_are_integers_not_floating_point_loop_over_an_integer_count,
                       loop_bounds_are_integers_not_pointers_pass_a_span_or_a_subrange>>;
}  // namespace detail
template <class A, class B, class... Rest, class Why = detail::non_integer_bound_why<A, B>>
  requires detail::a_non_integer_bound<A, B>
void parallel_for(A, B, Rest&&...) = delete;
template <class A, class B, class... Rest, class Why = detail::non_integer_bound_why<A, B>>
  requires detail::a_non_integer_bound<A, B>
void parallel_reduce(A, B, Rest&&...) = delete;
template <class A, class B, class... Rest, class Why = detail::loop_bounds_are_integers_not_bool>
  requires detail::a_bool_bound<A, B>
void parallel_for(A, B, Rest&&...) = delete;
template <class A, class B, class... Rest, class Why = detail::loop_bounds_are_integers_not_bool>
  requires detail::a_bool_bound<A, B>
void parallel_reduce(A, B, Rest&&...) = delete;
template <class A, class B, class... Rest, class Why = detail::loop_bounds_are_at_most_64_bits_wide>
  requires detail::a_wide_bound<A, B>
void parallel_for(A, B, Rest&&...) = delete;
template <class A, class B, class... Rest, class Why = detail::loop_bounds_are_at_most_64_bits_wide>
  requires detail::a_wide_bound<A, B>
void parallel_reduce(A, B, Rest&&...) = delete;
template <detail::loop_bound L, detail::loop_bound H, class Body, class... Rest,
          class Why = detail::loop_body_must_take_the_index_by_value_or_const_reference>
  requires(!detail::index_callable<Body, std::common_type_t<L, H>>)
void parallel_for(L, H, Body&&, Rest&&...) = delete;
template <detail::loop_bound L, detail::loop_bound H, class T, class Map, class... Rest,
          class Why = detail::loop_map_must_take_the_index_by_value_or_const_reference>
  requires(!detail::index_callable<Map, std::common_type_t<L, H>>)
void parallel_reduce(L, H, T&&, Map&&, Rest&&...) = delete;
template <class R, class Body, class... Rest,
          class Why = detail::loop_body_must_be_callable_with_an_element_of_the_range>
  requires(detail::indexable_range<R> && !std::invocable<Body&, std::ranges::range_reference_t<R>>)
void parallel_for(R&&, Body&&, Rest&&...) = delete;
template <class R, class T, class Map, class... Rest,
          class Why = detail::loop_map_must_be_callable_with_an_element_of_the_range>
  requires(detail::indexable_range<R> && !std::invocable<Map&, std::ranges::range_reference_t<R>>)
void parallel_reduce(R&&, T&&, Map&&, Rest&&...) = delete;
template <class R, class... Rest, class Why = detail::range_must_be_random_access_copy_it_into_a_vector>
  requires(std::ranges::range<R> && !std::ranges::random_access_range<R>)
void parallel_for(R&&, Rest&&...) = delete;
template <class R, class... Rest, class Why = detail::range_must_be_random_access_copy_it_into_a_vector>
  requires(std::ranges::range<R> && !std::ranges::random_access_range<R>)
void parallel_reduce(R&&, Rest&&...) = delete;
template <class R, class... Rest, class Why = detail::range_must_have_an_end_bound_the_iota_or_take_n_of_it>
  requires(std::ranges::random_access_range<R> && detail::unbounded_range<R>)
void parallel_for(R&&, Rest&&...) = delete;
template <class R, class... Rest, class Why = detail::range_must_have_an_end_bound_the_iota_or_take_n_of_it>
  requires(std::ranges::random_access_range<R> && detail::unbounded_range<R>)
void parallel_reduce(R&&, Rest&&...) = delete;
template <std::input_or_output_iterator It, class S, class... Rest,
          class Why = detail::pass_the_range_or_a_subrange_not_an_iterator_pair>
void parallel_for(It, S, Rest&&...) = delete;
template <std::input_or_output_iterator It, class S, class... Rest,
          class Why = detail::pass_the_range_or_a_subrange_not_an_iterator_pair>
void parallel_reduce(It, S, Rest&&...) = delete;

}  // namespace weft
