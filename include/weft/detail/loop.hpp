// weft — parallel loops as loop frames (SPEC §3; LS Algorithm 3, HB §4 "native support for parallel
// loops").  A running loop is one frame on the task stack whose payload points at a loop_record: the
// range not yet started.  The loop runs its range in chunks, removing each chunk from the record
// before running it (LS Alg. 3 lines 3-4), and polls between chunks.  A promotion splits the
// remaining range: the upper part becomes a loop_child, a frame of its own pushed on the deque; the
// loop joins its children when its own part is done, youngest first, so results combine in index
// order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "call.hpp"
#include "frame.hpp"
#include "slow_path.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <chrono>
#endif

namespace weft::detail {

struct loop_child;

// What every piece of one loop shares and the runtime reads without knowing the loop's types: the
// grain and the function a thief runs a split-off part with.  adaptive_loop's shared_state derives
// from it.
struct loop_shape {
  std::uint64_t grain;           // a range of at most this many iterations is not split (LS "ppt")
  task_fn run_child;             // runs a child's range on a thief
  std::uint64_t phase = 0;       // lo mod loop_align: where the aligned cut points are (aligned_cut)
};

// Chunks and splits cut a loop where lo + k is a multiple of loop_align iterations (when the piece
// is long enough that moving the cut changes little).  Why: a chunk's inner loop is the serial
// loop, vectorized; started at an odd element it reads and writes 16-byte vectors that straddle
// cache lines every few accesses, and an array in cache then sweeps ~1.3x slower (the serial loop
// over 2^15 doubles cut where weft cut, at odd offsets: 8.6 us against 6.8 us uncut;
// docs/results/loops.md, "Aligned chunks").  16 iterations: a 64-byte line of floats, 128 bytes of
// doubles.
inline constexpr std::uint64_t loop_align = 16;

// The highest cut in (k, stop] at which lo + cut + peel is a multiple of loop_align, or stop when
// there is none.  `peel`: iterations a chunk runs before its vectorizable loop (a reduction's first
// iteration makes its partial value).
inline std::uint64_t aligned_cut(std::uint64_t k, std::uint64_t stop, std::uint64_t phase, std::uint64_t peel) noexcept {
  const std::uint64_t a = (phase + stop + peel) & ~(loop_align - 1);
  return a > phase + peel + k ? a - phase - peel : stop;
}

// The loop frame's record, on the C++ stack of the worker running that piece of the loop.  Only the
// owner reads or writes it (its own chunks, and the promotions it makes at its polls).
struct loop_record {
  // The parameters are not named as the members: a user's -Wshadow (gcc) warns in this header.
  loop_record(std::uint64_t first, std::uint64_t stop, loop_shape* s) noexcept
      : next(first), end(stop), shape(s) {}
  std::uint64_t next;            // first iteration not started (an offset from the loop's lo)
  std::uint64_t end;             // one past the last iteration this piece still owns
  loop_child* children = nullptr;  // split-off parts, youngest first
  loop_shape* shape;             // the loop's grain and children's task function (shared_state)
  // The piece's timed chunk (iterations), 0 while its chunks are still untimed: a part split off
  // starts with it (run_chunks), so a promotion does not restart the chunk ramp.  Its top bit is
  // chunk_kept, which the chunk's updates keep.
  std::uint64_t chunk = 0;
  // ws-ap only, set by loop_arm (a piece under another policy never reads them, so it does not
  // pay for writing them):
  std::uint64_t chunks;          // TBB's auto-partitioner counter
  std::uint64_t ap_armed_at;     // when this piece started (cycles); 0 once it split
};

// A split-off part of a loop: a frame for the deque, the range, and room for its result.
struct loop_child {
  frame fr;                      // first member: the deque holds &fr
  loop_child* older = nullptr;   // the sibling split off before this one
  loop_shape* shared = nullptr;
  std::uint64_t begin = 0, end = 0, chunks = 0;
  std::uint64_t chunk = 0;       // the splitting piece's timed chunk (loop_record::chunk)
  bool has_result = false;
  alignas(16) unsigned char result[64];
};
static_assert(std::is_standard_layout_v<loop_child>, "loop_child must start with its frame");

// Runtime side (src/loops.cpp).
void loop_begin(hot_state& h, frame* fr);             // ws-ap: the auto partitioner's eager splits
void loop_arm(hot_state& h, frame* fr, std::uint64_t chunks) noexcept;  // ws-ap: start the clock
void loop_split_now(hot_state& h, frame* fr);         // ws-ap: the piece ran ap_defer_cycles: the splits
std::uint64_t loop_child_chunks(hot_state& h, const loop_child& c, bool stolen) noexcept;
void free_loop_child(hot_state& h, loop_child* c) noexcept;

inline std::uint64_t cycle_count() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// Chunks: parallel_for's 1 and 20 (its head, adaptive_loop::run_for), then 64; a split-off part's
// 1, 4, 16, 64, a reduction's 1, 2, 4, ... (adaptive_loop::untimed_growth) iterations, untimed,
// for the first `untimed_iterations` (short loops, like a search's per-row loop, never read the
// clock); after that, the chunk doubles while a chunk takes less than about 1 us of work and halves
// when it takes more than about 4 us, one cycle-counter read per chunk: a poll comes every few
// microseconds whatever an iteration costs, and costs a negligible fraction of a cheap iteration. A
// piece checks for a failure elsewhere in the loop (lowest_failure) only between timed chunks: skipping
// iterations above a failure saves work but is not needed for the result.
inline constexpr std::uint64_t untimed_iterations = 64;
inline constexpr std::uint64_t chunk_cycles_low = 2'000, chunk_cycles_high = 8'000;
inline constexpr std::uint64_t chunk_max = std::uint64_t(1) << 20;
// A timed piece splits only a remainder of at least this many of its chunks, so that a thief gets
// one chunk or more: about 1-4 us of work, what a theft costs its victim (~1.4 us: the promotion,
// the lines crossing cores, a join that waits; docs/results/core.md).  Smaller parts cost more
// than they move (HB §3's amortization, applied to a loop's split): a loop of ~10 us over 2
// workers spent half its time handing pieces of 1-1024 iterations back and forth between the two
// at its end (docs/results/loops.md, "A few-microsecond loop at 2 workers").  An untimed piece (its
// first 64 iterations) and a piece of one-iteration chunks (iterations of ~4 us or more) split as
// before.
inline constexpr std::uint64_t min_split_chunks = 2;
// loop_record::chunk's top bit: the piece keeps the rest of its range for good (src/loops.cpp,
// keeps_rest).  The chunk's own value is chunk_of().
inline constexpr std::uint64_t chunk_kept = std::uint64_t(1) << 63;
inline std::uint64_t chunk_of(const loop_record& rec) noexcept { return rec.chunk & ~chunk_kept; }
// ws-ap's eager splits wait until the piece has run this long (about 3 us; chunk_cycles_high): its
// K*P promotions are then paid only by a loop long enough to repay them (HB §3's amortization
// applied to TBB's partitioner; issue 9 item 2: a 1 us loop at 4 workers made 15 promotions and ran
// 2x slower than at 1).  TBB splits at once.
inline constexpr std::uint64_t ap_defer_cycles = chunk_cycles_high;

// The lowest iteration of a loop known to have thrown, as an offset from the loop's first iteration,
// shared by all its pieces (a loop frame's, adaptive_loop::shared_state; a tree of halves',
// split_failure in loops.hpp).  Pieces skip iterations above it (they cannot matter: the exception
// of the serially first failing iteration is the one that leaves the loop, as in the serial elision)
// but still run those below it, which might throw first.  Relaxed: only a saving of work, no result
// depends on seeing it promptly (PROTOCOLS.md, loops).
struct lowest_failure {
  std::atomic<std::uint64_t> at{~std::uint64_t(0)};  // none yet: all ones

