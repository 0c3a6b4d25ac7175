// The loop API over ranges and parallel_invoke (SPEC §2, issue "Loops" item 4):
// parallel_for / parallel_reduce over random-access ranges give what the serial elision
// (`for (auto&& x : r) body(x);`, a left fold) gives, write through the references the range yields,
// keep the index loops' exception order; parallel_invoke returns every branch's result in argument
// order, calls the caller's callables (never copies), and raises the serially first exception.
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <numeric>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common.hpp"

namespace {

using namespace std::chrono_literals;

class Ranges : public wt::PoolTest {};
WT_INSTANTIATE(Ranges);

// What must not compile: ranges that cannot be indexed, bodies that do not take the element.
template <class R, class B>
concept for_accepts = requires(R&& r, B&& b) { weft::parallel_for(std::forward<R>(r), std::forward<B>(b)); };
template <class R>
concept reduce_accepts = requires(R&& r) { weft::parallel_reduce(std::forward<R>(r), 0, [](int x) { return x; }, std::plus<>{}); };
static_assert(for_accepts<std::vector<int>&, void (*)(int&)>);
static_assert(for_accepts<const std::vector<int>&, void (*)(const int&)>);
static_assert(!for_accepts<const std::vector<int>&, void (*)(int&)>, "writes through a const range");
static_assert(!for_accepts<std::list<int>&, void (*)(int&)>, "a list is not random-access");
static_assert(!for_accepts<std::vector<std::string>&, void (*)(int)>, "the body must take the element");
static_assert(!reduce_accepts<std::list<int>&>);
static_assert(reduce_accepts<std::array<int, 3>&>);
// Random-access ranges that are not sized are measured first (a take_while view); one with no end
// (an unbounded iota view) is refused, as it would be walked for ever.
using take_while_ints = decltype(std::declval<std::vector<int>&>() | std::views::take_while(std::declval<bool (*)(int)>()));
static_assert(std::ranges::random_access_range<take_while_ints> && !std::ranges::sized_range<take_while_ints>);
static_assert(for_accepts<take_while_ints, void (*)(int&)>);
static_assert(reduce_accepts<take_while_ints>);
static_assert(!for_accepts<decltype(std::views::iota(0)), void (*)(int)>, "no end");
static_assert(!reduce_accepts<decltype(std::views::iota(0))>);
static_assert(for_accepts<decltype(std::views::iota(0) | std::views::take(5)), void (*)(int)>, "counted: sized");

// n values that differ and are not in order, so that a misplaced element shows.
std::vector<std::int64_t> values(std::size_t n) {
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::int64_t(wt::mix(i) % 1'000'003) - 500'000;
  return v;
}

// A transformation applied once per element: applied twice or never, the value differs.
std::int64_t twist(std::int64_t x) { return 3 * x + 1; }

std::size_t size_n() { return wt::pick<std::size_t>(100'000, 10'000); }

TEST_P(Ranges, VectorWritesThrough) {
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(63), size_n()}) {
    std::vector<std::int64_t> v = values(n), expect = v;
    for (auto& x : expect) x = twist(x);
    pool().run([&] { weft::parallel_for(v, [](std::int64_t& x) { x = twist(x); }); });
    EXPECT_EQ(v, expect) << "n = " << n;
    pool().run([&] { weft::parallel_for(v, [](auto& x) { x *= 2; }, weft::grain{7}); });
    for (auto& x : expect) x *= 2;
    EXPECT_EQ(v, expect) << "grain 7, n = " << n;
  }
}

TEST_P(Ranges, StdArrayAndConstVector) {
  std::array<std::int64_t, 1000> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::int64_t(i) * 7 - 3000;
  pool().run([&] { weft::parallel_for(a, [](std::int64_t& x) { x = twist(x); }); });
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], twist(std::int64_t(i) * 7 - 3000)) << i;

  const std::vector<std::int64_t> cv = values(size_n());
  const std::int64_t serial = std::accumulate(cv.begin(), cv.end(), std::int64_t(11));
  const std::int64_t sum = pool().run([&] {
    return weft::parallel_reduce(cv, std::int64_t(11), [](const std::int64_t& x) { return x; }, std::plus<>{});
  });
  EXPECT_EQ(sum, serial);
  const std::int64_t asum = pool().run([&] { return weft::parallel_reduce(a, std::int64_t(0), std::identity{}, std::plus<>{}); });
  EXPECT_EQ(asum, std::accumulate(a.begin(), a.end(), std::int64_t(0)));
}

