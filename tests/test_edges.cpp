// Edge cases (issue 8): result types the runtime must store and move correctly (over-aligned,
// huge, throwing moves and destructors), non-std exceptions crossing a steal, loop bounds at the
// integer limits, oversubscribed and pinned pools, pools made and destroyed from several threads,
// and a soak of random programs on random pools.
#include <sched.h>

#include <array>
#include <climits>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common.hpp"
#include "weft/detail/checks.hpp"
#include "random_program.hpp"

namespace {

class Edges : public wt::PoolTest {};
WT_INSTANTIATE(Edges);

// ---------------------------------------------------------------------------------------------
// Over-aligned results: every object of the type checks its own address, wherever the runtime
// constructs it (a frame's result slot, a loop piece's partial result, the pair join returns).

std::atomic<long> misaligned{0};

struct alignas(64) wide {
  std::uint64_t v[8] = {};
  wide() { check(); }
  explicit wide(std::uint64_t x) {
    check();
    for (int k = 0; k < 8; ++k) v[k] = x * (k + 1);
  }
  wide(const wide& o) {
    check();
    for (int k = 0; k < 8; ++k) v[k] = o.v[k];
  }
  wide& operator=(const wide& o) {
    check();
    for (int k = 0; k < 8; ++k) v[k] = o.v[k];
    return *this;
  }
  ~wide() { check(); }
  void check() const {
    if (reinterpret_cast<std::uintptr_t>(this) % 64 != 0) misaligned.fetch_add(1);
  }
};
static_assert(alignof(wide) == 64);

wide wide_fib(unsigned n) {
  if (n < 2) return wide(n);
  auto [a, b] = weft::join([&] { return wide_fib(n - 1); }, [&] { return wide_fib(n - 2); });
  wide out;
  for (int k = 0; k < 8; ++k) out.v[k] = a.v[k] + b.v[k];
  return out;
}

TEST_P(Edges, OverAlignedJoinResults) {
  misaligned = 0;
  const unsigned n = wt::pick(20u, 14u);
  const wide r = pool().run([&] { return wide_fib(n); });
  for (int k = 0; k < 8; ++k) EXPECT_EQ(r.v[k], wt::fib_serial(n) * (k + 1)) << "lane " << k;
  EXPECT_EQ(misaligned.load(), 0) << "a 64-byte-aligned result was constructed at a misaligned address";
}

TEST_P(Edges, OverAlignedReduce) {
  misaligned = 0;
  const int n = wt::pick(20000, 3000);
  const wide r = pool().run([&] {
    return weft::parallel_reduce(0, n, wide(0), [](int i) { return wide(std::uint64_t(i)); }, [](wide a, const wide& b) {
      for (int k = 0; k < 8; ++k) a.v[k] += b.v[k];
      return a;
    });
  });
  const std::uint64_t want = std::uint64_t(n) * (n - 1) / 2;
  for (int k = 0; k < 8; ++k) EXPECT_EQ(r.v[k], want * (k + 1)) << "lane " << k;
  EXPECT_EQ(misaligned.load(), 0) << "a 64-byte-aligned partial result was constructed at a misaligned address";
}

// ---------------------------------------------------------------------------------------------
// Huge results by value: arrays of 256 KiB (128 KiB under sanitizers, whose redzones multiply
// stack use) and big vectors, through a certain steal where one can happen.  1 MiB arrays: see
// HugeResultsOfOneMiB.

template <std::size_t Bytes>
using huge_of = std::array<std::uint8_t, Bytes>;
constexpr std::size_t huge_bytes = wt::sanitized ? (128u << 10) : (256u << 10);
using huge = huge_of<huge_bytes>;

template <std::size_t Bytes = huge_bytes>
huge_of<Bytes> make_huge(std::uint8_t seed) {
  huge_of<Bytes> h;
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::uint8_t(seed + i * 7);
  return h;
}
template <std::size_t Bytes>
bool is_huge(const huge_of<Bytes>& h, std::uint8_t seed) {
  for (std::size_t i = 0; i < h.size(); ++i)
    if (h[i] != std::uint8_t(seed + i * 7)) return false;
  return true;
}

TEST_P(Edges, HugeResultsByValue) {
  for (int rep = 0; rep < 3; ++rep) {
    const bool ok = pool().run([&] {
      bool stolen = false;
      const auto [x, y] = weft::join([] { return make_huge(1); }, [] { return make_huge(2); });
      bool good = is_huge(x, 1) && is_huge(y, 2);
      if (can_steal()) {
        auto [v, w] = wt::join_stolen([] { return std::vector<std::uint64_t>(1 << 18, 5); },
                                      [] { return std::vector<std::uint64_t>(1 << 18, 9); }, stolen);
        EXPECT_TRUE(stolen) << "no steal within " << wt::event_bound.count() << " s";
        good = good && v.size() == (1u << 18) && v.back() == 5 && w.size() == (1u << 18) && w.front() == 9;
      }
      return good;
    });
    EXPECT_TRUE(ok) << "rep " << rep;
  }
}

// Regression test: a join whose branches return 1 MiB by value crashed (SIGSEGV) on every policy
// with workers.  join_slow's frame holds three copies of the results (3 MiB), the caller holds the
// pair, and the branches build theirs: more than the 8 MiB std::thread stack workers had, and a
// 3 MiB frame jumps a one-page guard.  Workers now run on native stacks of config::stack_bytes
// (1 GiB reserved by default).
TEST_P(Edges, HugeResultsOfOneMiB) {
  const bool ok = pool().run([] {
    const auto [x, y] = weft::join([] { return make_huge<(1u << 20)>(1); }, [] { return make_huge<(1u << 20)>(2); });
    return is_huge(x, 1) && is_huge(y, 2);
  });
  EXPECT_TRUE(ok);
}

// ---------------------------------------------------------------------------------------------
// Throwing moves and destructors.  Every live object is counted, so a leak shows as a non-zero
// count after the run.

std::atomic<long> live{0};
std::atomic<long> moves_left{-1};  // the move that makes this 0 throws; negative: never

struct move_throws {
  std::uint64_t v = 0;
  explicit move_throws(std::uint64_t x) : v(x) { live.fetch_add(1); }
  move_throws(move_throws&& o) : v(o.v) {
    if (moves_left.fetch_sub(1) == 1) throw std::runtime_error("move");
    live.fetch_add(1);
  }
  move_throws(const move_throws&) = delete;
  move_throws& operator=(move_throws&& o) {
    if (moves_left.fetch_sub(1) == 1) throw std::runtime_error("move");
    v = o.v;
    return *this;
  }
  ~move_throws() { live.fetch_sub(1); }
};

class EdgesThrowingResults : public wt::PoolTest {
 protected:
  void SetUp() override {
    live = 0;
    moves_left = -1;
    PoolTest::SetUp();
  }
  void TearDown() override {
    moves_left = -1;
    PoolTest::TearDown();
    EXPECT_EQ(live.load(), 0) << "results leaked or were destroyed twice";
  }
};
WT_INSTANTIATE(EdgesThrowingResults);

// The k-th move of a join's results throws (k = 1, 2, ...): the exception leaves the join and the
// run, every result made is destroyed once.  When no move throws, the join returns the values.
// (Regression: a promoted join once moved the first result into join_promoted's parameter before
// reclaiming the frame, so a throwing move left a frame that a thief still held — the run hung or
// aborted — and a throwing move out of a stolen result leaked it.)
TEST_P(EdgesThrowingResults, MoveThrowsInJoin) {
  for (long k = 1; k <= 6; ++k) {
    moves_left = k;
    bool threw = false;
    std::uint64_t sum = 0;
    try {
      sum = pool().run([&] {
        auto [a, b] = weft::join([] { return move_throws(3); }, [] { return move_throws(4); });
        return a.v + b.v;
      });
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "move");
      threw = true;
    }
    EXPECT_TRUE(threw || sum == 7) << "k " << k;
    moves_left = -1;
    EXPECT_EQ(live.load(), 0) << "after the join whose move " << k << " was set to throw";
  }
  EXPECT_EQ(pool().run([] { return wt::fib(14); }), wt::fib_serial(14));
}