  void fail_at(std::uint64_t k) noexcept {
    std::uint64_t cur = at.load(std::memory_order_relaxed);
    while (k < cur && !at.compare_exchange_weak(cur, k, std::memory_order_relaxed)) {
    }
  }
  bool skips(std::uint64_t k) const noexcept { return k > at.load(std::memory_order_relaxed); }
};

template <class I, class T, class Map, class Combine>
struct adaptive_loop {
  struct shared_state : loop_shape {
    I lo;
    Map* map;
    Combine* combine;
    lowest_failure failure;
  };

  // The shared state of a loop over [lo, ...) (built in place: it holds an atomic).
  static shared_state shared(I lo, Map& map, Combine& combine, std::size_t grain) noexcept {
    return shared_state{{std::uint64_t(grain), &run_child, std::uint64_t(lo) & (loop_align - 1)}, lo, &map, &combine, {}};
  }

  static I index(I lo, std::uint64_t k) noexcept {
    using U = std::make_unsigned_t<I>;
    return I(U(U(lo) + U(k)));
  }
  // index's inverse: the offset of iteration i from lo.
  static std::uint64_t offset(I lo, I i) noexcept {
    using U = std::make_unsigned_t<I>;
    return std::uint64_t(U(U(i) - U(lo)));
  }

