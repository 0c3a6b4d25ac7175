// parallel_for / parallel_reduce: every index type, empty/reversed/unit ranges, order of a
// non-commutative combine, grain hints; and nqueens written declaratively (SPEC §2, §7).
#include <array>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common.hpp"

namespace {

class Loops : public wt::PoolTest {};
WT_INSTANTIATE(Loops);

// Every index in [lo, hi) is visited exactly once, with the expected index type.
template <class Expected, class L, class H>
void check_for(weft::pool& p, L lo, H hi, std::size_t grain = 1) {
  using I = std::common_type_t<L, H>;
  static_assert(std::is_same_v<I, Expected>);
  const std::size_t n = I(lo) < I(hi) ? std::size_t(std::make_unsigned_t<I>(I(hi) - I(lo))) : 0;
  std::vector<std::atomic<int>> hits(n);
  std::atomic<std::size_t> bad{0};
  p.run([&] {
    weft::parallel_for(
        lo, hi,
        [&](auto i) {
          static_assert(std::is_same_v<decltype(i), Expected>);
          const auto k = std::size_t(std::make_unsigned_t<I>(i - I(lo)));
          if (i < I(lo) || i >= I(hi) || k >= n)
            bad.fetch_add(1);
          else
            hits[k].fetch_add(1, std::memory_order_relaxed);
        },
        weft::grain{grain});
  });
  EXPECT_EQ(bad.load(), 0u);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < n; ++k) wrong += hits[k].load() != 1;
  EXPECT_EQ(wrong, 0u) << "range [" << +lo << ", " << +hi << ") grain " << grain;
}

TEST_P(Loops, ForIndexTypes) {
  const int n = wt::pick(10000, 2000);
  check_for<int>(pool(), 0, n);
  check_for<int>(pool(), -n / 2, n / 2);
  check_for<unsigned>(pool(), 3u, unsigned(n));
  check_for<std::int64_t>(pool(), std::int64_t(1) << 40, (std::int64_t(1) << 40) + n);
  check_for<std::int64_t>(pool(), std::int64_t(-n), std::int64_t(-3));
  check_for<std::size_t>(pool(), std::size_t(0), std::size_t(n));
  check_for<std::uint64_t>(pool(), std::uint64_t(0), std::uint64_t(n));
  check_for<short>(pool(), short(-30000), short(30000));  // span larger than SHRT_MAX
  check_for<signed char>(pool(), (signed char)(-128), (signed char)(127));
  check_for<unsigned char>(pool(), (unsigned char)(0), (unsigned char)(255));
  // Ranges touching the limits of the type: no overflow in the split arithmetic.
  check_for<int>(pool(), INT_MAX - 1000, INT_MAX);
  check_for<int>(pool(), INT_MIN, INT_MIN + 1000);
  check_for<std::int64_t>(pool(), INT64_MAX - 777, INT64_MAX);
  check_for<std::uint64_t>(pool(), UINT64_MAX - 777, UINT64_MAX);
}

// A body that is not callable as const (or not trivially copyable) is called as the caller's own
// object, every iteration on every worker; a const, trivially copyable one may be called through a
// copy (loop_body in loops.hpp), which behaves the same.  Both give the serial elision's results.
struct where_called {
  const where_called* expected = nullptr;
  std::atomic<long>* elsewhere = nullptr;
  std::atomic<long>* calls = nullptr;
  void operator()(long) {  // not const
    if (this != expected) elsewhere->fetch_add(1);
    calls->fetch_add(1);
  }
  long operator()(long i, int) {  // the map of a reduce, not const either
    (*this)(i);
    return i;
  }
};

TEST_P(Loops, NonConstBodiesAreCalledAsTheCallersObject) {
  std::atomic<long> elsewhere{0}, calls{0};
  where_called body{nullptr, &elsewhere, &calls};
  body.expected = &body;
  const long n = wt::pick(20000L, 3000L);
  pool().run([&] { weft::parallel_for(0L, n, body); });
  EXPECT_EQ(calls.load(), n);
  EXPECT_EQ(elsewhere.load(), 0) << "iterations called a copy of a non-const body";
  calls = 0;
  auto map = [&body](long i) mutable { return body(i, 0); };
  const long sum = pool().run([&] { return weft::parallel_reduce(0L, n, 0L, map, [](long a, long b) { return a + b; }); });
  EXPECT_EQ(sum, n * (n - 1) / 2);
  EXPECT_EQ(calls.load(), n);
  EXPECT_EQ(elsewhere.load(), 0);
}

// A const body capturing by value (copied into each piece's registers) computes what the serial
// loop computes, and writes through the pointers it captured.
TEST_P(Loops, ConstBodiesCapturingByValue) {
  const long n = wt::pick(50000L, 5000L);
  std::vector<double> x(std::size_t(n), 0.0), y(std::size_t(n), 1.0), want(std::size_t(n), 0.0);
  for (long i = 0; i < n; ++i) x[std::size_t(i)] = double(i % 97);
  for (long i = 0; i < n; ++i) want[std::size_t(i)] = 0.5 * x[std::size_t(i)] + 2.0 * y[std::size_t(i)];
  const double* xp = x.data();
  double* yp = y.data();
  const double a = 0.5, b = 2.0;
  pool().run([&] { weft::parallel_for(0L, n, [=](long i) { yp[i] = a * xp[i] + b * yp[i]; }); });
  EXPECT_EQ(y, want);
}

