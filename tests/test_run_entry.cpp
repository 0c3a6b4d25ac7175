// Entering a pool from outside (issue 9 item 3, docs/PROTOCOLS.md section 9): pool::run from a
// thread that is no worker borrows the slot of a sleeping worker and runs the job on the calling
// thread.  What must hold there: the job runs on the caller; its forked work is still stolen by the
// workers (heartbeat: the beats reach the borrower); counters land in the pool; exceptions and
// cross-pool cycles behave as before.

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "common.hpp"

namespace {

using namespace std::chrono_literals;

class RunEntry : public testing::TestWithParam<weft::policy> {};
// Not the fiber engine's policies: there every job is a root thread that the workers run (a caller's
// thread has no scheduler loop to switch fibers), so no slot is ever lent (root_jobs.cpp).
INSTANTIATE_TEST_SUITE_P(All, RunEntry, testing::ValuesIn(wt::implemented_where([](const auto& row) {
                           return !wt::runs_on_caller(row.value) && !wt::uses_fibers(row.value);
                         })),
                         wt::policy_name);

// Runs `body(on_caller)` in p.run until one run happened on the calling thread, which needs a
// sleeping worker: workers sleep after ~1 ms without work, so a pause of 5 ms before each try makes
// it likely at once; wt::event_bound (30 s) covers a loaded machine.  Returns whether it happened.
template <class Body>
bool run_until_on_caller(weft::pool& p, Body body) {
  const auto caller = std::this_thread::get_id();
  return wt::wait_until(
      [&] {
        std::this_thread::sleep_for(5ms);
        return p.run([&] { return body(std::this_thread::get_id() == caller); });
      },
      std::chrono::duration_cast<std::chrono::milliseconds>(wt::event_bound));
}

TEST_P(RunEntry, IdlePoolRunsTheJobOnTheCaller) {
  if (wt::sanitized) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
  for (unsigned workers : {1u, 2u}) {
    weft::pool p(weft::config{.workers = workers, .policy = GetParam()});
    const unsigned n = wt::pick(20u, 14u);
    p.reset_stats();
    int runs = 0;
    std::uint64_t last = 0;
    const bool on_caller = run_until_on_caller(p, [&](bool here) {
      ++runs;
      last = wt::fib(n);
      return here;
    });
    ASSERT_TRUE(on_caller) << "no run of an idle " << workers << "-worker pool ran on its caller within "
                           << wt::event_bound.count() << " s";
    EXPECT_EQ(last, wt::fib_serial(n));
    // Joins made on a borrowed slot are the pool's.
    EXPECT_EQ(p.stats().total.joins, std::uint64_t(runs) * wt::fib_joins(n));
    // The slot was given back: the pool's own threads still serve runs from inside (nested) and
    // from other threads.
    std::uint64_t from_thread = 0;
    std::thread t([&] { from_thread = p.run([&] { return wt::fib(n); }); });
    t.join();
    EXPECT_EQ(from_thread, wt::fib_serial(n));
  }
}

// The borrower's promoted work reaches the workers: the first branch polls until the second has
// started on another thread (wt::poll_until: bounded by wt::event_bound).  Under heartbeat this also
// shows that the beats reach the borrower's poll word (it promotes only at beats).
TEST_P(RunEntry, ForkedWorkOfACallerRunIsStolen) {
  if (wt::sanitized) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
  weft::pool p(weft::config{.workers = 2, .policy = GetParam()});
  const unsigned n = wt::pick(22u, 16u);
  p.reset_stats();
  bool stolen = false;
  std::uint64_t sum = 0;
  const bool on_caller = run_until_on_caller(p, [&](bool here) {
    if (!here) return false;
    const auto me = std::this_thread::get_id();
    std::atomic<int> started{0};
    auto [a, b] = weft::join(
        [&] {
          stolen = wt::poll_until(started);
          return wt::fib(n);
        },
        [&] {
          if (std::this_thread::get_id() != me) started.store(1);
          return wt::fib(n);
        });
    sum = a + b;
    return true;
  });
  ASSERT_TRUE(on_caller);
  EXPECT_TRUE(stolen) << "the second branch of a join made on a borrowed slot never ran on a worker";
  EXPECT_EQ(sum, 2 * wt::fib_serial(n));
  EXPECT_GT(p.stats().total.steals, 0u);
}

TEST_P(RunEntry, ExceptionsLeaveACallerRun) {
  if (wt::sanitized) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
  weft::pool p(weft::config{.workers = 2, .policy = GetParam()});
  bool threw_on_caller = false;
  const bool on_caller = run_until_on_caller(p, [&](bool here) {
    if (!here) return false;
    try {
      weft::join([] { return wt::fib(15); }, []() -> std::uint64_t { throw std::runtime_error("second"); });
    } catch (const std::runtime_error&) {
      threw_on_caller = true;
    }
    return true;
  });
  ASSERT_TRUE(on_caller);
  EXPECT_TRUE(threw_on_caller);
  // And out of run itself, after which the pool works on.
  std::this_thread::sleep_for(5ms);
  EXPECT_THROW(p.run([]() -> int { throw std::logic_error("body"); }), std::logic_error);
  EXPECT_EQ(p.run([] { return wt::fib(16); }), wt::fib_serial(16));
}

// a.run -> b.run -> a.run with one worker each, entered while both sleep: the caller holds a's
// only slot, so the inner a.run must be served by the caller itself while it waits for b (it serves
// a meanwhile, as any worker of a does).  A deadlock here would hang until ctest's timeout.
TEST_P(RunEntry, CrossPoolCycleFromACallerRun) {
  weft::pool a(weft::config{.workers = 1, .policy = GetParam()});
  weft::pool b(weft::config{.workers = 1, .policy = GetParam()});
  for (int k = 0; k < 3; ++k) {
    std::this_thread::sleep_for(5ms);
    const auto r = a.run([&] { return b.run([&] { return a.run([] { return wt::fib(12); }) + 1; }); });
    EXPECT_EQ(r, wt::fib_serial(12) + 1);
  }
}

// A job run by its caller on a borrowed slot has the native stack the pool promises
// (config::stack_bytes, default 1 GiB), not the caller's: 400,000 nested joins need far more than
// the calling thread's 1 MiB.
TEST_P(RunEntry, ACallerRunHasThePoolsNativeStack) {
  if (wt::sanitized) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
  weft::pool p(weft::config{.workers = 1, .policy = GetParam()});
  long got = -1;
  bool on_caller = false;
  wt::on_thread_with_stack(std::size_t(1) << 20, [&] {
    on_caller = run_until_on_caller(p, [&](bool here) {
      if (here) got = wt::join_chain(400'000);
      return here;
    });
  });
  ASSERT_TRUE(on_caller);
  EXPECT_EQ(got, 200'000);
}

// And its overflow is reported like a worker's, naming the setting.
TEST_P(RunEntry, ACallerRunsStackOverflowNamesTheSetting) {
  if (wt::sanitized) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = GetParam(), .stack_bytes = 256 << 10});
                 run_until_on_caller(p, [](bool here) {
                   if (here) wt::join_chain(200'000);
                   return here;
                 });
               }()),
               "native stack \\(262144 bytes\\) overflowed.*WEFT_STACK_BYTES");
}