  static constexpr bool result_in_place = sizeof(T) <= sizeof(loop_child::result) && alignof(T) <= 16;

  static void store_result(loop_child& c, T&& v) {
    if constexpr (result_in_place)
      ::new (static_cast<void*>(c.result)) T(std::move(v));
    else
      ::new (static_cast<void*>(c.result)) T*(new T(std::move(v)));
    c.has_result = true;
  }
  // Moves a thief's result out of the child and destroys the stored one, also when the move throws.
  static T take_result(loop_child& c) {
    c.has_result = false;
    if constexpr (result_in_place) {
      return take_and_destroy(*std::launder(reinterpret_cast<T*>(c.result)));
    } else {
      std::unique_ptr<T> p(*std::launder(reinterpret_cast<T**>(c.result)));
      return std::move(*p);
    }
  }

  // parallel_for's loops have no value: their accumulator starts engaged and a fold is nothing.
  static constexpr bool valueless = std::is_same_v<T, unit>;

  // How fast an untimed chunk grows.  A parallel_for's chunk has no value: growing it 4-fold (1, 4,
  // 16, ...) makes a ten-iteration loop three chunks instead of four (bfs's inner loops: ~20
  // instructions each, issue 10).  A reduction's chunk is a chain of dependent combines, and the
  // chunks' chains overlap in the processor (each chunk starts a fresh partial value): doubling keeps
  // them short while the loop is young (spmv's 100-term rows: 4-fold growth cost 15 % in time while
  // saving instructions; docs/results/loops.md).
  static constexpr std::uint64_t untimed_growth = valueless ? 4 : 2;

  static void fold(std::optional<T>& acc, T&& v, shared_state& sh) {
    if constexpr (valueless)
      return;
    else if (acc)
      acc.emplace((*sh.combine)(std::move(*acc), std::move(v)));
    else
      acc.emplace(std::move(v));
  }

  // Runs iterations [b, e) (offsets from lo) on this worker as one piece of the loop.  Returns the
  // piece's value only when it covers ALL of [b, e); nullopt when it skipped iterations above a
  // failure elsewhere (such a partial value must never be folded: combine is only ever called on
  // adjacent ranges).  A piece skips only when some lower iteration threw, so the loop as a whole
  // then throws and no caller needs the value.  Throws its own range's first exception, but only
  // after every part split off from it has finished.  `chunks`: ws-ap's partitioner counter;
  // `first_chunk`: the timed chunk of the piece this part was split from (0: none, start untimed).
  static std::optional<T> run(hot_state& h, shared_state& sh, std::uint64_t b, std::uint64_t e,
                              std::uint64_t chunks, std::uint64_t first_chunk) {
    return run_piece(h, sh, b, e, chunks, h.loops_run_as == loop_style::auto_partitioned, first_chunk);
  }
  // run's body, inlined where a loop starts (loops.hpp) so that a loop nested in another's body
  // costs no call of its own; the children's pieces call run.  `partitioned`: ws-ap's partitioner
  // runs this piece.
  WEFT_INLINE_FOR_SPEED static std::optional<T> run_piece(hot_state& h, shared_state& sh, std::uint64_t b, std::uint64_t e,
                                                          std::uint64_t chunks, bool partitioned,
                                                          std::uint64_t first_chunk = 0) {
    WEFT_ASSERT(b < e, "a loop piece with no iterations (loops start, and splits leave, only non-empty ranges)");
    loop_record rec(b, e, &sh);
    frame* fr = push_loop_frame(h, rec);
    return run_pushed(h, sh, rec, fr, chunks, partitioned, first_chunk, 0);
  }

