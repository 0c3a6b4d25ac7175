// join: results equal the serial elision for every kind of branch result (SPEC §2).
#include <array>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common.hpp"

namespace {

// The fast path's poll (frame.hpp: one compare on x86-64, a relaxed load elsewhere and under TSan)
// sees a bit another thread sets, and a cleared word again as clear.  The thread is joined before
// the second poll (its write happens-before it), so the test needs no waiting.
TEST(Poll, SeesBitsSetAndClearedByOtherThreads) {
  weft::detail::hot_state h;
  h.poll.store(0, std::memory_order_relaxed);
  EXPECT_FALSE(weft::detail::poll_pending(h));
  std::thread([&] { h.poll.fetch_or(weft::detail::poll_bit::heartbeat, std::memory_order_relaxed); }).join();
  EXPECT_TRUE(weft::detail::poll_pending(h));
  h.poll.fetch_or(1u << 31, std::memory_order_relaxed);  // any bit, the highest included
  std::thread([&] { h.poll.fetch_and(1u << 31, std::memory_order_relaxed); }).join();
  EXPECT_TRUE(weft::detail::poll_pending(h));
  h.poll.store(0, std::memory_order_relaxed);
  EXPECT_FALSE(weft::detail::poll_pending(h));
}

class Join : public wt::PoolTest {};
WT_INSTANTIATE(Join);

TEST_P(Join, FibNoCutoff) {
  for (unsigned n : {0u, 1u, 2u, 3u, 10u}) EXPECT_EQ(pool().run([&] { return wt::fib(n); }), wt::fib_serial(n));
  const unsigned n = wt::pick(24u, 18u);
  EXPECT_EQ(pool().run([&] { return wt::fib(n); }), wt::fib_serial(n));
}

// The join without a landing pad (a first branch that cannot throw) is the same join: the serial
// elision's result, one join counted per inner node, under every policy and worker count.
TEST_P(Join, NoexceptFirstBranchEqualsTheSerialElision) {
  static_assert(weft::detail::cannot_throw<decltype([]() noexcept { return 1; })>);
  static_assert(!weft::detail::cannot_throw<decltype([] { return 1; })>);
  for (unsigned n : {0u, 1u, 2u, 3u, 10u})
    EXPECT_EQ(pool().run([&] { return wt::fib_noexcept(n); }), wt::fib_serial(n));
  const unsigned n = wt::pick(24u, 18u);
  pool().reset_stats();
  EXPECT_EQ(pool().run([&] { return wt::fib_noexcept(n); }), wt::fib_serial(n));
  EXPECT_EQ(pool().stats().total.joins, wt::fib_joins(n));
}

TEST_P(Join, VoidBranchesReturnUnit) {
  std::atomic<int> a{0}, b{0};
  auto r = pool().run([&] { return weft::join([&] { ++a; }, [&] { ++b; }); });
  static_assert(std::is_same_v<decltype(r), std::pair<weft::unit, weft::unit>>);
  EXPECT_EQ(a.load(), 1);
  EXPECT_EQ(b.load(), 1);
  EXPECT_TRUE(r.first == weft::unit{});

  auto m = pool().run([&] { return weft::join([&] { return 7; }, [&] { ++b; }); });
  static_assert(std::is_same_v<decltype(m), std::pair<int, weft::unit>>);
  EXPECT_EQ(m.first, 7);
  auto n = pool().run([&] { return weft::join([&] { ++a; }, [&] { return std::string("x"); }); });
  static_assert(std::is_same_v<decltype(n), std::pair<weft::unit, std::string>>);
  EXPECT_EQ(n.second, "x");
  EXPECT_EQ(a.load(), 2);
  EXPECT_EQ(b.load(), 2);
}

// A void recursion: every leaf is visited exactly once.
void visit(unsigned lo, unsigned hi, std::vector<std::atomic<int>>& hits) {
  if (hi - lo == 1) {
    hits[lo].fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const unsigned mid = lo + (hi - lo) / 2;
  weft::join([&] { visit(lo, mid, hits); }, [&] { visit(mid, hi, hits); });
}

TEST_P(Join, VoidRecursionVisitsEveryLeafOnce) {
  const unsigned n = wt::pick(20000u, 3000u);
  std::vector<std::atomic<int>> hits(n);
  pool().run([&] { visit(0, n, hits); });
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
}

// A result that holds nothing (void's weft::unit, an empty struct) takes no room in the frame: a
// void branch capturing 40 bytes by value is kept in the frame's payload itself, and a thief that
// takes it runs it once and the join makes the (empty) result.
struct nothing {};
nothing visit_by_value(std::atomic<int>* hits, std::size_t lo, std::size_t hi, std::size_t pad, bool as_void) {
  if (hi - lo == 1) {
    hits[lo].fetch_add(1, std::memory_order_relaxed);
    return {};
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  if (as_void) {
    auto second = [hits, mid, hi, pad, as_void] { visit_by_value(hits, mid, hi, pad, as_void); };
    static_assert(sizeof(second) == weft::detail::frame_payload_bytes);
    static_assert(std::is_same_v<weft::detail::branch_t<decltype(second)>, weft::detail::branch_in_frame<decltype(second)>>);
    weft::join([=] { visit_by_value(hits, lo, mid, pad, as_void); }, std::move(second));
  } else {
    auto second = [hits, mid, hi, pad, as_void] { return visit_by_value(hits, mid, hi, pad, as_void); };
    static_assert(std::is_same_v<weft::detail::branch_t<decltype(second)>, weft::detail::branch_in_frame<decltype(second)>>);
    auto [a, b] = weft::join([=] { return visit_by_value(hits, lo, mid, pad, as_void); }, std::move(second));
    static_assert(std::is_same_v<decltype(b), nothing>);
  }
  return {};
}

TEST_P(Join, StatelessResultsTakeNoRoomInTheFrame) {
  const std::size_t n = wt::pick<std::size_t>(20000, 3000);
  for (bool as_void : {true, false}) {
    std::vector<std::atomic<int>> hits(n);
    pool().reset_stats();
    pool().run([&] { visit_by_value(hits.data(), 0, n, 0, as_void); });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << i << (as_void ? " (void)" : " (nothing)");
    EXPECT_EQ(pool().stats().total.joins, n - 1);
  }
}

struct tree {
  int value;
  std::unique_ptr<tree> left, right;
};

std::unique_ptr<tree> build(int depth, int id) {
  auto t = std::make_unique<tree>();
  t->value = id;
  if (depth > 0) {
    auto [l, r] = weft::join([&] { return build(depth - 1, 2 * id); }, [&] { return build(depth - 1, 2 * id + 1); });
    static_assert(std::is_same_v<decltype(l), std::unique_ptr<tree>>);
    t->left = std::move(l);
    t->right = std::move(r);
  }
  return t;
}

long sum_tree(const tree* t) { return t ? t->value + sum_tree(t->left.get()) + sum_tree(t->right.get()) : 0; }

TEST_P(Join, MoveOnlyResults) {
  auto p = pool().run([&] {
    return weft::join([] { return std::make_unique<int>(1); }, [] { return std::make_unique<int>(2); });
  });
  ASSERT_TRUE(p.first && p.second);
  EXPECT_EQ(*p.first + *p.second, 3);

  const int depth = wt::pick(12, 9);
  std::unique_ptr<tree> t = pool().run([&] { return build(depth, 1); });
  // Serial: ids 1 .. 2^(depth+1) - 1, each once.
  const long n = (1L << (depth + 1)) - 1;
  EXPECT_EQ(sum_tree(t.get()), n * (n + 1) / 2);
}

struct no_default {
  explicit no_default(int v) : value(v) {}
  no_default() = delete;
  no_default(const no_default&) = delete;
  no_default(no_default&&) = default;
  no_default& operator=(no_default&&) = default;
  int value;
};
static_assert(!std::is_default_constructible_v<no_default>);

no_default nd_sum(int n) {
  if (n < 2) return no_default(n);
  auto [a, b] = weft::join([&] { return nd_sum(n - 1); }, [&] { return nd_sum(n - 2); });
  return no_default(a.value + b.value);
}

TEST_P(Join, NonDefaultConstructibleResults) {
  const unsigned n = wt::pick(20u, 15u);
  EXPECT_EQ(std::uint64_t(pool().run([&] { return nd_sum(int(n)); }).value), wt::fib_serial(n));
}

TEST_P(Join, LargeResults) {
  using big = std::array<std::uint64_t, 64>;
  auto fill = [](std::uint64_t seed) {
    big b;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = wt::mix(seed + i);
    return b;
  };
  auto r = pool().run([&] { return weft::join([&] { return fill(1); }, [&] { return fill(2); }); });
  EXPECT_EQ(r.first, fill(1));
  EXPECT_EQ(r.second, fill(2));
}

// Nested joins: a 4-ary tree of joins of joins, with results of different types at each level.
std::uint64_t nested(unsigned depth, std::uint64_t path) {
  if (depth == 0) return wt::mix(path);
  auto [ab, cd] = weft::join(
      [&] {
        return weft::join([&] { return nested(depth - 1, path * 4 + 0); },
                          [&] { return std::to_string(nested(depth - 1, path * 4 + 1)); });
      },
      [&] {
        return weft::join([&] { return double(nested(depth - 1, path * 4 + 2) % 1000); },
                          [&] { return std::vector<std::uint64_t>{nested(depth - 1, path * 4 + 3)}; });
      });
  static_assert(std::is_same_v<decltype(ab), std::pair<std::uint64_t, std::string>>);
  static_assert(std::is_same_v<decltype(cd), std::pair<double, std::vector<std::uint64_t>>>);
  return wt::mix(ab.first ^ std::stoull(ab.second) * 3 ^ std::uint64_t(cd.first) * 5 ^ cd.second.at(0) * 7);
}

std::uint64_t nested_serial(unsigned depth, std::uint64_t path) {
  if (depth == 0) return wt::mix(path);
  const std::uint64_t a = nested_serial(depth - 1, path * 4 + 0);
  const std::uint64_t b = nested_serial(depth - 1, path * 4 + 1);
  const std::uint64_t c = nested_serial(depth - 1, path * 4 + 2) % 1000;
  const std::uint64_t d = nested_serial(depth - 1, path * 4 + 3);
  return wt::mix(a ^ b * 3 ^ c * 5 ^ d * 7);
}

TEST_P(Join, NestedJoinsOfDifferentTypes) {
  const unsigned depth = wt::pick(6u, 4u);
  EXPECT_EQ(pool().run([&] { return nested(depth, 1); }), nested_serial(depth, 1));
}

TEST_P(Join, ResultsOfDifferentTypes) {
  auto r = pool().run([&] {
    return weft::join([] { return std::string(100, 'a'); }, [] { return 2.5; });
  });
  EXPECT_EQ(r.first, std::string(100, 'a'));
  EXPECT_EQ(r.second, 2.5);
  auto s = pool().run([&] {
    return weft::join([] { return std::vector<int>{1, 2, 3}; }, [] { return std::make_pair('c', 9L); });
  });
  EXPECT_EQ(s.first, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.second, std::make_pair('c', 9L));
}

// Branches capturing by value, by reference, mutable lambdas, named (lvalue) lambdas, function
// pointers: each is called exactly as the serial elision would call it.
int forty_two() { return 42; }

TEST_P(Join, KindsOfCallables) {
  pool().run([&] {
    int x = 5;
    auto by_value = [x] { return x * 2; };
    auto by_ref = [&x] { return x + 1; };
    auto [a, b] = weft::join(by_value, by_ref);
    EXPECT_EQ(a, 10);
    EXPECT_EQ(b, 6);

    // Function pointers (a function *reference* and const lvalue closures: see tests/compile/).
    auto [c, d] = weft::join(&forty_two, &forty_two);
    EXPECT_EQ(c, 42);
    EXPECT_EQ(d, 42);

    // A capture too big for any in-frame copy, by value.
    std::array<int, 32> big{};
    std::iota(big.begin(), big.end(), 1);
    auto [e, f] = weft::join([big] { return std::accumulate(big.begin(), big.end(), 0); },
                             [big] { return std::accumulate(big.begin(), big.end(), 1); });
    EXPECT_EQ(e, 528);
    EXPECT_EQ(f, 529);

    // Mutable lambdas passed as rvalues.
    auto [g, h] = weft::join([n = 1]() mutable { return ++n; }, [n = 10]() mutable { return ++n; });
    EXPECT_EQ(g, 2);
    EXPECT_EQ(h, 11);

    // A non-trivially-copyable capture (std::string) and a move-only capture.
    std::string s = "abc";
    auto [i, j] = weft::join([s] { return s + "d"; }, [p = std::make_unique<int>(3)] { return *p; });
    EXPECT_EQ(i, "abcd");
    EXPECT_EQ(j, 3);
  });
}

// A stateful function object passed as an lvalue: the serial elision calls *that* object, so its
// state changes are visible to the caller afterwards.
struct counting_fn {
  int calls = 0;
  int operator()() { return ++calls; }
};

// Regression test: join's slow path once took its branches by value, so when a join left the fast
// path (every join under `ws`, public slots under `wool`, a join from a non-worker thread) an lvalue
// function object was copied and the copy called, and the caller's object never saw the call.
TEST_P(Join, LvalueFunctionObjectsAreCalledNotCopied) {
  pool().run([&] {
    counting_fn f, g;
    auto [a, b] = weft::join(f, g);
    EXPECT_EQ(a, 1);
    EXPECT_EQ(b, 1);
    EXPECT_EQ(f.calls, 1) << "the first branch ran on a copy of the caller's function object";
    EXPECT_EQ(g.calls, 1) << "the second branch ran on a copy of the caller's function object";
  });
}

TEST(JoinGlobal, LvalueFunctionObjectsFromNonWorker) {
  counting_fn f, g;
  auto [a, b] = weft::join(f, g);  // runs in the global pool
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 1);
  // The caller's objects were called, not copies (join_external takes them by reference too).
  EXPECT_EQ(f.calls, 1);
  EXPECT_EQ(g.calls, 1);
}

// Deep recursion of joins: a chain of nested joins (each first branch recursing) far deeper than a
// public window or the leapfrogging depth, and a wide fan-out below it.
std::uint64_t chain(unsigned depth) {
  if (depth == 0) return 1;
  auto [a, b] = weft::join([&] { return chain(depth - 1); }, [&] { return std::uint64_t(depth); });
  return a + b;
}

TEST_P(Join, DeepChain) {
  const unsigned depth = wt::pick(3000u, 1000u);
  EXPECT_EQ(pool().run([&] { return chain(depth); }), 1 + std::uint64_t(depth) * (depth + 1) / 2);
}

// A node whose second branch joins, loops and spawns, reading its captures (held in the frame: a
// small trivially copyable closure) after each.  When the branch's frame was promoted and then taken
// back by its owner (no thief took it), the owner once ran the branch from the frame's copy — the
// slot the branch's own first join then pushed into: its captures read as garbage afterwards (wrong
// counts, hangs, crashes; every run under wool, whose public window promotes on one worker, and
// under the lazy policies and heartbeat whenever a promotion raced a steal).
struct taken_back_counts {
  std::atomic<long> joins{0}, iterations{0}, spawns{0};
};

void taken_back_node(taken_back_counts& k, int depth, int n) {
  if (depth == 0) return;
  weft::join([&k, depth, n] { taken_back_node(k, depth - 1, n); },
             [&k, depth, n] {
               for (int i = 0; i < n; ++i)
                 weft::join([&k] { k.joins.fetch_add(1, std::memory_order_relaxed); }, [] {});
               weft::parallel_for(0, n, [&k](int) { k.iterations.fetch_add(1, std::memory_order_relaxed); });
               {
                 weft::scope s;
                 for (int i = 0; i < n; ++i) s.spawn([&k] { k.spawns.fetch_add(1, std::memory_order_relaxed); });
                 s.sync();
               }
               taken_back_node(k, depth - 1, n);
             });
}

TEST_P(Join, SecondBranchOfATakenBackFrameKeepsItsCaptures) {
  const int depth = 9, n = 3;
  const long nodes = (1L << depth) - 1, per_node = n;
  for (int rep = 0; rep < wt::pick(30, 8); ++rep) {
    taken_back_counts k;
    pool().run([&] { taken_back_node(k, depth, n); });
    ASSERT_EQ(k.joins.load(), nodes * per_node) << "rep " << rep;
    ASSERT_EQ(k.iterations.load(), nodes * per_node) << "rep " << rep;
    ASSERT_EQ(k.spawns.load(), nodes * per_node) << "rep " << rep;
  }
}

// What each branch below does: joins, a loop and spawns, which push into the slot the branch was
// copied from, then the recursion; `checked` reads the branch's captures after each.
template <class Check, class Recurse>
void copied_branch_work(taken_back_counts& k, int n, const Check& checked, const Recurse& recurse) {
  for (int i = 0; i < n; ++i) weft::join([&k] { k.joins.fetch_add(1, std::memory_order_relaxed); }, [] {});
  checked();
  weft::parallel_for(0, n, [&k](int) { k.iterations.fetch_add(1, std::memory_order_relaxed); });
  checked();
  {
    weft::scope s;
    for (int i = 0; i < n; ++i) s.spawn([&k] { k.spawns.fetch_add(1, std::memory_order_relaxed); });
    s.sync();
  }
  checked();
  recurse();
  checked();
}

// The same tree with a second branch of four words, a size the never-promoted join runs from the
// frame's copy (branch_in_frame::owner_runs_copy): the owner copies it out of the slot after its
// pop, and the branch's own joins, loop and spawns then push into that slot.  Its captures, read
// after each of them, must be the ones it was given (a run from the slot itself would read the
// frames pushed over it).
void copied_branch_node(taken_back_counts& k, std::atomic<long>& wrong, int depth, int n) {
  if (depth == 0) return;
  const long check = depth * 1000003L + n;
  auto second = [&k, &wrong, depth, n, check] {
    copied_branch_work(
        k, n, [&] { if (check != depth * 1000003L + n) wrong.fetch_add(1, std::memory_order_relaxed); },
        [&] { copied_branch_node(k, wrong, depth - 1, n); });
  };
  static_assert(weft::detail::branch_t<decltype(second)>::owner_runs_copy,
                "the test's second branch must be one the join runs from the frame's copy");
  weft::join([&k, &wrong, depth, n] { copied_branch_node(k, wrong, depth - 1, n); }, std::move(second));
}

// The same with a second branch of one word (a pointer to the node's arguments), the other size the
// join runs from the frame's copy.
struct copied_node_args {
  taken_back_counts& k;
  std::atomic<long>& wrong;
  int depth, n;
  long check;
};

void copied_one_word_node(taken_back_counts& k, std::atomic<long>& wrong, int depth, int n) {
  if (depth == 0) return;
  const copied_node_args args{k, wrong, depth, n, depth * 1000003L + n};
  auto second = [a = &args] {
    copied_branch_work(
        a->k, a->n,
        [&] { if (a->check != a->depth * 1000003L + a->n) a->wrong.fetch_add(1, std::memory_order_relaxed); },
        [&] { copied_one_word_node(a->k, a->wrong, a->depth - 1, a->n); });
  };
  static_assert(sizeof(second) == sizeof(void*) && weft::detail::branch_t<decltype(second)>::owner_runs_copy,
                "the test's second branch must be one word, run from the frame's copy");
  weft::join([&k, &wrong, depth, n] { copied_one_word_node(k, wrong, depth - 1, n); }, std::move(second));
}

TEST_P(Join, SecondBranchRunFromTheFramesCopyKeepsItsCaptures) {
  const int depth = 9, n = 3;
  const long nodes = (1L << depth) - 1, per_node = n;
  using tree = void (*)(taken_back_counts&, std::atomic<long>&, int, int);
  for (int rep = 0; rep < wt::pick(30, 8); ++rep) {
    for (const auto& [node, what] : {std::pair<tree, const char*>{copied_branch_node, "four-word"},
                                     std::pair<tree, const char*>{copied_one_word_node, "one-word"}}) {
      taken_back_counts k;
      std::atomic<long> wrong{0};
      pool().run([&] { node(k, wrong, depth, n); });
      ASSERT_EQ(wrong.load(), 0) << "rep " << rep << ": a " << what << " branch read captures it was not given";
      ASSERT_EQ(k.joins.load(), nodes * per_node) << what << ", rep " << rep;
      ASSERT_EQ(k.iterations.load(), nodes * per_node) << what << ", rep " << rep;
      ASSERT_EQ(k.spawns.load(), nodes * per_node) << what << ", rep " << rep;
    }
  }
}

}  // namespace