// Under `serial` every run is the caller's, and it too gets the native stack the pool promises: a
// chain of 400,000 joins from a thread whose own stack is 1 MiB (until stop 38 it ran on that
// stack: a bare SIGSEGV), and an overflow of config.stack_bytes names the setting.
TEST(SerialRun, RunsOnThePoolsNativeStack) {
  if (wt::sanitized) GTEST_SKIP() << "sanitized builds run a serial job on the caller's stack (root_jobs.cpp)";
  weft::pool p(weft::config{.workers = 1, .policy = weft::policy::serial});
  long got = -1;
  bool on_caller = false;
  wt::on_thread_with_stack(std::size_t(1) << 20, [&] {
    const auto caller = std::this_thread::get_id();
    got = p.run([&] {
      on_caller = std::this_thread::get_id() == caller;
      return wt::join_chain(400'000);
    });
  });
  EXPECT_TRUE(on_caller) << "serial runs the job on the calling thread";
  EXPECT_EQ(got, 200'000);
  // Nested runs each take a serial context of their own, with its own stack.
  EXPECT_EQ(p.run([&] { return p.run([] { return wt::join_chain(300'000); }) + 1; }), 150'001);
}

TEST(SerialRun, StackOverflowNamesTheSetting) {
  if (wt::sanitized) GTEST_SKIP() << "sanitized builds run a serial job on the caller's stack (root_jobs.cpp)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = weft::policy::serial, .stack_bytes = 256 << 10});
                 p.run([] { return wt::join_chain(200'000); });
               }()),
               "native stack \\(262144 bytes\\) overflowed.*WEFT_STACK_BYTES");
}

// A job that returns a reference: run returns that reference, as f() gives it where run calls the
// job inline (from a worker of the pool), under every policy, from outside, nested, and in the
// global pool.  Until stop 46's results hunt such a job did not compile: the result was kept in an
// std::optional of the reference type (errors deep in <optional>).
TEST(RunResults, AJobThatReturnsAReferenceGivesThatReference) {
  int x = 1;
  auto u = std::make_unique<int>(2);
  const std::string s = "three";
  for (weft::policy pol : wt::implemented_where([](const auto&) { return true; })) {
    weft::pool p(weft::config{.workers = wt::runs_on_caller(pol) ? 1u : 2u, .policy = pol});
    int& rx = p.run([&]() -> int& { return x; });
    EXPECT_EQ(&rx, &x) << weft::to_string(pol);
    std::unique_ptr<int>&& ru = p.run([&]() -> std::unique_ptr<int>&& { return std::move(u); });
    EXPECT_EQ(&ru, &u) << weft::to_string(pol);
    EXPECT_TRUE(u) << "returning an rvalue reference moves nothing";
    const std::string& rs = p.run([&]() -> const std::string& { return s; });
    EXPECT_EQ(&rs, &s) << weft::to_string(pol);
    int* nested = p.run([&] { return &p.run([&]() -> int& { return x; }); });
    EXPECT_EQ(nested, &x) << weft::to_string(pol);
  }
  EXPECT_EQ(&weft::pool::global().run([&]() -> int& { return x; }), &x);
}

}  // namespace

namespace {

// A job that returns a const value of a move-only type: run returns it, made once on the pool's
// thread (no copy: the type has none) and moved to the caller, under every policy, from outside and
// from inside the pool.  Until stop 47 such a job did not compile: the result was handed to
// std::optional::emplace as a `const T`, which only a copy could take.
TEST(RunResults, AJobThatReturnsAConstMoveOnlyValue) {
  for (weft::policy pol : wt::implemented_where([](const auto&) { return true; })) {
    weft::pool p(weft::config{.workers = wt::runs_on_caller(pol) ? 1u : 2u, .policy = pol});
    const auto make = [](int v) { return [v]() -> const std::unique_ptr<int> { return std::make_unique<int>(v); }; };
    std::unique_ptr<int> got = p.run(make(7));
    ASSERT_TRUE(got) << weft::to_string(pol);
    EXPECT_EQ(*got, 7) << weft::to_string(pol);
    EXPECT_EQ(p.run([&] { return *p.run(make(8)) + 1; }), 9) << weft::to_string(pol) << ": run from inside the pool calls the job inline";
    const std::unique_ptr<int> kept = p.run(make(10));
    EXPECT_EQ(*kept, 10) << weft::to_string(pol);
  }
}

}  // namespace