  // A piece's frame popped: it may lie below the oldest-first check's floor (hot_state::scan_floor),
  // which then comes down to it.  Once per piece, not per iteration.
  WEFT_INLINE_FOR_SPEED static void pop_loop_frame(hot_state& h, frame* fr) noexcept {
    h.top = fr;
    if (fr < h.scan_floor) h.scan_floor = fr;
  }

  // The loop frame of `rec`, pushed on this worker's task stack (loop frames nest like joins' frames).
  WEFT_INLINE_FOR_SPEED static frame* push_loop_frame(hot_state& h, loop_record& rec) noexcept {
    frame* fr = h.top;
    WEFT_ASSERT(!task_state::is_stolen(fr->state.load(std::memory_order_relaxed)), "a loop frame pushed over a frame its thief still runs (STOLEN, not DONE)");
    ::new (fr->payload) loop_record*(&rec);
    fr->state.store(task_state::loop, std::memory_order_relaxed);
    h.top = fr + 1;
    return fr;
  }

  // A piece whose frame is pushed: its chunks from rec.next, then its children; pops the frame.
  // `next_chunk`: not 0 after run_for's head, whose untimed ramp the chunks go on with.
  // `acc`: the value of rec's iterations before rec.next (run_reduce's head), or empty.
  WEFT_INLINE_FOR_SPEED static std::optional<T> run_pushed(hot_state& h, shared_state& sh, loop_record& rec, frame* fr,
                                                           std::uint64_t chunks, bool partitioned, std::uint64_t first_chunk,
                                                           std::uint64_t next_chunk, std::optional<T> acc = {}) {
    if constexpr (valueless) acc.emplace();
    std::uint64_t executed = 0;
    bool complete;  // acc covers [b, rec.next): nothing skipped
    try {
      if (partitioned) loop_arm(h, fr, chunks);
      complete = run_chunks(h, sh, rec, fr, partitioned, first_chunk, acc, executed, next_chunk);
    } catch (...) {
      unwind_piece(h, sh, rec, fr, executed, acc);
      throw;
    }
    h.loop_iterations += executed;
    pop_loop_frame(h, fr);
    if (rec.children != nullptr) [[unlikely]] {
      std::exception_ptr err;
      join_children(h, sh, rec.children, acc, err, complete);
      if (err) std::rethrow_exception(err);
    }
    if (!complete) acc.reset();
    return acc;
  }

  // run_for's head ends after 1 + 20 = 21 iterations.
  static constexpr std::uint64_t head_last = 21;

