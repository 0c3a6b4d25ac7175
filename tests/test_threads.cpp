// Threads and pools (SPEC §2): several external threads calling run at once, run inside run, a pool
// used from another pool's worker, and the global pool used from threads that are no workers.
#include <set>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common.hpp"

namespace {

class Threads : public wt::PoolTest {};
WT_INSTANTIATE(Threads);

TEST_P(Threads, ExternalThreadsRunAtOnce) {
  const int threads = 4, reps = wt::pick(10, 3);
  const unsigned n = wt::pick(20u, 15u);
  std::atomic<int> bad{0}, errors{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      for (int k = 0; k < reps; ++k) {
        const unsigned m = n - unsigned((t + k) % 3);
        if (pool().run([&] { return wt::fib(m); }) != wt::fib_serial(m)) ++bad;
        // Interleave failing runs: one thread's exception must not reach another.
        try {
          pool().run([&] { weft::join([&] { return wt::fib(8); }, [&]() -> int { throw t; }); });
          ++bad;
        } catch (int v) {
          if (v != t) ++errors;
        }
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}

TEST_P(Threads, NestedRunRunsInline) {
  const unsigned n = wt::pick(18u, 14u);
  auto r = pool().run([&] {
    const auto outer = std::this_thread::get_id();
    return pool().run([&] {
      EXPECT_EQ(std::this_thread::get_id(), outer) << "run from inside run did not run inline";
      return pool().run([&] { return wt::fib(n); });
    });
  });
  EXPECT_EQ(r, wt::fib_serial(n));
  // From inside a join branch and a loop body too.
  auto s = pool().run([&] {
    auto [a, b] = weft::join([&] { return pool().run([&] { return wt::fib(n - 1); }); },
                             [&] { return pool().run([&] { return wt::fib(n - 2); }); });
    return a + b + weft::parallel_reduce(0, 10, std::uint64_t(0), [&](int i) { return pool().run([&] { return std::uint64_t(i); }); },
                                         std::plus<>{});
  });
  EXPECT_EQ(s, wt::fib_serial(n) + 45);
}

// A pool used from inside another pool's worker: the inner run blocks that worker, runs in the
// other pool, and returns; joins inside it belong to the other pool.
TEST_P(Threads, PoolInsideAnotherPoolsWorker) {
  const unsigned n_outer = wt::pick(18u, 14u);
  for (weft::policy inner_policy : weft::implemented_policies()) {
    // A thread per join under the fiber engine's policies: fib(10) there under a sanitizer (a fiber
    // made costs ThreadSanitizer about a millisecond: 30 s for this test at stop 59, fib(14)).
    const unsigned n = wt::uses_fibers(inner_policy) ? wt::pick(18u, 10u) : n_outer;
    weft::pool other(weft::config{.workers = wt::runs_on_caller(inner_policy) ? 1u : 2u, .policy = inner_policy});
    SCOPED_TRACE(std::string(weft::to_string(inner_policy)));
    other.reset_stats();
    auto r = pool().run([&] {
      auto [a, b] = weft::join([&] { return other.run([&] { return wt::fib(n); }); },
                               [&] { return wt::fib(n); });
      return a + b;
    });
    EXPECT_EQ(r, 2 * wt::fib_serial(n));
    EXPECT_EQ(other.stats().total.joins, wt::fib_joins(n)) << "the inner run's joins were not made in the inner pool";
    // And the other way round.
    auto q = other.run([&] { return pool().run([&] { return wt::fib(n); }) + wt::fib(n - 1); });
    EXPECT_EQ(q, wt::fib_serial(n) + wt::fib_serial(n - 1));
    // Exceptions cross pools too.
    EXPECT_THROW(pool().run([&] { other.run([]() -> int { throw std::runtime_error("inner"); }); }), std::runtime_error);
  }
  EXPECT_EQ(pool().run([&] { return wt::fib(n_outer); }), wt::fib_serial(n_outer));
}

// Bits another pool's threads set in this thread's poll word while it runs a serial pool's job from
// that pool's task — a thief's `notify`, a timer's beat (set here by hand, as they would be: a
// one-worker outer pool has no thief, and its beat period is far longer than the test) — are not
// the serial run's: its next join puts them aside, so its later joins take the fast path again, and
// the run's end gives them back to the outer pool's word (scheduler.hpp, foreign_poll_bits).
// Before stop 43 a `notify` stayed in the word for the whole run: every join took the slow path.
TEST(Threads, ForeignPollBitsInANestedRunAreGivenBack) {
  using weft::detail::tls_hot;
  const std::uint32_t foreign = weft::detail::poll_bit::notify | weft::detail::poll_bit::heartbeat;
  weft::pool serial(weft::config{.workers = 1, .policy = weft::policy::serial});
  for (weft::policy outer_policy : {weft::policy::lazy_bf, weft::policy::wool, weft::policy::ws_ap, weft::policy::heartbeat}) {
    SCOPED_TRACE(std::string(weft::to_string(outer_policy)));
    weft::config cfg{.workers = 1, .policy = outer_policy};
    if (outer_policy == weft::policy::heartbeat) {
      cfg.heartbeat = std::chrono::seconds(10);
      cfg.heartbeat_delivery = weft::heartbeat_delivery::thread;
    }
    weft::pool outer(cfg);
    outer.run([&] {
      const std::uint32_t outer_bits = tls_hot.poll.fetch_and(~foreign) & foreign;  // this test's bits only
      const auto [in_run_after_join, result] = serial.run([&] {
        tls_hot.poll.fetch_or(foreign);
        const auto [a, b] = weft::join([] { return wt::fib(10); }, [] { return wt::fib(9); });
        return std::pair{tls_hot.poll.load() & foreign, a + b + wt::fib(12)};
      });
      EXPECT_EQ(result, wt::fib_serial(11) + wt::fib_serial(12));
      EXPECT_EQ(in_run_after_join, 0u) << "another pool's bits stayed in the serial run's poll word";
      EXPECT_EQ(tls_hot.poll.load() & foreign, foreign) << "the other pool's bits were not given back";
      tls_hot.poll.fetch_and(~foreign);
      tls_hot.poll.fetch_or(outer_bits);
    });
  }
}

// A thread started from inside a worker is no worker: its joins go to the global pool.
TEST_P(Threads, ThreadStartedInsideWorker) {
  auto r = pool().run([&] {
    std::uint64_t v = 0;
    std::thread t([&] { v = wt::fib(15); });
    t.join();
    return v;
  });
  EXPECT_EQ(r, wt::fib_serial(15));
}

TEST_P(Threads, ManyPoolsCreatedAndDestroyed) {
  for (int k = 0; k < wt::pick(10, 3); ++k) {
    weft::pool p(weft::config{.workers = workers(), .policy = policy()});
    if (k % 2 == 0) EXPECT_EQ(p.run([] { return wt::fib(12); }), wt::fib_serial(12));
  }
}

// ---------------------------------------------------------------------------------------------
// The global pool: join / parallel_for / parallel_reduce / scope from the main thread.

TEST(GlobalPool, SizeAndPolicy) {
  EXPECT_GE(weft::pool::global().size(), 1u);
  EXPECT_NE(weft::pool::global().policy(), weft::policy::automatic);
  EXPECT_EQ(&weft::pool::global(), &weft::pool::global());
}

TEST(GlobalPool, JoinFromMainThread) {
  const unsigned n = wt::pick(22u, 16u);
  EXPECT_EQ(wt::fib(n), wt::fib_serial(n));
  auto [a, b] = weft::join([] { return std::string("a"); }, [] { return 2; });
  EXPECT_EQ(a, "a");
  EXPECT_EQ(b, 2);
  auto [c, d] = weft::join([] {}, [] {});
  EXPECT_TRUE(c == weft::unit{} && d == weft::unit{});
}

TEST(GlobalPool, LoopsFromMainThread) {
  const int n = wt::pick(10000, 2000);
  const std::size_t count = std::size_t(n);
  std::vector<std::atomic<int>> hits(count);
  weft::parallel_for(0, n, [&](int i) { hits[std::size_t(i)].fetch_add(1); });
  for (int i = 0; i < n; ++i) ASSERT_EQ(hits[std::size_t(i)].load(), 1);
  const long s = weft::parallel_reduce(0, n, 0L, [](int i) { return long(i); }, std::plus<>{});
  EXPECT_EQ(s, long(n) * (n - 1) / 2);
  std::string str = weft::parallel_reduce(0, 10, std::string(">"), [](int i) { return std::to_string(i); }, std::plus<>{});
  EXPECT_EQ(str, ">0123456789");
  EXPECT_EQ(weft::parallel_reduce(5, 5, 3, [](int) { return 1; }, std::plus<>{}), 3);
}

TEST(GlobalPool, ScopeFromMainThread) {
  std::vector<std::uint64_t> out(10);
  {
    weft::scope s;
    for (unsigned i = 0; i < out.size(); ++i) s.spawn([&, i] { out[i] = wt::fib(i + 5); });
  }
  for (unsigned i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], wt::fib_serial(i + 5));
}

TEST(GlobalPool, ExceptionsFromMainThread) {
  EXPECT_THROW(weft::join([] { return 1; }, []() -> int { throw std::runtime_error("x"); }), std::runtime_error);
  EXPECT_THROW(weft::parallel_for(0, 100, [](int i) {
                 if (i == 50) throw std::runtime_error("y");
               }),
               std::runtime_error);
  EXPECT_THROW(
      {
        weft::scope s;
        s.spawn([] { throw std::runtime_error("z"); });
      },
      std::runtime_error);
  EXPECT_EQ(wt::fib(15), wt::fib_serial(15));
}

TEST(GlobalPool, FromSeveralThreadsAtOnce) {
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int k = 0; k < 5; ++k) {
        const unsigned n = 12 + unsigned(t + k) % 5;
        if (wt::fib(n) != wt::fib_serial(n)) ++bad;
        if (weft::parallel_reduce(0, 1000, 0L, [](int i) { return long(i); }, std::plus<>{}) != 499500) ++bad;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(GlobalPool, ExplicitRun) {
  EXPECT_EQ(weft::pool::global().run([] { return wt::fib(18); }), wt::fib_serial(18));
  // Running in the global pool: a join there runs in the same pool (nested run inline).
  EXPECT_EQ(weft::pool::global().run([] { return weft::pool::global().run([] { return 5; }); }), 5);
}

}  // namespace