TEST_P(Loops, ForMixedTypes) {
  const int n = wt::pick(5000, 1000);
  check_for<std::size_t>(pool(), 0, std::size_t(n));           // int, size_t
  check_for<long>(pool(), -n, long(n));                         // int, long
  check_for<int>(pool(), short(-5), n);                         // short, int
  check_for<long long>(pool(), -7, (long long)n);               // int, long long
  check_for<unsigned>(pool(), 0, unsigned(n));                  // int, unsigned
  check_for<std::int64_t>(pool(), std::int32_t(-100), std::int64_t(n));
}

TEST_P(Loops, EmptyReversedAndUnitRanges) {
  std::atomic<int> calls{0};
  auto body = [&](auto) { ++calls; };
  pool().run([&] {
    weft::parallel_for(0, 0, body);
    weft::parallel_for(10, 3, body);
    weft::parallel_for(5u, 5u, body);
    weft::parallel_for(std::size_t(7), std::size_t(2), body);
    weft::parallel_for(-1, -5, body);
    weft::parallel_for(INT_MAX, INT_MIN, body);
  });
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(pool().run([] { return weft::parallel_reduce(4, 4, 17, [](int) { return 1; }, std::plus<>{}); }), 17);
  EXPECT_EQ(pool().run([] { return weft::parallel_reduce(9, 2, 17, [](int) { return 1; }, std::plus<>{}); }), 17);
  EXPECT_EQ(pool().run([] {
              return weft::parallel_reduce(std::size_t(3), std::size_t(0), std::string("init"),
                                           [](std::size_t) { return std::string("x"); }, std::plus<>{});
            }),
            "init");

  int seen = -1;
  pool().run([&] { weft::parallel_for(41, 42, [&](int i) { seen = i; ++calls; }); });
  EXPECT_EQ(seen, 41);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(pool().run([] {
              return weft::parallel_reduce(41, 42, std::string("<"), [](int i) { return std::to_string(i); },
                                           std::plus<>{});
            }),
            "<41");
}

TEST_P(Loops, ReduceIndexTypes) {
  const int n = wt::pick(20000, 3000);
  auto sq = [](auto i) { return std::int64_t(i) * std::int64_t(i) % 1000003; };
  auto serial = [&](std::int64_t lo, std::int64_t hi, std::int64_t init) {
    for (std::int64_t i = lo; i < hi; ++i) init += sq(i);
    return init;
  };
  pool().run([&] {
    EXPECT_EQ(weft::parallel_reduce(0, n, std::int64_t(5), sq, std::plus<>{}), serial(0, n, 5));
    EXPECT_EQ(weft::parallel_reduce(-n, n, std::int64_t(0), sq, std::plus<>{}), serial(-n, n, 0));
    EXPECT_EQ(weft::parallel_reduce(1u, unsigned(n), std::int64_t(0), sq, std::plus<>{}), serial(1, n, 0));
    EXPECT_EQ(weft::parallel_reduce(std::size_t(0), std::size_t(n), std::int64_t(0), sq, std::plus<>{}),
              serial(0, n, 0));
    EXPECT_EQ(weft::parallel_reduce(std::int64_t(-3), std::int64_t(n), std::int64_t(0), sq, std::plus<>{}),
              serial(-3, n, 0));
    EXPECT_EQ(weft::parallel_reduce(0, std::size_t(n), std::int64_t(0), sq, std::plus<>{}), serial(0, n, 0));
    EXPECT_EQ(weft::parallel_reduce(short(-20000), short(20000), std::int64_t(0), sq, std::plus<>{}),
              serial(-20000, 20000, 0));
  });
}

// String concatenation: associative, not commutative.  The result must be in index order, with the
// initial value applied once, in front.
TEST_P(Loops, ReduceNonCommutativeStrings) {
  const int n = wt::pick(3000, 600);
  std::string expect = "[";
  for (int i = 0; i < n; ++i) expect += std::to_string(i) + ",";
  for (std::size_t g : {1u, 3u, 64u, 100000u}) {
    auto got = pool().run([&] {
      return weft::parallel_reduce(
          0, n, std::string("["), [](int i) { return std::to_string(i) + ","; },
          [](std::string a, const std::string& b) { return a + b; }, weft::grain{g});
    });
    EXPECT_EQ(got, expect) << "grain " << g;
  }
}

// A map whose values are of another type than the result: each is made a T before it is combined
// (the loop frames' loop_body), under every policy and grain.  Stop 46's results hunt: the halving
// policies (ws, wool, adf, dfd, fifo) combined a piece's values in map's own type (`acc =
// combine(acc, map(i))`), so a generic combine added 1.5 and -0.5 as doubles before the conversion:
// 512 with grain 4 and 32 with grain 64 there (n = 4000), n / 2 under every other policy.
TEST_P(Loops, ReduceMakesEachMappedValueTheResultType) {
  const int n = wt::pick(4000, 1000);
  auto map = [](int i) { return i % 2 == 0 ? 1.5 : -0.5; };  // as longs: 1 + 0 a pair
  for (std::size_t g : {1u, 4u, 64u}) {
    const long got = pool().run([&] {
      return weft::parallel_reduce(0, n, 0L, map, [](auto a, auto b) { return a + b; }, weft::grain{g});
    });
    EXPECT_EQ(got, n / 2) << "grain " << g;
  }
}