  // parallel_for's loop as its caller starts it under the policies that run loops as plain loop
  // frames (the lazy ones, heartbeat, serial): its head, two untimed chunks of 1 and 20
  // iterations, inlined where the loop is written; a loop longer than that goes on out of line
  // (finish_for).  Why a head of its own: inside run_piece a short loop paid for the whole chunk
  // machinery (the timed ramp's values, the ws-ap and failure checks, the peeled first iteration)
  // in spilled registers at every chunk, and read its body's captures back through the shared state
  // after the frame's stores: bfs's ten-iteration inner loops cost ~190 instructions each beyond
  // their iterations, against ~16 for the serial loop's own control (issue 10 item 2;
  // docs/results/loops.md, "A loop's head").  Here the body is copied from the caller's object
  // before any store (its captures stay in the registers they arrived in) and a chunk is its
  // bounds, the record's next, the loop and a poll.  Nothing else changes: the frame is pushed
  // before the first iteration, so a poll nested in the body finds the loop as before; a chunk is
  // taken off the range (rec.next) before it runs (LS Alg. 3 lines 3-4), and rec.end, which a
  // promotion at any poll may lower, is read again for every chunk.
  WEFT_INLINE_FOR_SPEED static void run_for(hot_state& h, shared_state& sh, const Map& each, I lo, std::uint64_t n) {
    static_assert(valueless, "run_for is parallel_for's: a reduction's chunks fold values");
    const Map map = each;
    loop_record rec(0, n, &sh);
    frame* fr = push_loop_frame(h, rec);
    // Two chunks, [0, 1) and [1, 21): k = rec.next gives each its end (20k + 1) with no chunk size or
    // count to keep; i is always iteration k (so lo is not needed either: few live values, none
    // spilled around the body).  Why 1 and 20 rather than the chunk loop's ramp of 1, 4 and 16: a
    // poll after the first iteration is what a loop of a few long iterations needs (it splits there:
    // Adaptive.AShortLoopOfLongIterationsPollsAfterItsFirst), the untimed head is bounded by its
    // iteration count either way (20 against 16 iterations between polls at worst), and a loop of
    // 6 to 21 iterations then ends after its second chunk, every time: one chunk less, and the
    // head's loop exits at the same place for all of them (bfs: T1/Ts 1.28 -> 1.20 against the ramp,
    // docs/results/loops.md, "A loop's head").
    I i = lo;
    std::uint64_t stop;
    try {
      do {
        const std::uint64_t k = rec.next;
        stop = std::min(20 * k + 1, rec.end);
        rec.next = stop;
        const I i_stop = index(i, stop - k);
        for (; i < i_stop; ++i) map(i);
        if (poll_pending(h)) [[unlikely]] promote_at_poll(h, fr);
      } while (stop < rec.end && stop < head_last);
    } catch (...) {
      head_failed(h, sh, rec, fr, offset(sh.lo, i));
      throw;
    }
    // Outside the try: finish_for joins the children itself, also when it throws.
    if (stop < rec.end) [[unlikely]] {
      finish_for(h, sh, rec, fr, stop);
      return;
    }
    h.loop_iterations += stop;
    pop_loop_frame(h, fr);
    if (rec.children != nullptr) [[unlikely]] join_head_children(h, sh, rec.children, std::optional<T>(std::in_place));
  }

  // run_reduce's head ends where the chunk loop's untimed ramp (1, 2, 4, ...) reaches its first chunk
  // of 2 * loop_align iterations, which it would cut at an aligned index: chunks of 1, 2, 4, 8 and 16
  // iterations, ending at 1, 3, 7, 15 and 31 (k -> 2k + 1).
  static constexpr std::uint64_t reduce_head_last = 31;

  // parallel_reduce's loop as it starts under the policies that run loops as plain loop frames: the
  // chunk loop's own untimed ramp (chunks ending at 1, 3, 7, 15, 31), in a loop of its own; a
  // longer range goes on in run_chunks (finish_reduce) with the next chunk of the same ramp.  The
  // same chunks at the same places as the chunk loop's (a reduction's chunk boundaries are part of
  // its schedule: what a poll leaves latent at each level decides what DF-LS offers; loops.md, "A
  // short reduction's head"), with less around them: through run_chunks each chunk paid for the
  // ramp's size, the aligned cut's and the timed chunks' tests and the accumulator's engaged flag,
  // and LS's declarative spmv with 10-term rows took 346 instructions a row, 277 so (the serial
  // row: 85; docs/results/short_reduce_rows.cpp).  The accumulator is made from the first
  // iteration, so the compiler knows it is engaged; each later chunk folds a partial value of its
  // own into it (a value held across the poll's call lives in memory: only the accumulator, once a
  // chunk, not the chunk's chain).  Not forced inline (its caller, reduce_loop_frame, is inlined
  // where the compiler chooses): stop 50's head inlined into the loop's caller made a recursive
  // map's caller a loop of a dozen live values (uts-bin +28 % instructions); this one, -6 %.
  static std::optional<T> run_reduce(hot_state& h, shared_state& sh, std::uint64_t n) {
    static_assert(!valueless, "run_reduce is parallel_reduce's: a parallel_for's loop starts in run_for");
    const Map map = *sh.map;
    const Combine combine = *sh.combine;
    loop_record rec(0, n, &sh);
    frame* fr = push_loop_frame(h, rec);
    std::optional<T> acc;
    I i = sh.lo;
    std::uint64_t k = 1;
    try {
      rec.next = 1;  // the first chunk, [0, 1), off the range before it runs (LS Alg. 3 lines 3-4)
      acc.emplace(map(i));
      ++i;
      if (poll_pending(h)) [[unlikely]] promote_at_poll(h, fr);
      while (k < rec.end && k < reduce_head_last) {
        const std::uint64_t stop = std::min(2 * k + 1, rec.end);
        rec.next = stop;
        const I i_stop = index(i, stop - k);
        T part = map(i);
        for (++i; i < i_stop; ++i) part = combine(std::move(part), map(i));
        acc.emplace(combine(std::move(*acc), std::move(part)));
        k = stop;
        if (poll_pending(h)) [[unlikely]] promote_at_poll(h, fr);
      }
    } catch (...) {
      head_failed(h, sh, rec, fr, offset(sh.lo, i));
      throw;
    }
    // Outside the try: finish_reduce joins the children itself, also when it throws.
    if (k < rec.end) [[unlikely]] return finish_reduce(h, sh, rec, fr, std::move(*acc));
    h.loop_iterations += k;
    pop_loop_frame(h, fr);
    if (rec.children != nullptr) [[unlikely]] return join_head_children(h, sh, rec.children, std::move(acc));
    return acc;
  }

