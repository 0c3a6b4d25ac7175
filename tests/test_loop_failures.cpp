// weft tests: parallel_reduce when something fails (issue "Reliability", defects 1 and 2).
//
// The reduce value records the range it covers, so `combine` can check the contract the runtime
// promises it: it is only ever called on two ADJACENT ranges, left before right — also while a
// failure elsewhere in the loop makes pieces skip iterations (a piece that skipped iterations holds
// a partial value and must never be folded: a combine that merges adjacent buffers in place would
// corrupt memory).  And whatever throws — a map or a combine, on the owner or on a thief — the
// exception leaves the loop only after every piece of it has finished (the pieces still running on
// thieves refer to the loop's shared state on the owner's stack).
#include "common.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;

struct span_sum {
  std::uint64_t begin = 0, end = 0;  // the iterations [begin, end) this value covers
  std::uint64_t sum = 0;
};

struct contract_log {
  std::atomic<std::uint64_t> combines{0};
  std::atomic<std::uint64_t> not_adjacent{0};
};

// About `ns` nanoseconds of work that the optimizer cannot drop.
std::uint64_t busy(std::uint64_t seed, std::chrono::nanoseconds ns) {
  const auto end = std::chrono::steady_clock::now() + ns;
  std::uint64_t x = seed;
  do {
    for (int i = 0; i < 16; ++i) x = wt::mix(x);
  } while (std::chrono::steady_clock::now() < end);
  return x & 1;
}

struct combine_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct map_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LoopFailures : public wt::PoolTest {};
WT_INSTANTIATE(LoopFailures);

// Defects 1 and 2 together, as the issue reproduced them: a reduce over N iterations of about 2 us
// whose combine throws when the piece starting at 0 absorbs a piece of at least N/64 iterations.
// On the loop-frame policies that fold comes from a stolen child while older children may still be
// running on thieves: before the fix the exception left the loop and those thieves wrote into the
// unwound stack (a segmentation fault in 5 of 5 runs under lazy-df with 4 workers).
TEST_P(LoopFailures, CombineThrowsWhileOlderPiecesRun) {
  const std::uint64_t n = wt::pick<std::uint64_t>(20'000, 4'000);
  const int reps = wt::pick(5, 2);
  for (int rep = 0; rep < reps; ++rep) {
    contract_log log;
    std::atomic<int> in_flight{0};
    auto map = [&](std::uint64_t i) {
      in_flight.fetch_add(1, std::memory_order_relaxed);
      span_sum v{i, i + 1, busy(i, 2us)};
      in_flight.fetch_sub(1, std::memory_order_relaxed);
      return v;
    };
    auto combine = [&](span_sum x, span_sum y) {
      log.combines.fetch_add(1, std::memory_order_relaxed);
      if (x.end != y.begin) log.not_adjacent.fetch_add(1, std::memory_order_relaxed);
      if (x.begin == 0 && y.end - y.begin >= n / 64) throw combine_error("absorbed a big piece");
      return span_sum{x.begin, y.end, x.sum + y.sum};
    };
    try {
      // It throws at the latest in the last combine, init with the whole range (as the serial elision).
      pool().run([&] { return weft::parallel_reduce(std::uint64_t(0), n, span_sum{}, map, combine); });
      FAIL() << "no exception";
    } catch (const combine_error&) {
      EXPECT_EQ(in_flight.load(), 0) << "the exception left the loop while iterations still ran";
    }
    EXPECT_EQ(log.not_adjacent.load(), 0u) << "combine called on ranges that are not adjacent, rep " << rep
                                           << " (" << log.combines.load() << " combines)";
  }
  // The pool is still usable, and the next loop is right.
  EXPECT_EQ(pool().run([] { return wt::fib(20); }), wt::fib_serial(20));
}