// A combine that appends its second argument to its first and returns the first as an rvalue
// reference (no copy of the accumulator): every element, in order, under every policy and grain.
// Stop 46's results hunt: the halving policies assigned such a result to the very accumulator it
// refers to (`acc = combine(std::move(acc), map(i))`, a self-move-assignment, which empties a
// std::vector in libstdc++), and the loop returned an empty vector with grain 4 or 64 there.
TEST_P(Loops, ReduceWithACombineThatReturnsItsFirstArgument) {
  const int n = wt::pick(3000, 600);
  for (std::size_t g : {1u, 4u, 64u}) {
    const std::vector<int> got = pool().run([&] {
      return weft::parallel_reduce(
          0, n, std::vector<int>{-1}, [](int i) { return std::vector<int>{i}; },
          [](std::vector<int>&& a, std::vector<int>&& b) -> std::vector<int>&& {
            a.insert(a.end(), b.begin(), b.end());
            return std::move(a);
          },
          weft::grain{g});
    });
    ASSERT_EQ(got.size(), std::size_t(n) + 1) << "grain " << g;
    for (int i = -1; i < n; ++i) ASSERT_EQ(got[std::size_t(i + 1)], i) << "grain " << g;
  }
}

// 2x2 matrix product modulo 2^64: associative, not commutative.
struct mat {
  std::uint64_t a, b, c, d;
  friend bool operator==(const mat&, const mat&) = default;
};
mat mul(const mat& x, const mat& y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
mat mat_of(std::int64_t i) {
  const std::uint64_t h = wt::mix(std::uint64_t(i));
  return {h | 1, h >> 7, h >> 13, (h >> 3) | 1};
}

TEST_P(Loops, ReduceNonCommutativeMatrices) {
  const std::int64_t lo = -1234, hi = lo + wt::pick(20000, 3000);
  const mat init{3, 1, 4, 1};
  mat expect = init;
  for (std::int64_t i = lo; i < hi; ++i) expect = mul(expect, mat_of(i));
  for (std::size_t g : {1u, 2u, 7u, 1000u}) {
    mat got = pool().run([&] { return weft::parallel_reduce(lo, hi, init, mat_of, mul, weft::grain{g}); });
    EXPECT_EQ(got, expect) << "grain " << g;
  }
  // Same product, reassociated serially by halves: a check of the check.
  EXPECT_FALSE(mul(mat_of(1), mat_of(2)) == mul(mat_of(2), mat_of(1)));
}

TEST_P(Loops, ReduceMoveOnlyAndVectors) {
  const int n = wt::pick(2000, 500);
  auto v = pool().run([&] {
    return weft::parallel_reduce(
        0, n, std::vector<int>{-1}, [](int i) { return std::vector<int>{i}; },
        [](std::vector<int> a, std::vector<int> b) {
          a.insert(a.end(), b.begin(), b.end());
          return a;
        });
  });
  ASSERT_EQ(v.size(), std::size_t(n) + 1);
  for (int i = -1; i < n; ++i) ASSERT_EQ(v[std::size_t(i + 1)], i);

  auto p = pool().run([&] {
    return weft::parallel_reduce(
        0, n, std::make_unique<long>(0), [](int i) { return std::make_unique<long>(i); },
        [](std::unique_ptr<long> a, std::unique_ptr<long> b) {
          *a += *b;
          return a;
        });
  });
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, long(n) * (n - 1) / 2);
}

TEST_P(Loops, GrainHints) {
  const int n = wt::pick(5000, 1000);
  for (std::size_t g : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(16), std::size_t(777), std::size_t(n),
                        std::size_t(n) * 10, SIZE_MAX}) {
    check_for<int>(pool(), 0, n, g);
    check_for<unsigned char>(pool(), (unsigned char)(1), (unsigned char)(200), g);
    const long sum = pool().run([&] {
      return weft::parallel_reduce(0, n, 0L, [](int i) { return long(i); }, std::plus<>{}, weft::grain{g});
    });
    EXPECT_EQ(sum, long(n) * (n - 1) / 2) << "grain " << g;
  }
}

// weft::grain{n}: a range of at most n iterations is not split (loops.hpp), so a loop of n
// iterations with grain n runs as one piece, in index order, on one thread.
TEST_P(Loops, ARangeNoLongerThanTheGrainIsNotSplit) {
  const int n = wt::pick(4000, 1000);
  std::atomic<int> next{0}, out_of_order{0};
  std::atomic<std::thread::id> first_thread{};
  std::atomic<int> other_threads{0};
  pool().run([&] {
    weft::parallel_for(0, n, [&](int i) {
      if (next.exchange(i + 1) != i) out_of_order.fetch_add(1);
      std::thread::id none{}, me = std::this_thread::get_id();
      if (!first_thread.compare_exchange_strong(none, me) && none != me) other_threads.fetch_add(1);
      if (i % 256 == 0) std::this_thread::yield();  // time for a thief to try
    }, weft::grain{std::size_t(n)});
  });
  EXPECT_EQ(next.load(), n);
  EXPECT_EQ(out_of_order.load(), 0);
  EXPECT_EQ(other_threads.load(), 0);
}