// A span over the middle of a vector: its elements change, the rest of the vector does not.
TEST_P(Ranges, SpanTouchesOnlyItsElements) {
  const std::size_t n = size_n();
  std::vector<std::int64_t> v = values(n), expect = v;
  std::span<std::int64_t> mid = std::span(v).subspan(n / 3, n / 3);
  for (std::size_t i = n / 3; i < 2 * (n / 3); ++i) expect[i] = twist(expect[i]);
  pool().run([&] { weft::parallel_for(mid, [](std::int64_t& x) { x = twist(x); }); });
  EXPECT_EQ(v, expect);
  std::span<const std::int64_t> all(v);
  const std::int64_t sum = pool().run([&] {
    return weft::parallel_reduce(all, std::int64_t(0), [](std::int64_t x) { return x; }, std::plus<>{});
  });
  EXPECT_EQ(sum, std::accumulate(v.begin(), v.end(), std::int64_t(0)));
}

// iota views yield values, not references; every value of the view is visited exactly once.
TEST_P(Ranges, IotaViews) {
  const int n = int(size_n());
  std::vector<std::atomic<int>> hits(std::size_t(n) + 10);
  pool().run([&] { weft::parallel_for(std::views::iota(10, n + 10), [&](int i) { hits[std::size_t(i)].fetch_add(1); }); });
  for (int i = 0; i < n + 10; ++i) ASSERT_EQ(hits[std::size_t(i)].load(), i < 10 ? 0 : 1) << i;

  // int64 values far outside int's range, crossing zero: the view's 128-bit difference type.
  const std::int64_t lo = -(std::int64_t(1) << 40) - n / 2, hi = lo + n;
  auto hashed = [](std::int64_t x) { return wt::mix(std::uint64_t(x)); };
  std::uint64_t serial = 5;
  for (std::int64_t x = lo; x < hi; ++x) serial = serial * 31 + hashed(x);  // not commutative
  struct poly {  // h(x0..xk) = sum x_i * 31^(k-i): combine(a, b) = a * 31^len(b) + b
    std::uint64_t h, pow;
  };
  auto combine = [](poly a, poly b) { return poly{a.h * b.pow + b.h, a.pow * b.pow}; };
  const poly got = pool().run([&] {
    return weft::parallel_reduce(std::views::iota(lo, hi), poly{5, 1}, [&](std::int64_t x) { return poly{hashed(x), 31}; },
                                 combine);
  });
  EXPECT_EQ(got.h, serial);
  std::int64_t count = pool().run([&] {
    return weft::parallel_reduce(std::views::iota(lo, hi), std::int64_t(0), [&](std::int64_t x) { return std::int64_t(x >= lo && x < hi); },
                                 std::plus<>{});
  });
  EXPECT_EQ(count, n);
}

// A transform view that yields references writes through them; one that yields values reduces.
TEST_P(Ranges, TransformViews) {
  const std::size_t n = size_n();
  std::vector<std::pair<int, std::int64_t>> pairs(n);
  const std::vector<std::int64_t> v = values(n);
  for (std::size_t i = 0; i < n; ++i) pairs[i] = {int(i), v[i]};
  auto seconds = pairs | std::views::transform([](auto& p) -> std::int64_t& { return p.second; });
  pool().run([&] { weft::parallel_for(seconds, [](std::int64_t& x) { x = twist(x); }); });
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(pairs[i], std::make_pair(int(i), twist(v[i]))) << i;

  auto twisted = v | std::views::transform(twist);
  std::int64_t serial = 0;
  for (std::int64_t x : twisted) serial += x;
  EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(twisted, std::int64_t(0), std::identity{}, std::plus<>{}); }),
            serial);
}

// A random-access range that is not sized: a take_while view ends where its predicate first fails
// (here at the first negative value), and the loop runs exactly the elements before it, as the
// serial elision's `for` does; a subrange with an iterator and a sentinel of another type likewise.
TEST_P(Ranges, NotSizedRangesRunUpToTheirEnd) {
  const std::size_t n = size_n();
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::int64_t(wt::mix(i) % 1000);
  for (std::size_t stop : {std::size_t(0), std::size_t(1), n / 3, n}) {
    std::vector<std::int64_t> w = v, expect = v;
    if (stop < n) w[stop] = expect[stop] = -1;
    auto upto = w | std::views::take_while([](std::int64_t x) { return x >= 0; });
    for (auto& x : expect | std::views::take_while([](std::int64_t x) { return x >= 0; })) x = twist(x);
    pool().run([&] { weft::parallel_for(upto, [](std::int64_t& x) { x = twist(x); }); });
    ASSERT_EQ(w, expect) << "stop at " << stop;
    std::uint64_t serial = 7;
    for (std::int64_t x : upto) serial = serial * 3 + std::uint64_t(x);  // not commutative (mod 2^64)
    struct lin {  // the serial fold of x -> a*3 + x as a pair (value, 3^length)
      std::uint64_t h, pow;
    };
    const lin got = pool().run([&] {
      return weft::parallel_reduce(upto, lin{7, 1}, [](std::int64_t x) { return lin{std::uint64_t(x), 3}; },
                                   [](lin a, lin b) { return lin{a.h * b.pow + b.h, a.pow * b.pow}; });
    });
    EXPECT_EQ(got.h, serial) << "stop at " << stop;
  }
}