// Defect 2 alone: a map throws at one iteration; pieces above it skip iterations; no combine may
// see a partial value, and the map's exception is the one that leaves.
TEST_P(LoopFailures, MapThrowsNoCombineOfPartialPieces) {
  const std::uint64_t n = wt::pick<std::uint64_t>(20'000, 4'000);
  const int reps = wt::pick(10, 3);
  std::uint64_t total_combines = 0;
  for (int rep = 0; rep < reps; ++rep) {
    contract_log log;
    const std::uint64_t bad = n / 3 + std::uint64_t(rep) * 97;
    auto map = [&](std::uint64_t i) {
      if (i == bad) throw map_error("map " + std::to_string(i));
      return span_sum{i, i + 1, busy(i, 1us)};
    };
    auto combine = [&](span_sum x, span_sum y) {
      log.combines.fetch_add(1, std::memory_order_relaxed);
      if (x.end != y.begin) log.not_adjacent.fetch_add(1, std::memory_order_relaxed);
      return span_sum{x.begin, y.end, x.sum + y.sum};
    };
    try {
      pool().run([&] { return weft::parallel_reduce(std::uint64_t(0), n, span_sum{}, map, combine); });
      FAIL() << "no exception";
    } catch (const map_error& e) {
      EXPECT_EQ(std::string(e.what()), "map " + std::to_string(bad));
    }
    EXPECT_EQ(log.not_adjacent.load(), 0u) << "combine called on ranges that are not adjacent, rep " << rep;
    total_combines += log.combines.load();
  }
  EXPECT_GT(total_combines, 0u);  // the check above looked at something
  EXPECT_EQ(pool().run([] { return wt::fib(20); }), wt::fib_serial(20));
}

// A combine that throws on every piece of a stolen child, and a map that throws late: whichever
// comes first in index order wins, every piece finishes first, and nothing leaks (ASan).
TEST_P(LoopFailures, ThrowingCombineWithHeapValues) {
  const int n = wt::pick(6'000, 1'500);
  for (int rep = 0; rep < wt::pick(5, 2); ++rep) {
    try {
      pool().run([&] {
        return weft::parallel_reduce(0, n, std::string(), [&](int i) {
          busy(std::uint64_t(i), 1us);
          return std::string(1, char('a' + i % 26));
        }, [&](std::string a, std::string b) {
          if (a.size() + b.size() > std::size_t(n) / 2) throw combine_error("half");
          return a + b;
        });
      });
      FAIL() << "no exception";
    } catch (const combine_error& e) {
      EXPECT_STREQ(e.what(), "half");
    }
  }
  EXPECT_EQ(pool().run([] { return wt::fib(20); }), wt::fib_serial(20));
}

// A loop whose first iteration throws: the rest of its range is skipped under every policy, as in
// the serial elision (which runs one iteration), not run on every thief that took a piece before
// the failure was known.  The halving policies (ws, wool, the fiber engine's) had no failure check:
// 10^8 cheap iterations after an iteration 0 that threw after 10 ms ran for 1.6 s under ws, 36 s
// under adf.  Under those policies iteration 0 throws only once a thief runs another iteration (the
// loop's upper halves are latent joins a thief takes; bounded by wt::event_bound, far beyond any
// steal), so that some thief holds a piece when the failure comes.  (The loop-frame policies have
// skipped since their pieces' failed_at; whether a thief holds a piece there is left to chance.)  What is counted:
// iterations that start after iteration 0 has raised its flag ("late").  Once the failure is
// recorded (a few microseconds of unwinding after the flag) every piece checks before it starts
// (for_tree, reduce_tree; the loop frames between timed chunks), so a thief runs at most the chunk
// it is in, a piece's untimed 64 iterations at most.  The bound, n/4 = 500,000 iterations of ~1 us:
// without the check a thief runs the rest of its piece late — the upper half under the halving
// policies, ~n/2; with it, even a throwing thread descheduled between its flag and its record for a
// whole round of the chaos stage's 32 threads on one core (31 thieves x a ~4 ms slice, ~124,000
// iterations) stays under it.
TEST_P(LoopFailures, AFirstIterationThatThrowsSkipsTheRest) {
  const std::uint64_t n = wt::breadth_first(policy()) ? 2'000 : 2'000'000;
  const bool wait_for_thief = can_steal() && wt::traits(policy()).loops == weft::detail::loop_style::halving;
  for (const bool reduce : {false, true}) {
    // One try: the iterations that started late.  Up to three tries: fifo's 2,000 iterations give a
    // bound of 500 (0.5 ms of work), which one scheduler slice of the throwing thread between its
    // flag and its record exceeds on a loaded machine (seen once in a CI rehearsal, under ctest -j2
    // beside other tests).  Without the check every try runs the rest late, so the tries do not
    // hide a missing one; with it, three descheduled windows in a row are needed to fail.
    std::uint64_t late_count = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::atomic<bool> elsewhere{false}, thrown{false};
      std::atomic<std::uint64_t> late{0};
      auto map = [&](std::uint64_t i) -> std::uint64_t {
        if (i == 0) {
          const auto until = std::chrono::steady_clock::now() + wt::event_bound;
          while (wait_for_thief && !elsewhere.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < until)
            weft::join([] {}, [] {});
          thrown.store(true, std::memory_order_relaxed);
          throw map_error("first");
        }
        elsewhere.store(true, std::memory_order_relaxed);
        if (thrown.load(std::memory_order_relaxed)) late.fetch_add(1, std::memory_order_relaxed);
        return busy(i, 1us);
      };
      try {
        pool().run([&] {
          if (reduce)
            return weft::parallel_reduce(std::uint64_t(0), n, std::uint64_t(0), map, std::plus<>{});
          weft::parallel_for(std::uint64_t(0), n, [&](std::uint64_t i) { map(i); });
          return std::uint64_t(0);
        });
        FAIL() << "no exception";
      } catch (const map_error& e) {
        EXPECT_STREQ(e.what(), "first");
      }
      if (wait_for_thief) EXPECT_TRUE(elsewhere.load()) << "no thief ran an iteration within " << wt::event_bound.count() << " s";
      late_count = late.load();
      if (late_count < n / 4) break;
    }
    EXPECT_LT(late_count, n / 4) << (reduce ? "parallel_reduce" : "parallel_for")
                                 << ": iterations above the failure ran on after it was known (three tries)";
  }
  EXPECT_EQ(pool().run([] { return wt::fib(20); }), wt::fib_serial(20));
}