// A named body or map whose const call changes it (a `mutable` member) is called in place, as the
// serial elision calls it: every call counts in the caller's object, under every policy (stop 42's
// bug hunt: 0 under serial and the loop-frame policies, which called copies; 1000 under the halving
// ones).  A temporary may be copied: nobody else can see its state.
TEST_P(Loops, NamedBodiesWithMutableStateAreCalledInPlace) {
  struct counting_body {
    mutable long calls = 0;
    void operator()(int) const { ++calls; }
  };
  struct counting_map {
    mutable long calls = 0;
    long operator()(int i) const {
      ++calls;
      return long(i) * i;
    }
  };
  static_assert(std::is_trivially_copyable_v<counting_body> && std::is_trivially_copyable_v<counting_map>);
  const int n = wt::pick(5000, 1000);
  std::atomic<long> sum{0};
  counting_body body;
  counting_map map;
  // One worker only for the counts: more would call the one object from several threads at once (a
  // data race in the program, as it would be in a serial program's parallel version).
  if (workers() == 1) {
    pool().run([&] {
      weft::parallel_for(0, n, body);
      sum = weft::parallel_reduce(0, n, 0L, map, std::plus<>{});
    });
    EXPECT_EQ(body.calls, n);
    EXPECT_EQ(map.calls, n);
  } else {
    // Several workers: the address the calls reach is the caller's object.
    struct where_body {
      const void* expected;
      std::atomic<long>* wrong;
      void operator()(int) const {
        if (static_cast<const void*>(this) != expected) wrong->fetch_add(1);
      }
    };
    std::atomic<long> wrong{0};
    where_body w{nullptr, &wrong};
    w.expected = &w;
    pool().run([&] {
      weft::parallel_for(0, n, w);
      sum = weft::parallel_reduce(0, n, 0L, [](int i) { return long(i) * i; }, std::plus<>{});
    });
    EXPECT_EQ(wrong.load(), 0) << "iterations called a copy of a named body";
  }
  long want = 0;
  for (long i = 0; i < n; ++i) want += i * i;
  EXPECT_EQ(sum.load(), want);
  // And from a thread that is no worker (the global pool's re-entry).
  counting_body outside;
  std::thread([&] { weft::parallel_for(0, 100, [&](int i) { if (i == 0) outside(i); }); weft::parallel_for(0, 1, outside); }).join();
  EXPECT_EQ(outside.calls, 2);
}

TEST_P(Loops, GrainZeroThrows) {
  EXPECT_THROW((void)weft::grain{0}, std::invalid_argument);
  try {
    (void)weft::grain{0};
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("grain"), std::string::npos) << e.what();
  }
  // Thrown inside a run: it leaves the run, and the pool stays usable.
  EXPECT_THROW(pool().run([] { weft::parallel_for(0, 10, [](int) {}, weft::grain{0}); }), std::invalid_argument);
  EXPECT_EQ(pool().run([] { return wt::fib(15); }), wt::fib_serial(15));
  // A grain whose value is set to 0 after it was made: the loop refuses it the same way, before any
  // iteration runs (ws, wool, adf, dfd and fifo split its one-iteration ranges for ever and died of
  // a stack overflow; the other policies ran it as grain 1).
  weft::grain zero;
  zero.value = 0;
  std::atomic<int> ran{0};
  std::vector<int> v(10);
  EXPECT_THROW(pool().run([&] { weft::parallel_for(0, 10, [&](int) { ran.fetch_add(1); }, zero); }), std::invalid_argument);
  EXPECT_THROW(pool().run([&] { return weft::parallel_reduce(0, 10, 0, [&](int i) { ran.fetch_add(1); return i; }, std::plus<>{}, zero); }),
               std::invalid_argument);
  EXPECT_THROW(pool().run([&] { weft::parallel_for(v, [&](int&) { ran.fetch_add(1); }, zero); }), std::invalid_argument);
  bool refused_outside = false;  // from a thread that is no worker: the global pool's entry
  std::thread([&] {
    try {
      weft::parallel_reduce(0, 10, 0, [&](int i) { ran.fetch_add(1); return i; }, std::plus<>{}, zero);
    } catch (const std::invalid_argument&) {
      refused_outside = true;
    }
  }).join();
  EXPECT_TRUE(refused_outside);
  EXPECT_EQ(ran.load(), 0);
}