  // run_reduce's loop after its head (rec.next == reduce_head_last): the chunk loop, its untimed ramp
  // going on with a chunk of reduce_head_last + 1 iterations, its first fold into the head's value.
  WEFT_NOINLINE static std::optional<T> finish_reduce(hot_state& h, shared_state& sh, loop_record& rec, frame* fr,
                                                      T head_value) {
    h.loop_iterations += reduce_head_last;
    return run_pushed(h, sh, rec, fr, 0, false, 0, reduce_head_last + 1, std::optional<T>(std::move(head_value)));
  }

  // A piece's own iterations threw (inside the handler): its frame is popped and the parts split off
  // are joined before the exception leaves, since their thieves use sh.
  WEFT_NOINLINE static void unwind_piece(hot_state& h, shared_state& sh, loop_record& rec, frame* fr,
                                         std::uint64_t executed, std::optional<T>& acc) noexcept {
    h.loop_iterations += executed;
    pop_loop_frame(h, fr);
    std::exception_ptr err = std::current_exception();
    bool folded = false;
    join_children(h, sh, rec.children, acc, err, folded);
  }

  // run_for's iteration k threw (or, k the end of a chunk, its poll did): pieces skip what lies
  // above k, and the piece unwinds.
  WEFT_NOINLINE static void head_failed(hot_state& h, shared_state& sh, loop_record& rec, frame* fr,
                                        std::uint64_t k) noexcept {
    sh.failure.fail_at(k);
    std::optional<T> acc;
    unwind_piece(h, sh, rec, fr, k, acc);
  }

  // run_for's loop after its head: chunks from rec.next (== head_done, 21), the untimed ramp going
  // on at 3 * 21 + 1 = 64 iterations (the chunk loop's 1, 4, 16, 64 reach 85 there too), then the
  // children.
  WEFT_NOINLINE static void finish_for(hot_state& h, shared_state& sh, loop_record& rec, frame* fr,
                                       std::uint64_t head_done) {
    h.loop_iterations += head_done;
    run_pushed(h, sh, rec, fr, 0, false, 0, 3 * head_done + 1);
  }

  // A head's children (run_for's, run_reduce's), after its own iterations, whose value is `acc`.
  WEFT_NOINLINE static std::optional<T> join_head_children(hot_state& h, shared_state& sh, loop_child* children,
                                                           std::optional<T> acc) {
    std::exception_ptr err;
    bool complete = true;
    join_children(h, sh, children, acc, err, complete);
    if (err) std::rethrow_exception(err);
    if (!complete) acc.reset();
    return acc;
  }