// A subrange of a deque: random-access iterators that are not pointers.
TEST_P(Ranges, DequeSubrange) {
  const std::size_t n = size_n();
  const std::vector<std::int64_t> v = values(n);
  std::deque<std::int64_t> d(v.begin(), v.end());
  std::ranges::subrange inner(d.begin() + 5, d.end() - 5);
  pool().run([&] { weft::parallel_for(inner, [](std::int64_t& x) { x = twist(x); }); });
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(d[i], i < 5 || i >= n - 5 ? v[i] : twist(v[i])) << i;
}

// combine in element order, init first: string concatenation is associative, not commutative.
TEST_P(Ranges, ReduceNonCommutativeStrings) {
  const std::size_t n = wt::pick<std::size_t>(20'000, 3'000);
  std::vector<std::string> words(n);
  for (std::size_t i = 0; i < n; ++i) words[i] = std::to_string(wt::mix(i) % 1000) + ",";
  const std::string serial = std::accumulate(words.begin(), words.end(), std::string("init:"));
  auto concat = [](std::string a, const std::string& b) { return std::move(a) += b; };
  for (std::size_t g : {std::size_t(1), std::size_t(64)}) {
    const std::string got = pool().run([&] {
      return weft::parallel_reduce(words, std::string("init:"), [](const std::string& w) { return w; }, concat, weft::grain{g});
    });
    EXPECT_EQ(got, serial) << "grain " << g;
  }
}

// Nested: a loop over rows whose body reduces over its row.
TEST_P(Ranges, NestedRowsAndColumns) {
  const std::size_t rows = wt::pick<std::size_t>(300, 60), cols = 257;
  std::vector<std::vector<std::int64_t>> m(rows);
  for (std::size_t r = 0; r < rows; ++r) m[r] = values(cols + r);
  std::vector<std::int64_t> sums(rows, -1), expect(rows);
  for (std::size_t r = 0; r < rows; ++r) expect[r] = std::accumulate(m[r].begin(), m[r].end(), std::int64_t(0));
  auto row_ids = std::views::iota(std::size_t(0), rows);
  pool().run([&] {
    weft::parallel_for(row_ids, [&](std::size_t r) {
      sums[r] = weft::parallel_reduce(m[r], std::int64_t(0), [](std::int64_t x) { return x; }, std::plus<>{});
    });
  });
  EXPECT_EQ(sums, expect);
}

TEST_P(Ranges, EmptyRanges) {
  std::vector<int> none;
  std::atomic<int> calls{0};
  pool().run([&] {
    weft::parallel_for(none, [&](int&) { calls.fetch_add(1); });
    weft::parallel_for(std::views::iota(5, 5), [&](int) { calls.fetch_add(1); });
    weft::parallel_for(std::span<int>(), [&](int&) { calls.fetch_add(1); }, weft::grain{3});
  });
  EXPECT_EQ(calls.load(), 0);
  const std::string r = pool().run([&] {
    return weft::parallel_reduce(none, std::string("init"), [&](int) { calls.fetch_add(1); return std::string("x"); },
                                 std::plus<>{});
  });
  EXPECT_EQ(r, "init");
  EXPECT_EQ(calls.load(), 0);
}