// A reduction from a thread that is no worker enters the global pool through one out-of-line
// function (detail::run_on_global_pool, stop 59's loopsize hunt) and brings its result back
// through the caller's frame: a move-only result arrives, none is copied, and the map's exception
// comes out as itself.
TEST(LoopsOutsideAPool, ReductionResultAndErrorComeBack) {
  struct counted {
    long v = 0;
    int* copies = nullptr;
    counted() = default;
    counted(long x, int* c) : v(x), copies(c) {}
    counted(const counted& o) : v(o.v), copies(o.copies) { ++*copies; }
    counted(counted&&) noexcept = default;
    counted& operator=(const counted& o) {
      v = o.v;
      copies = o.copies;
      ++*copies;
      return *this;
    }
    counted& operator=(counted&&) noexcept = default;
  };
  const int n = wt::pick(10000, 2000);
  long sum = 0;
  int copies = 0;
  bool threw = false;
  std::string what;
  std::thread([&] {
    auto p = weft::parallel_reduce(0, n, std::make_unique<long>(7), [](int i) { return std::make_unique<long>(i); },
                                   [](std::unique_ptr<long> a, std::unique_ptr<long> b) {
                                     *a += *b;
                                     return a;
                                   });
    sum = *p;
    counted c = weft::parallel_reduce(0, n, counted(0, &copies), [&](int i) { return counted(i, &copies); },
                                      [](counted a, counted b) { return counted(a.v + b.v, a.copies); });
    sum += c.v;
    try {
      weft::parallel_reduce(0, n, 0L, [&](int i) {
        if (i == n / 2) throw std::runtime_error("map " + std::to_string(i));
        return long(i);
      }, std::plus<>{});
    } catch (const std::runtime_error& e) {
      threw = true;
      what = e.what();
    }
  }).join();
  EXPECT_EQ(sum, 7 + 2 * (long(n) * (n - 1) / 2));
  EXPECT_EQ(copies, 0) << "a partial or final result was copied";
  EXPECT_TRUE(threw);
  EXPECT_EQ(what, "map " + std::to_string(n / 2));
}

TEST_P(Loops, NestedLoops) {
  const int n = wt::pick(150, 50), m = wt::pick(130, 40);
  std::vector<std::uint64_t> out(std::size_t(n) * m);
  pool().run([&] {
    weft::parallel_for(0, n, [&](int i) {
      weft::parallel_for(0u, unsigned(m), [&](unsigned j) { out[std::size_t(i) * m + j] = wt::mix(i * 1000 + j); });
    });
  });
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) ASSERT_EQ(out[std::size_t(i) * m + j], wt::mix(i * 1000 + j));
  const std::uint64_t sum = pool().run([&] {
    return weft::parallel_reduce(0, n, std::uint64_t(0), [&](int i) {
      return weft::parallel_reduce(std::size_t(0), std::size_t(m), std::uint64_t(0),
                                   [&](std::size_t j) { return out[std::size_t(i) * m + j]; }, std::plus<>{});
    }, std::plus<>{});
  });
  std::uint64_t expect = 0;
  for (auto v : out) expect += v;
  EXPECT_EQ(sum, expect);
}

// A loop body given as an lvalue function object with state that must be shared, through a
// reference, by every iteration (the serial elision calls the one object).
TEST_P(Loops, LvalueBody) {
  std::atomic<long> total{0};
  struct body_t {
    std::atomic<long>* t;
    void operator()(int i) const { t->fetch_add(i); }
  } body{&total};
  pool().run([&] { weft::parallel_for(0, 1000, body); });
  EXPECT_EQ(total.load(), 999L * 1000 / 2);
}

// The index is the body's own copy, whatever the body takes it as: a body taking it by forwarding
// reference (`auto&&`) and changing it changes no loop's counter.  Until stop 52 the halving
// policies' leaves (for_tree::leaf) passed their loop variable itself, and such a body under ws and
// wool with grain 16 ran 512 of 1000 iterations (each skipped the next); the loop-frame policies
// passed a copy and ran all 1000 (found by stop 52's loopshape hunt).
TEST_P(Loops, ABodyChangingItsIndexChangesNoLoopCounter) {
  for (std::size_t g : {std::size_t(1), std::size_t(16)}) {
    std::vector<std::atomic<int>> hits(1000);
    pool().run([&] {
      weft::parallel_for(0, 1000, [&](auto&& i) {
        hits[std::size_t(i)].fetch_add(1, std::memory_order_relaxed);
        i += 1;
      }, weft::grain{g});
    });
    std::size_t wrong = 0;
    for (auto& h : hits) wrong += h.load() != 1;
    EXPECT_EQ(wrong, 0u) << "grain " << g;
  }
}

// The index reaches the body and the map as an rvalue (README: "an rvalue of the bounds' common
// type"), under every policy, named or not: a body taking `int&&` compiles and runs, and one
// overloaded on the index's value category takes its rvalue overload for every iteration.  Until
// stop 58's loopsuser hunt the loop-frame policies (serial, ws-ap, the lazy ones, heartbeat) and
// every named body passed an lvalue (loops.hpp, loop_body and called_in_place): the `int&&` bodies
// below did not compile (index_callable let them through, the engine failed), and the overloaded
// one took its lvalue overload 4000 times in 4000 under lazy-bf and 2000 under ws.
struct index_category {
  std::atomic<long>* lvalues;
  std::atomic<long>* rvalues;
  void operator()(const int&) const { lvalues->fetch_add(1, std::memory_order_relaxed); }
  void operator()(int&& i) const { rvalues->fetch_add(i, std::memory_order_relaxed); }
};