// A reduction's first chunks (the untimed ramp 1, 2, 4, 8, ...: the first poll after one iteration)
// and what follows them, at every place a map may throw: the first chunk, the next ones, the first
// timed one, the loop's last iteration.  The exception is the one the serial elision throws (the
// lowest failing iteration's), combine only ever sees adjacent ranges left before right, and with
// nobody to steal (one worker, or a policy that runs everything on the caller) under the policies
// that run loops as loop frames, exactly the iterations below the failure ran (the halving policies'
// splits may run a right half first: fifo).  Without a failure the value covers the whole range, in
// order.  (Written for stop 50's inlined head of short reductions, not kept; since stop 65 the loop
// frames' reductions start in a head of their own, adaptive_loop::run_reduce, whose chunks end at 1,
// 3, 7, 15 and 31 before the chunk loop goes on: docs/results/loops.md.)
TEST_P(LoopFailures, AReductionFailsAtEveryPlaceOfItsFirstChunksAndAfter) {
  const bool alone = !can_steal() && wt::traits(policy()).loops == weft::detail::loop_style::loop_frame;
  for (const std::uint64_t n : {1u, 2u, 3u, 7u, 20u, 21u, 22u, 31u, 32u, 43u, 64u, 100u, 128u, 300u}) {
    std::vector<std::uint64_t> fails = {0, 1, 2, 3, 6, 7, 10, 15, 19, 20, 21, 22, 30, 31, 32, 42, 62, 63, 64, 126, 127, 128, n - 1, n};  // n: none fails
    for (const std::uint64_t f : fails) {
      if (f > n) continue;
      contract_log log;
      std::atomic<std::uint64_t> ran{0};
      auto map = [&](std::uint64_t i) -> span_sum {
        if (i == f) throw map_error(std::to_string(i));
        ran.fetch_add(1, std::memory_order_relaxed);
        return span_sum{i, i + 1, i};
      };
      auto combine = [&](span_sum a, span_sum b) -> span_sum {
        log.combines.fetch_add(1, std::memory_order_relaxed);
        if (a.end != b.begin) log.not_adjacent.fetch_add(1, std::memory_order_relaxed);
        return span_sum{a.begin, b.end, a.sum + b.sum};
      };
      const std::uint64_t before = pool().stats().total.loop_iterations;
      const std::string where = "n = " + std::to_string(n) + ", failing at " + std::to_string(f);
      try {
        const span_sum got = pool().run([&] { return weft::parallel_reduce(std::uint64_t(0), n, span_sum{0, 0, 0}, map, combine); });
        EXPECT_EQ(f, n) << where << ": no exception";
        EXPECT_EQ(got.begin, 0u) << where;
        EXPECT_EQ(got.end, n) << where;
        EXPECT_EQ(got.sum, n * (n - 1) / 2) << where;
      } catch (const map_error& e) {
        EXPECT_LT(f, n) << where;
        EXPECT_EQ(std::string(e.what()), std::to_string(f)) << where << ": not the lowest failing iteration's exception";
      }
      EXPECT_EQ(log.not_adjacent.load(), 0u) << where << ": combine called on ranges that are not adjacent";
      if (alone) {
        EXPECT_EQ(ran.load(), f) << where << ": iterations above the failure ran, or below it did not";
        EXPECT_EQ(pool().stats().total.loop_iterations - before, f) << where << ": loop_iterations";
      }
    }
  }
}

}  // namespace