  // The piece's own iterations, chunk by chunk.  Chunks are removed from the range before they run
  // (a promotion never gives them away: LS Alg. 3 lines 3-4), and a poll follows each.  The chunk
  // grows by untimed_growth, untimed, up to 64 iterations in all (a short loop never reads the
  // clock); then one cycle-counter read per chunk keeps a chunk between about 1 and 4 us of work.
  // Returns false when it stopped early because a lower iteration failed; on a throw, records the
  // failing iteration.
  WEFT_INLINE_FOR_SPEED static bool run_chunks(hot_state& h, shared_state& sh, loop_record& rec, frame* fr, bool partitioned,
                                               std::uint64_t first_chunk, std::optional<T>& acc, std::uint64_t& executed,
                                               std::uint64_t next_chunk) {
    // Locals whose addresses do not escape: the compiler keeps them (and a copied body's captures,
    // see loop_body) in registers instead of reloading them per iteration.  A reduction's body is
    // copied once for the piece (its chunks are short while the piece is young: a copy per chunk
    // cost spmv's 100-term rows and nqueens' 12-candidate loops a few percent).  A parallel_for's is
    // copied again for every chunk (chunk_map, below): a copy that lives across the chunk loop's
    // calls (the poll's promote_at_poll) must sit in callee-saved registers, among them %rbp, and a
    // CSR row loop whose stream base gcc put there ran 1.16-1.28x the serial loop's time on one
    // worker (loads based on %rbp measured 3-17 % slower than on %rbx, %r12 or %r13 on the Intel
    // Xeon VM of stop 39, an aligned asm loop); copied per chunk, the captures live only within a
    // chunk, in the caller-saved registers the serial loop uses: 1.03-1.07x
    // (docs/results/loops.md, "The flat CSR spmv at one worker").
    const Map piece_map = *sh.map;
    const Combine combine = *sh.combine;
    const I lo = sh.lo;
    // The next iteration to run.  Only this piece moves rec.next (a promotion, made by this worker at
    // a poll, moves rec.end and nothing else: src/loops.cpp split_loop), so k is the truth and
    // rec.next its copy for the promotions; rec.end is re-read after every chunk.  The iterations
    // run are k - b: no counter of its own.
    const std::uint64_t b = rec.next;
    std::uint64_t k = b, chunk = 1, last = 0, untimed_end = b + untimed_iterations;
    if (next_chunk != 0) [[unlikely]] {
      // After run_for's head: the untimed ramp goes on where it was.
      chunk = next_chunk;
      untimed_end = untimed_iterations;
    }
    if (first_chunk != 0) [[unlikely]] {
      // A part split off a timed piece: its iterations are the same loop's, so it starts with that
      // piece's chunk, timed from its first, instead of ramping up again (1, 4, 16, ...: a dozen
      // short chunks and polls per split).
      chunk = first_chunk;
      untimed_end = b;
      last = cycle_count();
    }
    // The iteration running, in the user's own type: the chunk loops count with it alone.  Made from
    // k at each iteration (a wrapping unsigned sum cut to I), it was no induction variable to gcc,
    // which then could not strength-reduce what the body computes from it as it does in the serial
    // loop: a body computing `i * a + c` kept a multiply more per iteration, and the small-work loop
    // ran 1.6x its serial time on one worker (docs/results/loops.md, "The index in the user's
    // type").  It stays within [lo, hi], so ++i never overflows; a throw reads the failing
    // iteration from it.
    I i = index(lo, k);
    try {
      while (k < rec.end) {
        std::uint64_t stop = k + std::min(chunk, rec.end - k);
        if (chunk >= 2 * loop_align && stop < rec.end) stop = aligned_cut(k, stop, sh.phase, valueless ? 0 : 1);
        rec.next = stop;
        const I i_stop = index(lo, stop);
        const Map chunk_map = *sh.map;  // only a parallel_for's (the other copy is then unused)
        const Map& map = valueless ? chunk_map : piece_map;
        if (valueless && chunk >= 2 * loop_align) {
          // A long chunk of a parallel_for is the serial loop, nothing peeled off it, so that its
          // vectorized loop starts at the aligned cut (with the first iteration peeled, an array in
          // cache swept ~1.25x slower).  Short chunks (a split-off part's first ones, a
          // reduction's; parallel_for's own first ones run in run_for's head) keep the peeled form.
          for (; i < i_stop; ++i) map(i);
        } else {
          T part = map(i);
          for (++i; i < i_stop; ++i) part = combine(std::move(part), map(i));
          fold(acc, std::move(part), sh);
        }
        k = stop;
        if (k < untimed_end) {
          chunk *= untimed_growth;
        } else if (k < rec.end) {  // the clock only where a chunk follows (a 100-term row: one read a row)
          const std::uint64_t now = cycle_count();
          if (last == 0 || (now - last < chunk_cycles_low && chunk < chunk_max))
            chunk *= 2;
          else if (now - last > chunk_cycles_high && chunk > 1)
            chunk /= 2;
          last = now;
          rec.chunk = chunk | (rec.chunk & chunk_kept);
        }
        if (partitioned) [[unlikely]] {
          // ws-ap: its poll bit (`always`) is there for joins; all a loop piece's poll could do is
          // the auto partitioner's splits once the piece has run ap_defer_cycles.  Checked here
          // with the clock, not through the scheduler's slow path at every chunk (uts-bin spent a
          // third of its time there).
          if (rec.ap_armed_at != 0 && cycle_count() - rec.ap_armed_at >= ap_defer_cycles) [[unlikely]]
            loop_split_now(h, fr);
        } else if (poll_pending(h)) [[unlikely]] {
          promote_at_poll(h, fr);
        }
        if (k >= untimed_end && k < rec.end && sh.failure.skips(k)) [[unlikely]] {
          executed = k - b;
          return false;
        }
      }
    } catch (...) {
      // A throw from an iteration: i is it.  (From fold's combine or the poll, after a chunk: i is
      // then i_stop, the chunk's end, as k is.)
      k = offset(lo, i);
      executed = k - b;
      sh.failure.fail_at(k);
      throw;
    }
    executed = k - b;
    return true;
  }