TEST_P(Loops, TheIndexReachesTheBodyAsAnRvalue) {
  const int n = wt::pick(1000, 300);
  const long sum = long(n) * (n - 1) / 2;
  for (std::size_t g : {std::size_t(1), std::size_t(7)}) {
    std::atomic<long> lvalues{0}, rvalues{0};
    const index_category named{&lvalues, &rvalues};
    pool().run([&] {
      weft::parallel_for(0, n, index_category{&lvalues, &rvalues}, weft::grain{g});
      weft::parallel_for(0, n, named, weft::grain{g});
    });
    EXPECT_EQ(lvalues.load(), 0) << "grain " << g;
    EXPECT_EQ(rvalues.load(), 2 * sum) << "grain " << g;
    std::atomic<long> total{0};
    pool().run([&] { weft::parallel_for(0, n, [&total](int&& i) { total.fetch_add(i, std::memory_order_relaxed); }, weft::grain{g}); });
    EXPECT_EQ(total.load(), sum) << "grain " << g;
    const auto map = [](int&& i) { return long(i); };
    EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(0, n, 0L, map, std::plus<>{}, weft::grain{g}); }), sum) << "grain " << g;
    EXPECT_EQ(pool().run([&] {
                return weft::parallel_reduce(0, n, 0L, [](auto&& i) { return std::is_lvalue_reference_v<decltype(i)> ? 1L : 0L; },
                                             std::plus<>{}, weft::grain{g});
              }),
              0L)
        << "grain " << g << ": iterations that saw an lvalue";
  }
}

// A temporary body or map is called as the non-const object it is, as the serial elision
// (`auto&& body = make(); for (...) body(i);`) and a named body call it, also where the loop calls a
// copy of it (loops.hpp, body_copy).  Until stop 58's loopsuser hunt the copy was a const member of
// the loop's wrapper: a function object overloaded on const took its const overload for all 1000
// iterations of a parallel_for under serial, ws-ap, the lazy policies and heartbeat and of every
// reduction, its non-const one in a parallel_for under ws, wool, adf, dfd and fifo.
struct constness_seen {
  std::atomic<long>* as_const;
  std::atomic<long>* as_non_const;
  long operator()(int) const {
    as_const->fetch_add(1, std::memory_order_relaxed);
    return 1;
  }
  long operator()(int) {
    as_non_const->fetch_add(1, std::memory_order_relaxed);
    return 1;
  }
};

TEST_P(Loops, ATemporaryBodyIsCalledAsANonConstObject) {
  const int n = wt::pick(1000, 300);
  for (std::size_t g : {std::size_t(1), std::size_t(7)}) {
    std::atomic<long> as_const{0}, as_non_const{0};
    constness_seen named{&as_const, &as_non_const};
    pool().run([&] {
      weft::parallel_for(0, n, constness_seen{&as_const, &as_non_const}, weft::grain{g});
      weft::parallel_for(0, n, named, weft::grain{g});
    });
    EXPECT_EQ(as_const.load(), 0) << "parallel_for, grain " << g;
    EXPECT_EQ(as_non_const.load(), 2L * n) << "parallel_for, grain " << g;
    as_non_const = 0;
    EXPECT_EQ(pool().run([&] {
                return weft::parallel_reduce(0, n, 0L, constness_seen{&as_const, &as_non_const}, std::plus<>{}, weft::grain{g}) +
                       weft::parallel_reduce(0, n, 0L, named, std::plus<>{}, weft::grain{g});
              }),
              2L * n);
    EXPECT_EQ(as_const.load(), 0) << "parallel_reduce, grain " << g;
    EXPECT_EQ(as_non_const.load(), 2L * n) << "parallel_reduce, grain " << g;
  }
  // A const temporary stays const: its const overload, as its serial elision calls it.
  std::atomic<long> as_const{0}, as_non_const{0};
  const constness_seen c{&as_const, &as_non_const};
  pool().run([&] { weft::parallel_for(0, n, std::move(c)); });
  EXPECT_EQ(as_const.load(), long(n));
  EXPECT_EQ(as_non_const.load(), 0);
}

// ---------------------------------------------------------------------------------------------
// The shapes of body and map the loops take (loops.hpp, detail::index_callable): anything callable
// through an lvalue with the index as an rvalue, whatever it returns — and no other (the refused
// shapes each have a compile-fail probe, tests/compile_fail/loop_*.cpp, range_*_not_callable.cpp,
// reduce_map_not_callable.cpp, whose error names the rule).  Refused here means refused by overload
// resolution, so a requires-expression sees the call as ill-formed (stop 52's loopshape hunt).

template <class... A>
concept for_accepts = requires(A&&... a) { weft::parallel_for(std::forward<A>(a)...); };
template <class... A>
concept reduce_accepts = requires(A&&... a) { weft::parallel_reduce(std::forward<A>(a)...); };