// The same through a certain steal: the second branch's result is made on a thief.
TEST_P(EdgesThrowingResults, MoveThrowsInStolenJoin) {
  if (!can_steal()) GTEST_SKIP() << "needs 2+ workers";
  for (long k = 1; k <= 6; ++k) {
    moves_left = k;
    bool threw = false, stolen = false;
    std::uint64_t sum = 0;
    try {
      sum = pool().run([&] {
        auto [a, b] = wt::join_stolen([] { return move_throws(3); }, [] { return move_throws(4); }, stolen);
        return a.v + b.v;
      });
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "move");
      threw = true;
    }
    EXPECT_TRUE(stolen) << "k " << k << ": no steal within " << wt::event_bound.count() << " s";
    EXPECT_TRUE(threw || sum == 7) << "k " << k;
    moves_left = -1;
    EXPECT_EQ(live.load(), 0) << "after the join whose move " << k << " was set to throw";
  }
}

// A reduce whose partial results throw on their k-th move: the exception leaves the reduce.
// (Regression: under ws, whose loops split by halving joins, this aborted with "deque order broken
// at a join" — the join bug of MoveThrowsInJoin.)
TEST_P(EdgesThrowingResults, MoveThrowsInReduce) {
  const int n = wt::pick(3000, 800);
  for (long k : {1L, 2L, 17L, 500L, 2000L}) {
    moves_left = k;
    bool threw = false;
    std::uint64_t got = 0;
    try {
      got = pool().run([&] {
        return weft::parallel_reduce(0, n, move_throws(0), [](int i) { return move_throws(std::uint64_t(i)); },
                                     [](move_throws a, move_throws b) {
                                       a.v += b.v;
                                       return a;
                                     }).v;
      });
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "move");
      threw = true;
    }
    EXPECT_TRUE(threw || got == std::uint64_t(n) * (n - 1) / 2) << "k " << k;
    moves_left = -1;
    EXPECT_EQ(live.load(), 0) << "after the reduce whose move " << k << " was set to throw";
  }
  EXPECT_EQ(pool().run([] { return wt::fib(14); }), wt::fib_serial(14));
}