// A counter whose difference type is wider than 64 bits (the standard library's own, that of an iota
// view over 64-bit integers): an iota view over it can hold more than 2^64 - 1 positions.
using wide_diff = std::ranges::range_difference_t<std::ranges::iota_view<long long, long long>>;
struct wide {
  wide_diff v{};
  using difference_type = wide_diff;
  wide& operator++() { return ++v, *this; }
  wide operator++(int) { wide t = *this; ++v; return t; }
  wide& operator--() { return --v, *this; }
  wide operator--(int) { wide t = *this; --v; return t; }
  wide& operator+=(difference_type d) { return v += d, *this; }
  wide& operator-=(difference_type d) { return v -= d, *this; }
  friend difference_type operator-(const wide& a, const wide& b) { return a.v - b.v; }
  friend wide operator+(wide a, difference_type d) { return a += d; }
  friend wide operator+(difference_type d, wide a) { return a += d; }
  friend wide operator-(wide a, difference_type d) { return a -= d; }
  friend bool operator==(const wide& a, const wide& b) { return a.v == b.v; }
  friend bool operator<(const wide& a, const wide& b) { return a.v < b.v; }
  friend bool operator>(const wide& a, const wide& b) { return b.v < a.v; }
  friend bool operator<=(const wide& a, const wide& b) { return !(b.v < a.v); }
  friend bool operator>=(const wide& a, const wide& b) { return !(a.v < b.v); }
};

// The loops count iterations in 64 bits: a range of more than 2^64 - 1 elements is refused with a
// std::length_error naming the limit, before any element runs.  Before, its size was cut to 64
// bits and the loop ran that many: iota over 2^64 + 5 positions ran 5 iterations and returned.
TEST_P(Ranges, ARangeOfMoreThanSizeMaxElementsIsRefused) {
  static_assert(sizeof(wide_diff) > sizeof(std::size_t));
  wide lo{}, hi{};
  hi.v = wide_diff(1) << 64;
  hi.v += 5;
  const auto r = std::views::iota(lo, hi);
  static_assert(std::ranges::random_access_range<decltype(r)> && std::ranges::sized_range<decltype(r)>);
  std::atomic<int> calls{0};
  try {
    pool().run([&] { weft::parallel_for(r, [&](wide) { calls.fetch_add(1); }); });
    ADD_FAILURE() << "parallel_for over 2^64 + 5 elements did not throw";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("2^64 - 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pool().run([&] { return weft::parallel_reduce(r, 0L, [&](wide) { calls.fetch_add(1); return 1L; }, std::plus<>{}); }),
               std::length_error);
  EXPECT_EQ(calls.load(), 0);
  // A short range over the same type runs as any other.
  hi.v = 100;
  const long sum = pool().run([&] {
    return weft::parallel_reduce(std::views::iota(lo, hi), 0L, [](wide w) { return long(w.v); }, std::plus<>{});
  });
  EXPECT_EQ(sum, 99 * 100 / 2);
}

// Several elements throw: the lowest index's exception leaves the loop (the serial elision's), and
// only after every element that started has finished.  The first elements sleep so that thieves
// take the upper half, whose elements throw, while the lower part is still running.
TEST_P(Ranges, ExceptionLowestIndexWins) {
  const int n = 2000;
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  for (int rep = 0; rep < 3; ++rep) {
    std::atomic<int> flight{0};
    auto element = [&](int x) {
      flight.fetch_add(1);
      struct leave { std::atomic<int>& f; ~leave() { f.fetch_sub(1); } } guard{flight};
      if (x < 20) std::this_thread::sleep_for(300us);
      if (x == 50) throw std::runtime_error("low " + std::to_string(x));
      if (x >= n / 2) throw std::runtime_error("high " + std::to_string(x));
      return x;
    };
    try {
      pool().run([&] { weft::parallel_for(v, [&](const int& x) { element(x); }); });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "low 50") << "parallel_for, rep " << rep;
      EXPECT_EQ(flight.load(), 0) << "the exception left while elements still ran";
    }
    try {
      pool().run([&] { return weft::parallel_reduce(v, 0L, [&](int x) { return long(element(x)); }, std::plus<>{}); });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "low 50") << "parallel_reduce, rep " << rep;
      EXPECT_EQ(flight.load(), 0) << "the exception left while elements still ran";
    }
  }
  // The pool is still usable.
  EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(v, 0L, [](int x) { return long(x); }, std::plus<>{}); }),
            long(n) * (n - 1) / 2);
}

// std::vector<bool> written through: its elements are bits of shared words, so the loop keeps a
// word's elements on one thread (loops.hpp, bit_vector_v) and every element is flipped once, as by
// the serial elision.  Before, elements of one word ran on different threads and their writes
// raced: flips were lost (~14 of 2,000,000 at 4 workers under ws), and words were written by two
// threads in every run with a steal (checked through libstdc++'s reference, which names its word).
// A class derived from std::vector<bool> is one too (its element 0 starts a word): its loops run in
// the same blocks (stop 55's rangesrt hunt: it ran element by element, its writes racing), and so
// does the vector itself; a const one, or a view of one, is only read through, as before.
struct derived_bits : std::vector<bool> {
  using std::vector<bool>::vector;
};
static_assert(weft::detail::bit_vector_v<std::vector<bool>>);
static_assert(weft::detail::bit_vector_v<derived_bits>);
static_assert(!weft::detail::bit_vector_v<const std::vector<bool>>);
static_assert(!weft::detail::bit_vector_v<const derived_bits>);
static_assert(!weft::detail::bit_vector_v<std::vector<char>>);
static_assert(!weft::detail::bit_vector_v<std::ranges::ref_view<std::vector<bool>>>);