long shape_map(const long& i) { return i; }
static_assert(for_accepts<int, int, void (*)(long)>);
static_assert(for_accepts<int, int, void (&)(long), weft::grain>);
static_assert(for_accepts<int, long, std::function<int(long)>>);
static_assert(!for_accepts<int, int, void (*)(const std::string&)>);
static_assert(!for_accepts<int, int, void (*)(int&)>);
static_assert(for_accepts<int, int, void (*)(int&&)>);  // an rvalue: TheIndexReachesTheBodyAsAnRvalue
static_assert(!for_accepts<int, int, void (*)(int, int)>);
static_assert(!for_accepts<int, int, void (*)()>);
static_assert(!for_accepts<int, int, int>);
static_assert(reduce_accepts<int, int, long, long (*)(const long&), std::plus<>>);
static_assert(!reduce_accepts<int, int, long, long (*)(long&), std::plus<>>);
static_assert(!reduce_accepts<int, int, long, std::plus<>, std::plus<>>);
static_assert(for_accepts<std::vector<int>&, void (*)(int&)>);
static_assert(for_accepts<const std::vector<int>&, void (*)(const int&)>);
static_assert(!for_accepts<const std::vector<int>&, void (*)(int&)>);
static_assert(!reduce_accepts<std::vector<int>&, long, long (*)(std::string), std::plus<>>);

// Bounds: integers of up to 64 bits but bool (the other refusals have probes of their own); an
// enum, a floating-point value or a pointer that is no iterator is refused by a deleted overload
// naming its kind (compile_fail/loop_*_bounds.cpp) — without refusing a range loop whose second
// argument is a function pointer or a floating-point init.
enum shape_color { shape_red, shape_blue };
enum class shape_level : unsigned char { low, high };
static_assert(for_accepts<char, char, void (*)(int)>);
static_assert(for_accepts<int, unsigned, void (*)(unsigned)>);
static_assert(!for_accepts<shape_color, shape_color, void (*)(int)>);
static_assert(!for_accepts<int, shape_color, void (*)(int)>);
static_assert(!for_accepts<shape_level, shape_level, void (*)(shape_level)>);
static_assert(!for_accepts<double, double, void (*)(double)>);
static_assert(!for_accepts<int, float, void (*)(int), weft::grain>);
static_assert(!for_accepts<void*, void*, void (*)(void*)>);
static_assert(!for_accepts<int, std::nullptr_t, void (*)(int)>);
static_assert(!reduce_accepts<int, double, long, long (*)(const long&), std::plus<>>);
static_assert(!reduce_accepts<shape_level, int, long, long (*)(const long&), std::plus<>>);
static_assert(reduce_accepts<std::vector<int>&, double, double (*)(int), std::plus<>>);
static_assert(reduce_accepts<std::vector<int>&, double, double (*)(int), std::plus<>, weft::grain>);
static_assert(for_accepts<int (&)[10], void (*)(int&)>);

// Mixed signedness: the bounds compare as their common type, as the serial `for` compares them
// (README, "Bounds are"): [-5, 10u) is [UINT_MAX - 4, 10) as unsigned, empty, and the body takes
// unsigned indices; [-5, 10L) is 15 longs.
TEST_P(Loops, MixedSignednessComparesAsTheCommonType) {
  std::atomic<int> calls{0};
  pool().run([&] { weft::parallel_for(-5, 10u, [&](auto i) { static_assert(std::is_same_v<decltype(i), unsigned>); ++calls; }); });
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(pool().run([] { return weft::parallel_reduce(short(-5), 10u, 7L, [](unsigned) { return 1L; }, std::plus<>{}); }), 7L);
  std::atomic<long> sum{0};
  pool().run([&] { weft::parallel_for(-5, 10L, [&](long i) { sum += i; calls.fetch_add(1); }); });
  EXPECT_EQ(calls.load(), 15);
  EXPECT_EQ(sum.load(), 30L);  // -5 + ... + 9
}

std::vector<long>* shape_out = nullptr;
void shape_record(long i) { (*shape_out)[std::size_t(i)] = 3 * i + 1; }