// A result whose destructor throws (noexcept(false)) when its owner destroys it: the throw happens
// in the caller's code, after the join returned; the other result is destroyed normally.
struct dtor_throws {
  bool armed = false;
  explicit dtor_throws(bool a) : armed(a) { live.fetch_add(1); }
  dtor_throws(dtor_throws&& o) noexcept : armed(o.armed) {
    o.armed = false;  // a moved-from object is inert: only the last owner throws
    live.fetch_add(1);
  }
  ~dtor_throws() noexcept(false) {
    live.fetch_sub(1);
    if (armed) throw std::logic_error("destructor");
  }
};

TEST_P(EdgesThrowingResults, DestructorThrowsAtTheCaller) {
  for (int rep = 0; rep < 4; ++rep) {
    try {
      pool().run([&] {
        bool stolen = false;
        if (can_steal()) {
          auto [a, b] = wt::join_stolen([] { return dtor_throws(false); }, [] { return dtor_throws(true); }, stolen);
          EXPECT_TRUE(stolen);
        } else {
          auto [a, b] = weft::join([] { return dtor_throws(false); }, [] { return dtor_throws(true); });
        }
      });
      ADD_FAILURE() << "the destructor's exception was lost";
    } catch (const std::logic_error& e) {
      EXPECT_STREQ(e.what(), "destructor");
    }
    EXPECT_EQ(live.load(), 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Non-std exceptions from stolen loop pieces: the loop runs in a join's second branch, which a
// thief certainly runs (wt::join_stolen); the thrown int / custom class crosses back to the owner.

struct not_std {
  int code;
  std::string why;
};

TEST_P(Edges, NonStdExceptionsFromStolenLoopPieces) {
  const int n = wt::pick(4000, 800);
  for (int rep = 0; rep < 4; ++rep) {
    const bool custom = rep % 2 == 1;
    bool stolen = false;
    try {
      pool().run([&] {
        auto loop = [&] {
          weft::parallel_for(0, n, [&](int i) {
            if (i == n / 3 || i == n - 1) {  // the lower one wins (serial elision)
              if (custom) throw not_std{i, "custom"};
              throw i;
            }
          });
          return 0;
        };
        if (can_steal()) {
          (void)wt::join_stolen([] { return 0; }, loop, stolen);  // throws: checked after the catch
        } else {
          (void)weft::join([] { return 0; }, loop);
        }
      });
      ADD_FAILURE() << "no exception";
    } catch (int i) {
      EXPECT_FALSE(custom);
      EXPECT_EQ(i, n / 3);
    } catch (const not_std& e) {
      EXPECT_TRUE(custom);
      EXPECT_EQ(e.code, n / 3);
      EXPECT_EQ(e.why, "custom");
    }
    // Here, not after the join: the join rethrows the loop's exception, so a check there never ran
    // (and a stall of the wait, stop 36's lost re-arm under lazy-df2, went unreported for 30 s).
    if (can_steal()) EXPECT_TRUE(stolen) << "rep " << rep << ": no steal within " << wt::event_bound.count() << " s";
    // And from a reduce on the caller's side, whose pieces thieves may take.
    try {
      pool().run([&] {
        return weft::parallel_reduce(0, n, 0L, [&](int i) -> long {
          if (i == n / 2) throw not_std{i, "reduce"};
          return i;
        }, std::plus<>{});
      });
      ADD_FAILURE() << "no exception";
    } catch (const not_std& e) {
      EXPECT_EQ(e.code, n / 2);
    }
  }
  EXPECT_EQ(pool().run([] { return wt::fib(14); }), wt::fib_serial(14));
}

// ---------------------------------------------------------------------------------------------
// Loop bounds at the integer limits: every index runs exactly once, no overflow (UBSan watches the
// sanitized build), reversed and empty ranges run nothing.

template <class L, class H>
void check_each_once(weft::pool& pool, L lo, H hi, std::size_t expected_count) {
  using I = std::common_type_t<L, H>;
  using U = std::make_unsigned_t<I>;
  std::vector<std::atomic<int>> seen(expected_count);
  std::atomic<long> outside{0};
  pool.run([&] {
    weft::parallel_for(lo, hi, [&](auto i) {
      static_assert(std::is_same_v<decltype(i), I>);
      const U off = U(U(i) - U(I(lo)));
      if (I(i) < I(lo) || I(i) >= I(hi) || off >= expected_count)
        outside.fetch_add(1);
      else
        seen[off].fetch_add(1);
    });
  });
  EXPECT_EQ(outside.load(), 0) << "indices outside [lo, hi)";
  for (std::size_t k = 0; k < expected_count; ++k) ASSERT_EQ(seen[k].load(), 1) << "offset " << k << " from " << +lo;
  // The reduce over the same range: the count of indices and their sum modulo 2^64.
  const auto got = pool.run([&] {
    return weft::parallel_reduce(lo, hi, std::pair<std::uint64_t, std::uint64_t>{0, 0},
                                 [](auto i) { return std::pair<std::uint64_t, std::uint64_t>{1, std::uint64_t(i)}; },
                                 [](auto a, auto b) { return std::pair{a.first + b.first, a.second + b.second}; });
  });
  std::uint64_t want_sum = 0;
  for (std::size_t k = 0; k < expected_count; ++k) want_sum += std::uint64_t(I(U(U(I(lo)) + U(k))));
  EXPECT_EQ(got.first, expected_count);
  EXPECT_EQ(got.second, want_sum);
}

TEST_P(Edges, LoopBoundsAtIntegerLimits) {
  check_each_once(pool(), INT_MAX - 100, INT_MAX, 100);
  check_each_once(pool(), std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::min() + 100, 100);
  check_each_once(pool(), std::numeric_limits<std::int64_t>::max() - 100, std::numeric_limits<std::int64_t>::max(), 100);
  check_each_once(pool(), std::numeric_limits<std::uint64_t>::max() - 100, std::numeric_limits<std::uint64_t>::max(), 100);
  check_each_once(pool(), std::uint64_t(0), std::uint64_t(100), 100);
  check_each_once(pool(), std::int8_t(INT8_MIN), std::int8_t(INT8_MAX), 255);  // all but INT8_MAX
  check_each_once(pool(), std::uint8_t(0), std::uint8_t(UINT8_MAX), 255);
  check_each_once(pool(), std::int16_t(INT16_MIN), std::int16_t(INT16_MAX), 65535);
  check_each_once(pool(), INT_MIN, INT_MIN + 1, 1);
  // A full int8_t range through a wider bound type: the common type is int.
  check_each_once(pool(), std::int8_t(INT8_MIN), int(INT8_MAX) + 1, 256);
}

TEST_P(Edges, ReversedAndEmptyRangesRunNothing) {
  std::atomic<long> ran{0};
  auto count = [&](auto) { ran.fetch_add(1); };
  pool().run([&] {
    weft::parallel_for(INT_MAX, INT_MIN, count);
    weft::parallel_for(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), count);
    weft::parallel_for(std::numeric_limits<std::uint64_t>::max(), std::uint64_t(0), count);
    weft::parallel_for(std::int8_t(INT8_MAX), std::int8_t(INT8_MIN), count);
    weft::parallel_for(5, 5, count);
    weft::parallel_for(std::uint64_t(-1), std::uint64_t(-1), count);
    weft::parallel_for(10, 3, count);
  });
  EXPECT_EQ(ran.load(), 0);
  const long r = pool().run([] {
    return weft::parallel_reduce(INT_MAX, INT_MIN, 42L, [](int) -> long { return 1; }, std::plus<>{}) +
           weft::parallel_reduce(std::uint64_t(7), std::uint64_t(7), 0L, [](std::uint64_t) -> long { return 1; }, std::plus<>{});
  });
  EXPECT_EQ(r, 42) << "an empty or reversed reduce gives init";
}

// ---------------------------------------------------------------------------------------------
// Pools bigger than the machine, and a pool confined to one CPU.

class EdgesPolicy : public testing::TestWithParam<weft::policy> {};
INSTANTIATE_TEST_SUITE_P(All, EdgesPolicy, testing::ValuesIn(wt::parallel_policies()), wt::policy_name);

// fib and a reduce on a pool of `workers`: both equal their serial references.
void fib_and_reduce(weft::policy p, unsigned workers) {
  SCOPED_TRACE(std::string(weft::to_string(p)) + "/" + std::to_string(workers));
  weft::pool pool(weft::config{.workers = workers, .policy = p});
  ASSERT_EQ(pool.size(), workers);
  const unsigned n = wt::pick(22u, 15u);
  EXPECT_EQ(pool.run([&] { return wt::fib(n); }), wt::fib_serial(n));
  const int m = wt::pick(200000, 20000);
  EXPECT_EQ(pool.run([&] {
    return weft::parallel_reduce(0, m, std::uint64_t(0), [](int i) { return wt::mix(std::uint64_t(i)); }, std::plus<>{});
  }), [&] {
    std::uint64_t s = 0;
    for (int i = 0; i < m; ++i) s += wt::mix(std::uint64_t(i));
    return s;
  }());
}

TEST_P(EdgesPolicy, OversubscribedPools) {
  for (unsigned workers : {64u, 96u}) fib_and_reduce(GetParam(), workers);
}

// `taskset -c 0`: the process may use one CPU only.  In a death-test child (the affinity must not
// leak into the other tests), pinned before the pool exists, so its workers inherit the mask.
TEST_P(EdgesPolicy, PinnedToOneCpu) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const weft::policy p = GetParam();
  EXPECT_EXIT(
      {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        if (::sched_setaffinity(0, sizeof one, &one) != 0) {
          std::fprintf(stderr, "sched_setaffinity failed\n");
          std::_Exit(2);
        }
        fib_and_reduce(p, 8);
        std::_Exit(testing::Test::HasFailure() ? 1 : 0);
      },
      testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------------------------
// Pools created, used and destroyed from several threads at once.

TEST(EdgesLifecycle, PoolsFromSeveralThreadsAtOnce) {
  const auto policies = weft::implemented_policies();
  const int rounds = wt::pick(30, 6);
  // Smaller under a sanitizer: adf, dfd and fifo make a thread per join and per loop split, about a
  // millisecond each to ThreadSanitizer.
  const unsigned n = wt::pick(14u, 10u);
  const int iterations = wt::pick(1000, 200);
  std::atomic<long> wrong{0}, done{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < rounds; ++r) {
        const weft::policy p = policies[(t + r) % policies.size()];
        const unsigned workers = wt::runs_on_caller(p) ? 1 : 1 + (t + r) % 4;
        weft::pool pool(weft::config{.workers = workers, .policy = p});
        if (pool.run([&] { return wt::fib(n); }) != wt::fib_serial(n)) wrong.fetch_add(1);
        const long s = pool.run([&] { return weft::parallel_reduce(0, iterations, 0L, [](int i) -> long { return i; }, std::plus<>{}); });
        if (s != long(iterations - 1) * iterations / 2) wrong.fetch_add(1);
        done.fetch_add(1);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(done.load(), 8L * rounds);
}

// ---------------------------------------------------------------------------------------------
// Soak: random programs (random_program.hpp) on pools of random policies and sizes, bounded by
// count.  Each program is checked against its serial evaluation.

TEST(EdgesSoak, RandomProgramsOnRandomPools) {
  const auto policies = weft::implemented_policies();
  const unsigned programs = unsigned(wt::pick(120, 12));
  wt::rng r(20261123);
  for (unsigned k = 0; k < programs; ++k) {
    const weft::policy p = policies[r.below(std::uint32_t(policies.size()))];
    const unsigned sizes[] = {1, 2, 3, 4, 6, 8, 12};
    const unsigned workers = wt::runs_on_caller(p) ? 1 : sizes[r.below(7)];
    const std::uint64_t seed = r.next();
    const unsigned throwers = r.below(4);
    SCOPED_TRACE(std::string(weft::to_string(p)) + "/" + std::to_string(workers) + " seed " + std::to_string(seed) +
                 " throwers " + std::to_string(throwers));
    weft::pool pool(weft::config{.workers = workers, .policy = p});
    const wt::randprog::program prog = wt::randprog::make_program(seed, throwers);
    wt::randprog::check_against_serial(prog, [&](auto&& thunk) { return pool.run(thunk); });
    if (testing::Test::HasFailure()) break;  // the trace names the first failing program
  }
}

}  // namespace

namespace {

// The runtime's way out when it cannot go on (weft/detail/checks.hpp, fatal): "weft: ", the
// message, one line on stderr, then abort.  A message longer than its buffer is cut, ending in
// "...", not lost; a broken invariant names what broke and where.
TEST(EdgesFatal, OneLineEndingTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(weft::detail::fatal("a pool saw %d of %s", 3, "something"), "^weft: a pool saw 3 of something\n$");
  const std::string long_text(5000, 'x');
  EXPECT_DEATH(weft::detail::fatal("%s", long_text.c_str()), "^weft: x{100,}\\.\\.\\.\n$");
  EXPECT_DEATH(weft::detail::invariant_failed("the frame is owned", "here.cpp", 12),
               "^weft: internal invariant broken: the frame is owned \\(here\\.cpp:12\\)\n$");
}

}  // namespace