TEST_P(Ranges, ADerivedVectorOfBoolWritesEachWordOnOneThread) {
  const std::size_t n = size_n() + 37;
  derived_bits bits(n);
  pool().run([&] { weft::parallel_for(bits, [](auto&& b) { b = !b; }); });
  EXPECT_EQ(std::count(bits.begin(), bits.end(), true), std::ptrdiff_t(n));
  const std::uint64_t before = pool().stats().total.loop_iterations;
  const long ones = pool().run([&] {
    return weft::parallel_reduce(bits, 0L, [](std::vector<bool>::reference b) { b = false; return 1L; }, std::plus<>{});
  });
  EXPECT_EQ(ones, long(n));
  EXPECT_EQ(std::count(bits.begin(), bits.end(), true), 0);
  EXPECT_EQ(pool().stats().total.loop_iterations - before, n) << "loop_iterations counts elements";
}

TEST_P(Ranges, VectorOfBoolWritesEachWordOnOneThread) {
  const std::size_t n = size_n() + 37;  // not a whole number of words
  std::vector<bool> bits(n), expect(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = expect[i] = wt::mix(i) % 3 == 0;
  for (int rep = 0; rep < 4; ++rep) {
    pool().run([&] { weft::parallel_for(bits, [](auto&& b) { b = !b; }); });
    expect.flip();
    EXPECT_TRUE(bits == expect) << "rep " << rep;
  }
#if defined(__GLIBCXX__)
  const auto* first_word = bits.begin()._M_p;
  std::vector<std::atomic<std::thread::id>> writer((n + 63) / 64);
  std::atomic<int> shared_words{0};
  pool().run([&] {
    weft::parallel_for(bits, [&](std::vector<bool>::reference b) {
      std::thread::id none{}, me = std::this_thread::get_id();
      auto& w = writer[std::size_t(b._M_p - first_word) * (sizeof(*first_word) * 8) / 64];
      if (!w.compare_exchange_strong(none, me) && none != me) shared_words.fetch_add(1);
      b = true;
    });
  });
  EXPECT_EQ(shared_words.load(), 0) << "elements of one word written by different threads";
#endif
  EXPECT_EQ(std::count(bits.begin(), bits.end(), true), std::ptrdiff_t(n));
  const std::uint64_t before = pool().stats().total.loop_iterations;
  pool().run([&] { weft::parallel_for(bits, [](auto&& b) { b = false; }); });
  EXPECT_EQ(pool().stats().total.loop_iterations - before, n) << "loop_iterations counts elements";
  EXPECT_EQ(std::count(bits.begin(), bits.end(), true), 0);
  // A grain of fewer elements than a word's block, and one of more: still each element once.
  for (std::size_t g : {std::size_t(1), std::size_t(100), std::size_t(5000)}) {
    pool().run([&] { weft::parallel_for(bits, [](auto&& b) { b = !b; }, weft::grain{g}); });
    EXPECT_EQ(std::count(bits.begin(), bits.end(), true), std::ptrdiff_t(n)) << "grain " << g;
    pool().run([&] { weft::parallel_for(bits, [](auto&& b) { b = false; }, weft::grain{g}); });
  }
}

// parallel_reduce over a (non-const) std::vector<bool> hands its map a proxy reference, which the
// map may write through, as parallel_for's body may: the elements of one word must run on one
// thread there too.  Before, the reduction ran element by element and writes through the proxies
// raced: a map flipping every bit lost ~400 of 10,000,000 flips under adf at 4 and 8 workers, and
// words were written by two threads in runs with a steal.  The value stays the serial elision's (a
// non-commutative combine: the bits as read, in order) and loop_iterations counts elements.
TEST_P(Ranges, VectorOfBoolReduceWritesEachWordOnOneThread) {
  const std::size_t n = size_n() + 37;  // not a whole number of words
  std::vector<bool> bits(n);
  std::string want;
  for (std::size_t i = 0; i < n; ++i) {
    bits[i] = wt::mix(i) % 3 == 0;
    want += bits[i] ? '1' : '0';
  }
#if defined(__GLIBCXX__)
  const auto* first_word = bits.begin()._M_p;
#endif
  for (std::size_t g : {std::size_t(1), std::size_t(100), std::size_t(5000)}) {
    const std::uint64_t before = pool().stats().total.loop_iterations;
    std::vector<std::atomic<std::thread::id>> writer((n + 63) / 64);
    std::atomic<int> shared_words{0};
    const std::string got = pool().run([&] {
      return weft::parallel_reduce(bits, std::string(), [&](std::vector<bool>::reference b) {
#if defined(__GLIBCXX__)
        std::thread::id none{}, me = std::this_thread::get_id();
        auto& w = writer[std::size_t(b._M_p - first_word) * (sizeof(*first_word) * 8) / 64];
        if (!w.compare_exchange_strong(none, me) && none != me) shared_words.fetch_add(1);
#endif
        const bool was = b;
        b = !was;
        return std::string(1, was ? '1' : '0');
      }, std::plus<>(), weft::grain{g});
    });
    EXPECT_EQ(got, want) << "grain " << g;
    EXPECT_EQ(shared_words.load(), 0) << "elements of one word written by different threads, grain " << g;
    std::size_t flipped = 0;
    for (std::size_t i = 0; i < n; ++i) flipped += bits[i] == (want[i] == '0');
    EXPECT_EQ(flipped, n) << "flips lost, grain " << g;
    for (std::size_t i = 0; i < n; ++i) bits[i] = want[i] == '1';
    EXPECT_EQ(pool().stats().total.loop_iterations - before, n) << "loop_iterations counts elements, grain " << g;
  }
}

// A pointer to a member as the body or the map: std::invocable (the constraint) accepts it, so the
// loops call through std::invoke, as std::ranges::for_each does (called as `body(x)` it passed the
// constraint and failed to compile inside the loop).  Every element updated once, the sum in order.
TEST_P(Ranges, MemberPointersAsBodyAndMap) {
  struct item {
    std::int64_t v;
    std::int64_t updates = 0;
    void update() { v = twist(v), ++updates; }
    std::int64_t value() const { return v; }
  };
  static_assert(for_accepts<std::vector<item>&, void (item::*)()>);
  const std::size_t n = size_n();
  const std::vector<std::int64_t> start = values(n);
  std::vector<item> items;
  for (std::int64_t x : start) items.push_back({x});
  pool().run([&] { weft::parallel_for(items, &item::update); });
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += items[i].v != twist(start[i]) || items[i].updates != 1;
  EXPECT_EQ(wrong, 0u);
  std::int64_t want = 0;
  for (const item& it : items) want += it.v;
  EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(items, std::int64_t(0), &item::value, std::plus<>{}); }), want);
  EXPECT_EQ(pool().run([&] { return weft::parallel_reduce(std::as_const(items), std::int64_t(0), &item::v, std::plus<>{}); }), want);
}