// Every accepted shape of body gives what its serial elision gives (`for (I i = lo; i < hi; ++i)
// body(i);`), with and without a grain (a piece of one iteration, and pieces of several).
TEST_P(Loops, BodiesOfEveryAcceptedShapeGiveTheSerialResult) {
  const int n = wt::pick(3000, 600);
  std::vector<long> out(static_cast<std::size_t>(n)), want(static_cast<std::size_t>(n));
  shape_out = &out;
  struct overloaded {
    std::vector<long>* o;
    void operator()(int i) const { (*o)[std::size_t(i)] = 7L * i; }
    void operator()(long i) const { (*o)[std::size_t(i)] = -1; }  // not the best match for an int
  };
  const auto check = [&](auto make_body, const char* what) {
    for (std::size_t g : {std::size_t(1), std::size_t(7)}) {
      std::fill(out.begin(), out.end(), 0L);
      {
        auto body = make_body(&out);
        for (int i = 0; i < n; ++i) body(i);  // the serial elision
      }
      want = out;
      std::fill(out.begin(), out.end(), 0L);
      pool().run([&] { weft::parallel_for(0, n, make_body(&out), weft::grain{g}); });
      EXPECT_EQ(out, want) << what << ", grain " << g;
      std::fill(out.begin(), out.end(), 0L);
      auto named = make_body(&out);
      pool().run([&] { weft::parallel_for(0, n, named, weft::grain{g}); });
      EXPECT_EQ(out, want) << what << " (named), grain " << g;
    }
  };
  check([](std::vector<long>* o) { return [o](auto i) { (*o)[std::size_t(i)] = 2L * i; }; }, "auto");
  check([](std::vector<long>* o) { return [o](const long& i) { (*o)[std::size_t(i)] = i + 5; }; }, "const long&");
  check([](std::vector<long>* o) { return [o](auto&& i) { (*o)[std::size_t(i)] = i * i; }; }, "auto&&");
  check([](std::vector<long>* o) { return [o](unsigned i) { (*o)[i] = long(i) - 9; }; }, "unsigned, from int");
  check([](std::vector<long>* o) {
    return [o](int i) { (*o)[std::size_t(i)] = i; return std::string(std::size_t(i % 5), 'x'); };
  }, "a body returning a value (discarded, as the serial elision discards it)");
  check([](std::vector<long>*) { return &shape_record; }, "a function pointer");
  check([](std::vector<long>* o) { return std::function<void(int)>([o](int i) { (*o)[std::size_t(i)] = 11L * i; }); },
        "std::function");
  check([](std::vector<long>* o) { return overloaded{o}; }, "an overloaded call operator");
  // A function named as itself (a function reference, not a pointer).
  std::fill(out.begin(), out.end(), 0L);
  pool().run([&] { weft::parallel_for(0, n, shape_record); });
  for (int i = 0; i < n; ++i) want[std::size_t(i)] = 3L * i + 1;
  EXPECT_EQ(out, want) << "a function reference";
  shape_out = nullptr;
}

TEST_P(Loops, MapsOfEveryAcceptedShapeGiveTheSerialResult) {
  const int n = wt::pick(3000, 600);
  long want = 0;
  for (int i = 0; i < n; ++i) want += shape_map(i);
  for (std::size_t g : {std::size_t(1), std::size_t(7)}) {
    const weft::grain gr{g};
    EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(0, n, 0L, &shape_map, std::plus<>{}, gr); }), want);
    EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(0, n, 0L, shape_map, std::plus<>{}, gr); }), want);
    EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(0, n, 0L, [](auto i) { return i; }, std::plus<>{}, gr); }),
              want);
    EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(0, n, 0L, [](auto&& i) { return i; }, std::plus<>{}, gr); }),
              want);
    EXPECT_EQ(pool().run([&] {
                return weft::parallel_reduce(0, n, 0L, std::function<long(long)>(shape_map), std::plus<>{}, gr);
              }),
              want);
  }
}

// The range forms take a body or map callable with an element: by reference, const reference, value,
// `auto&&`, a function pointer; a body's result is discarded.
void shape_double(int& x) { x *= 2; }
long shape_widen(const int& x) { return long(x); }

TEST_P(Loops, RangeBodiesAndMapsOfEveryAcceptedShapeGiveTheSerialResult) {
  const int n = wt::pick(3000, 600);
  std::vector<int> v(static_cast<std::size_t>(n)), want(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[std::size_t(i)] = want[std::size_t(i)] = i - 100;
  for (int& x : want) shape_double(x);
  pool().run([&] { weft::parallel_for(v, &shape_double, weft::grain{7}); });
  EXPECT_EQ(v, want);
  for (int& x : want) x += 1;
  pool().run([&] { weft::parallel_for(v, [](auto&& x) { x += 1; return x; }); });
  EXPECT_EQ(v, want);
  long sum = 0;
  for (int x : v) sum += x;
  const std::vector<int>& cv = v;
  EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(cv, 0L, &shape_widen, std::plus<>{}); }), sum);
  EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(v, 0L, [](auto x) { return x; }, std::plus<>{}); }), sum);
  long seen = 0;
  pool().run([&] { weft::parallel_for(cv, [&seen](const int& x) { seen += x; }, weft::grain{std::size_t(n)}); });
  EXPECT_EQ(seen, sum);  // one piece (grain n): no two iterations at once
}

// ---------------------------------------------------------------------------------------------
// nqueens, declarative (LS Algorithm 2): every column of every row is a parallel_reduce iteration.

bool safe(const std::vector<int>& q, int col) {
  const int row = int(q.size());
  for (int r = 0; r < row; ++r)
    if (q[std::size_t(r)] == col || q[std::size_t(r)] - col == r - row || q[std::size_t(r)] - col == row - r) return false;
  return true;
}

long nqueens(int n, const std::vector<int>& q) {
  if (int(q.size()) == n) return 1;
  return weft::parallel_reduce(0, n, 0L, [&](int col) -> long {
    if (!safe(q, col)) return 0;
    std::vector<int> next = q;
    next.push_back(col);
    return nqueens(n, next);
  }, std::plus<>{});
}

class NQueens : public wt::PoolTest {};
WT_INSTANTIATE(NQueens);

TEST_P(NQueens, KnownCounts) {
  const long known[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352};
  const int max_n = wt::pick(9, 8);
  for (int n = 1; n <= max_n; ++n) EXPECT_EQ(pool().run([&] { return nqueens(n, {}); }), known[n]) << "N = " << n;
}

}  // namespace