  // Joins the split-off parts, youngest (lowest indices) first, EVERY one of them whatever happens
  // (their thieves use the loop's shared state on this stack: nothing may leave before they are
  // done).  Values are folded only while no error is known and every value so far covered its whole
  // range; the first error in index order wins.  A part entirely above a known failure is not run.
  static void join_children(hot_state& h, shared_state& sh, loop_child* children, std::optional<T>& acc,
                            std::exception_ptr& err, bool& complete) noexcept {
    for (loop_child* c = children; c != nullptr;) {
      loop_child* older = c->older;
      const bool stolen = reclaim(h, &c->fr) != reclaimed::run_inline;
      try {
        join_child(h, sh, *c, stolen, acc, err, complete);
      } catch (...) {
        if (!err) err = std::current_exception();
        sh.failure.fail_at(c->begin);
      }
      free_loop_child(h, c);
      c = older;
    }
  }

  static void join_child(hot_state& h, shared_state& sh, loop_child& c, bool stolen, std::optional<T>& acc,
                         std::exception_ptr& err, bool& complete) {
    const bool folding = !err && complete;
    if (!stolen) {
      if (!folding || sh.failure.skips(c.begin)) {
        complete = false;
        return;
      }
      std::optional<T> v = run(h, sh, c.begin, c.end, loop_child_chunks(h, c, false), c.chunk);
      if (v) fold(acc, std::move(*v), sh);
      else complete = false;
    } else if (c.fr.error) {
      std::exception_ptr e = std::move(c.fr.error);
      c.fr.error = nullptr;
      if (!err) err = std::move(e);
      sh.failure.fail_at(c.begin);
    } else if (c.has_result) {
      T v = take_result(c);
      if (folding) fold(acc, std::move(v), sh);
    } else {
      complete = false;  // the thief's piece skipped iterations
    }
  }

  // A stolen part, on its thief (WOOL Fig. 3 wrap_f for loops).
  WEFT_TASK_FN static void run_child(frame* f) {
    auto* c = reinterpret_cast<loop_child*>(f);
    auto& sh = *static_cast<shared_state*>(c->shared);  // a loop_shape, as split_loop copied it
    hot_state& h = tls_hot;
    try {
      if (auto v = run(h, sh, c->begin, c->end, loop_child_chunks(h, *c, true), c->chunk)) store_result(*c, std::move(*v));
    } catch (...) {
      f->error = std::current_exception();
    }
  }
};

}  // namespace weft::detail