// Found by stop 46's results hunt: the range form's map returning a reference to a move-only element
// (a projection, as std::identity is) did not compile when the result type is made from that
// element: the range form returned map's result by value, a copy of the element, before it was made
// a T.  It is made a T there now, as the index form makes each map(i) one.
TEST_P(Ranges, ReduceMapReturningAReferenceToAMoveOnlyElement) {
  struct item {
    std::unique_ptr<std::int64_t> v;
  };
  struct total {
    std::int64_t sum = 0;
    total(std::int64_t s) : sum(s) {}  // NOLINT: implicit, from init
    total(const item& x) : sum(*x.v) {}  // NOLINT: implicit, each map(x) is made one
  };
  const std::size_t n = size_n();
  const std::vector<std::int64_t> start = values(n);
  std::vector<item> items;
  for (std::int64_t x : start) items.push_back({std::make_unique<std::int64_t>(x)});
  const total got = pool().run([&] {
    return weft::parallel_reduce(items, total(0), [](const item& x) -> const item& { return x; },
                                 [](total a, total b) { return total(a.sum + b.sum); });
  });
  EXPECT_EQ(got.sum, std::accumulate(start.begin(), start.end(), std::int64_t(0)));
}

// ---------------------------------------------------------------------------------------------
// parallel_invoke

// The joins parallel_invoke makes: n - 1 for n >= 1 branches, none for none (every policy counts
// each join).
template <class... F>
void expect_joins(weft::pool& p, F&&... fs) {
  constexpr std::uint64_t n = sizeof...(F);
  p.reset_stats();
  p.run([&] { (void)weft::parallel_invoke(fs...); });
  EXPECT_EQ(p.stats().total.joins, n == 0 ? 0 : n - 1) << n << " branches";
}

TEST_P(Ranges, InvokeResultsInArgumentOrder) {
  const unsigned k = wt::pick(18u, 14u);
  auto f = [](unsigned n) { return [n] { return wt::fib(n); }; };
  {
    auto [a] = pool().run([&] { return weft::parallel_invoke(f(k)); });
    EXPECT_EQ(a, wt::fib_serial(k));
  }
  {
    auto [a, b] = pool().run([&] { return weft::parallel_invoke(f(k), f(k - 1)); });
    EXPECT_EQ(std::make_pair(a, b), std::make_pair(wt::fib_serial(k), wt::fib_serial(k - 1)));
  }
  {
    auto r = pool().run([&] { return weft::parallel_invoke(f(k), [] { return std::string("two"); }, f(k - 2)); });
    static_assert(std::is_same_v<decltype(r), std::tuple<std::uint64_t, std::string, std::uint64_t>>);
    EXPECT_EQ(r, std::make_tuple(wt::fib_serial(k), std::string("two"), wt::fib_serial(k - 2)));
  }
  {
    auto r = pool().run([&] { return weft::parallel_invoke(f(k), f(k - 1), f(k - 2), f(k - 3), f(k - 4)); });
    EXPECT_EQ(r, std::make_tuple(wt::fib_serial(k), wt::fib_serial(k - 1), wt::fib_serial(k - 2),
                                 wt::fib_serial(k - 3), wt::fib_serial(k - 4)));
  }
  {
    auto r = pool().run([&] {
      return weft::parallel_invoke(f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(k));
    });
    EXPECT_EQ(r, std::make_tuple(wt::fib_serial(1), wt::fib_serial(2), wt::fib_serial(3), wt::fib_serial(4),
                                 wt::fib_serial(5), wt::fib_serial(6), wt::fib_serial(7), wt::fib_serial(k)));
  }
  {
    // No callables (a variadic caller's empty pack): an empty tuple, no join.
    auto r = pool().run([] { return weft::parallel_invoke(); });
    static_assert(std::is_same_v<decltype(r), std::tuple<>>);
  }
  static_assert(std::is_same_v<decltype(weft::parallel_invoke()), std::tuple<>>);
  auto one = [] { return 1; };
  expect_joins(pool());
  expect_joins(pool(), one);
  expect_joins(pool(), one, one);
  expect_joins(pool(), one, one, one);
  expect_joins(pool(), one, one, one, one, one);
  expect_joins(pool(), one, one, one, one, one, one, one, one);
}

// Void branches give weft::unit; each branch runs exactly once; move-only results move out.
TEST_P(Ranges, InvokeVoidAndMoveOnly) {
  std::array<std::atomic<int>, 8> ran{};
  auto mark = [&](int i) { return [&ran, i] { ran[std::size_t(i)].fetch_add(1); }; };
  auto r = pool().run([&] {
    return weft::parallel_invoke(mark(0), [] { return std::make_unique<int>(1); }, mark(2),
                                 [] { return std::make_unique<std::string>("three"); }, mark(4), mark(5),
                                 [] { return std::vector<std::unique_ptr<int>>(3); }, mark(7));
  });
  static_assert(std::is_same_v<std::tuple_element_t<0, decltype(r)>, weft::unit>);
  static_assert(std::is_same_v<std::tuple_element_t<1, decltype(r)>, std::unique_ptr<int>>);
  static_assert(std::is_same_v<std::tuple_element_t<7, decltype(r)>, weft::unit>);
  for (int i : {0, 2, 4, 5, 7}) EXPECT_EQ(ran[std::size_t(i)].load(), 1) << "branch " << i;
  ASSERT_TRUE(std::get<1>(r) && std::get<3>(r));
  EXPECT_EQ(*std::get<1>(r), 1);
  EXPECT_EQ(*std::get<3>(r), "three");
  EXPECT_EQ(std::get<6>(r).size(), 3u);
  auto [a, b] = pool().run([&] { return weft::parallel_invoke(mark(0), mark(0)); });
  EXPECT_TRUE(a == weft::unit{} && b == weft::unit{});
  EXPECT_EQ(ran[0].load(), 3);
}

// Named function objects are the caller's objects, called in place: their state changes, nothing
// copies them (join's rule for lvalue branches); temporaries are not copied either.
struct counted {
  static inline std::atomic<int> copies{0};
  int calls = 0;
  std::unique_ptr<int> owned = std::make_unique<int>(7);  // move-only as well
  counted() = default;
  counted(counted&& o) noexcept : calls(o.calls), owned(std::move(o.owned)) { copies.fetch_add(1); }
  int operator()() { return ++calls + *owned; }
};

TEST_P(Ranges, InvokeCallsLvaluesInPlace) {
  counted::copies = 0;
  counted a, b, c;
  auto r = pool().run([&] { return weft::parallel_invoke(a, b, counted{}, c); });
  EXPECT_EQ(r, std::make_tuple(8, 8, 8, 8));
  r = pool().run([&] { return weft::parallel_invoke(a, b, counted{}, c); });
  EXPECT_EQ(r, std::make_tuple(9, 9, 8, 9));
  EXPECT_EQ(a.calls + b.calls + c.calls, 6);
  EXPECT_EQ(counted::copies.load(), 0) << "a callable was moved or copied";
}

// Several branches throw: the serially first one's exception wins, after every started branch
// finished.  Branch 1 sleeps before it throws, so a thief's branch 3 throws first in time.
TEST_P(Ranges, InvokeExceptionFirstArgumentWins) {
  for (int rep = 0; rep < 3; ++rep) {
    std::atomic<int> flight{0}, finished{0};
    auto busy = [&] {
      flight.fetch_add(1);
      std::this_thread::sleep_for(200us);
      finished.fetch_add(1);
      flight.fetch_sub(1);
    };
    try {
      pool().run([&] {
        weft::parallel_invoke(
            busy,
            [&] {
              flight.fetch_add(1);
              std::this_thread::sleep_for(2ms);
              flight.fetch_sub(1);
              throw std::runtime_error("branch 1");
            },
            busy, [&]() -> int { throw std::logic_error("branch 3"); }, busy);
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "branch 1") << "rep " << rep;
      EXPECT_EQ(flight.load(), 0) << "the exception left while branches still ran";
      // Branch 0 precedes the throw in serial order: it ran.  Branches 2 and 4 run only if stolen.
      EXPECT_GE(finished.load(), 1);
      if (!can_steal()) EXPECT_EQ(finished.load(), 1) << "serial elision: nothing after the throw runs";
    } catch (const std::logic_error& e) {
      ADD_FAILURE() << "the later branch's exception won: " << e.what();
    }
  }
  auto [x, y] = pool().run([] { return weft::parallel_invoke([] { return 1; }, [] { return 2; }); });
  EXPECT_EQ(x + y, 3);
}

// ---------------------------------------------------------------------------------------------
// From a thread that is no worker: everything runs in the global pool (its counters see the work).

TEST(RangesOutsideAPool, RunInTheGlobalPool) {
  const std::size_t n = size_n();
  std::vector<std::int64_t> v = values(n), expect = v;
  for (auto& x : expect) x = twist(x);
  const std::uint64_t before = weft::pool::global().stats().total.loop_iterations;
  weft::parallel_for(v, [](std::int64_t& x) { x = twist(x); });
  EXPECT_EQ(v, expect);
  EXPECT_EQ(weft::pool::global().stats().total.loop_iterations - before, n) << "the loop ran outside the global pool";
  const std::int64_t sum = weft::parallel_reduce(v, std::int64_t(0), [](std::int64_t x) { return x; }, std::plus<>{});
  EXPECT_EQ(sum, std::accumulate(v.begin(), v.end(), std::int64_t(0)));
  auto [a, b, c] = weft::parallel_invoke([] { return wt::fib(15); }, [] {}, [] { return std::string("c"); });
  EXPECT_EQ(a, wt::fib_serial(15));
  EXPECT_TRUE(b == weft::unit{});
  EXPECT_EQ(c, "c");
  // One callable and several: each runs inside the global pool — on one of its workers, or on this
  // thread while it holds a sleeping worker's slot (docs/PROTOCOLS.md section 9a), and always on
  // this thread under the policy that runs on its caller.  The pool counts the join.
  const bool on_caller = wt::runs_on_caller(weft::pool::global().policy());
  const auto here = std::this_thread::get_id();
  const std::uint64_t joins_before = weft::pool::global().stats().total.joins;
  auto [t1] = weft::parallel_invoke([] { return std::this_thread::get_id(); });
  auto [t2, t3] = weft::parallel_invoke([] { return std::this_thread::get_id(); }, [] { return std::this_thread::get_id(); });
  EXPECT_EQ(weft::pool::global().stats().total.joins - joins_before, 1u) << "the two-callable invoke is one join of the global pool";
  if (on_caller) {
    EXPECT_EQ(t1, here);
    EXPECT_EQ(t2, here);
    EXPECT_EQ(t3, here);
  }
}

}  // namespace
