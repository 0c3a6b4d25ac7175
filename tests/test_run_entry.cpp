// Entering a pool from outside (issue 9 item 3, docs/PROTOCOLS.md section 9): pool::run from a
// thread that is no worker borrows the slot of a sleeping worker and runs the job on the calling
// thread.  What must hold there: the job runs on the caller; its forked work is still stolen by the
// workers (heartbeat: the beats reach the borrower); counters land in the pool; exceptions and
// cross-pool cycles behave as before.  Under the fiber engine (adf, dfd, fifo) the caller runs the
// job's root thread and the policy's scheduler loop on the slot (sched_fibers.cpp serve_borrowed):
// the root may end on a worker, and the caller serves other jobs' threads until its own is done.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "common.hpp"

namespace {

using namespace std::chrono_literals;

class RunEntry : public testing::TestWithParam<weft::policy> {
 protected:
  // Sanitized builds lend no slot to a job that runs on the slot's native stack (root_jobs.cpp: no
  // stack switch there); the fiber engine's borrower switches no native stack and lends there too.
  static bool lends_slots() { return !wt::sanitized || wt::uses_fibers(GetParam()); }
  // fib's size for a run: fifo holds a thread (a fiber stack) per join made (common.hpp).
  static unsigned fib_size(unsigned n) { return wt::breadth_first(GetParam()) ? std::min(n, 14u) : n; }
};
// Every policy with workers, the fiber engine's among them (fifo too, at its sizes).
INSTANTIATE_TEST_SUITE_P(All, RunEntry, testing::ValuesIn(wt::implemented_where([](const auto& row) {
                           return !wt::runs_on_caller(row.value);
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
  if (!lends_slots()) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
  for (unsigned workers : {1u, 2u}) {
    weft::pool p(weft::config{.workers = workers, .policy = GetParam()});
    const unsigned n = fib_size(wt::pick(20u, 14u));
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

// The borrower's forked work reaches the workers: the two branches of a join made on the borrowed
// slot wait for each other (the first polls, so the lazy and heartbeat policies promote there; each
// wait bounded by wt::event_bound), which only two threads at once can satisfy.  Under heartbeat this
// also shows that the beats reach the borrower's poll word (it promotes only at beats); under fifo,
// whose fork queues the child, that a worker takes it while the borrower runs the parent.
TEST_P(RunEntry, ForkedWorkOfACallerRunIsStolen) {
  if (!lends_slots()) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
  weft::pool p(weft::config{.workers = 2, .policy = GetParam()});
  const unsigned n = fib_size(wt::pick(22u, 16u));
  p.reset_stats();
  bool met = false;
  std::uint64_t sum = 0;
  const bool on_caller = run_until_on_caller(p, [&](bool here) {
    if (!here) return false;
    std::atomic<int> first_in{0}, second_in{0};
    auto [a, b] = weft::join(
        [&] {
          first_in.store(1);
          met = wt::poll_until(second_in);
          return wt::fib(n);
        },
        [&] {
          second_in.store(1);
          wt::wait_until([&] { return first_in.load() != 0; },
                         std::chrono::duration_cast<std::chrono::milliseconds>(wt::event_bound));
          return wt::fib(n);
        });
    sum = a + b;
    return true;
  });
  ASSERT_TRUE(on_caller);
  EXPECT_TRUE(met) << "the branches of a join made on a borrowed slot never ran at the same time";
  EXPECT_EQ(sum, 2 * wt::fib_serial(n));
  EXPECT_GT(p.stats().total.steals, 0u);
}

// Under the fiber engine the job's root thread may end on a worker: here the branch that runs on a
// worker (the two meet first, so each runs on a thread of its own) sleeps 5 ms while the caller's
// returns at once, so the caller runs out of its job's ready threads and waits on the job (holding
// its slot: serve_borrowed), and the worker that ends the branch goes on with the root (adf and
// fifo take it as the first ready thread, dfd continues with the woken parent, NAR Fig 6.4) under
// the same lock.  The run still returns the job's result, on the caller.  A caller descheduled for
// more than those 5 ms (a loaded machine) ends its branch after the worker's, and then goes on with
// the root itself (the same rules, on its side): each run's result is checked, and runs are
// repeated until one root ended on a worker (bounded: run_until_on_caller's wt::event_bound).  Until
// stop 53's fiberlend hunt one run decided, and the test failed in about 1 of 30 repetitions on the
// loaded 2-core machine.
TEST_P(RunEntry, AFiberJobsRootEndsOnAWorkerWhileTheCallerWaits) {
  if (!wt::uses_fibers(GetParam())) GTEST_SKIP() << "a root thread that moves: the fiber engine's";
  weft::pool p(weft::config{.workers = 2, .policy = GetParam()});
  const auto caller = std::this_thread::get_id();
  int runs = 0, wrong = 0;
  const bool ended_on_a_worker = run_until_on_caller(p, [&](bool here) {
    if (!here) return false;
    ++runs;
    std::atomic<int> met{0};
    const auto branch = [&](int v) {
      met.fetch_add(1);
      if (!wt::wait_until([&] { return met.load() == 2; }, std::chrono::duration_cast<std::chrono::milliseconds>(wt::event_bound)))
        return -1;  // the two never ran at once
      if (wt::thread_now() != caller) std::this_thread::sleep_for(5ms);
      return v;
    };
    auto [a, b] = weft::join([&] { return branch(1); }, [&] { return branch(2); });
    if (10 * a + b != 12) ++wrong;    // -1: the branches never ran at the same time
    return wt::thread_now() != caller;  // not get_id(): see thread_now
  });
  ASSERT_TRUE(ended_on_a_worker) << "in " << runs << " runs on the caller no root ended on a worker";
  EXPECT_EQ(wrong, 0) << "of " << runs << " runs on the caller";
  EXPECT_EQ(p.run([&] { return wt::fib(12); }), wt::fib_serial(12));
}

// A borrower runs only its own job's threads (serve_borrowed: a thread of another job could keep
// the address of the caller's thread-local state after the caller's run returned).  The caller's job
// waits, its two branches met on two threads, while the branch that is not on the caller waits for
// another thread's job: a tree of joins whose threads stand ready in the pool's structure while the
// caller looks for work of its own.  None of that job's code may run on the caller's thread.
TEST_P(RunEntry, ACallerServesOnlyItsOwnJobsThreads) {
  if (!wt::uses_fibers(GetParam())) GTEST_SKIP() << "the fiber engine's borrower";
  weft::pool p(weft::config{.workers = 3, .policy = GetParam()});
  const auto caller = wt::thread_now();
  const auto bound = std::chrono::duration_cast<std::chrono::milliseconds>(wt::event_bound);
  std::atomic<int> other_ran_on_caller{0}, other_done{0};
  std::uint64_t other_result = 0;
  std::thread other;
  bool met = false;
  const bool on_caller = run_until_on_caller(p, [&](bool here) {
    if (!here) return false;
    other = std::thread([&] {
      std::function<std::uint64_t(unsigned)> tree = [&](unsigned n) -> std::uint64_t {
        if (wt::thread_now() == caller) other_ran_on_caller.fetch_add(1);
        if (n < 2) {
          const auto until = std::chrono::steady_clock::now() + 5us;  // a leaf's work
          while (std::chrono::steady_clock::now() < until) {
          }
          return n;
        }
        auto [a, b] = weft::join([&] { return tree(n - 1); }, [&] { return tree(n - 2); });
        return a + b;
      };
      other_result = p.run([&] { return tree(fib_size(13)); });
      other_done.store(1);
    });
    std::atomic<int> in{0};
    const auto branch = [&] {
      in.fetch_add(1);
      const bool both = wt::wait_until([&] { return in.load() == 2; }, bound);
      if (wt::thread_now() != caller) wt::wait_until([&] { return other_done.load() != 0; }, bound);
      return both;
    };
    auto [a, b] = weft::join(branch, branch);
    met = a && b;
    return true;
  });
  if (other.joinable()) other.join();
  ASSERT_TRUE(on_caller);
  EXPECT_TRUE(met) << "the caller's branches never ran at once";
  EXPECT_EQ(other_result, wt::fib_serial(fib_size(13)));
  EXPECT_EQ(other_ran_on_caller.load(), 0) << "another job's threads ran on a caller's borrowed slot";
}

// A task that blocks its worker until another thread's pool::run of the same pool returns, while
// the caller that borrowed a slot for the task's job has nothing of its job left to run: that run is
// queued (no slot sleeps), and the one thread that could take it is the borrower's slot.  Until stop
// 54 the fiber engine's borrower held that slot idle until its job was done and took no queued job:
// the run never started, and the job waited for it for ever (about 1 run in 3 under adf and dfd,
// stop 53's fiberlend hunt).  It now gives the slot back when it would sleep while other work
// waits.  The branches meet on two threads (each waits up to 200 ms for the other: a steal takes
// microseconds) and the one on a worker blocks; runs repeat until 5 did so (at most 20).  In a
// child process that arms alarm(60): hung, it dies of SIGALRM.
TEST_P(RunEntry, ATaskWaitingForAnotherThreadsRunOfItsPoolIsNotStarved) {
  if (!wt::uses_fibers(GetParam())) GTEST_SKIP() << "the fiber engine's borrower (the others keep the rarer case: README Known issues)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      ([&] {
        ::alarm(60);
        weft::pool p(weft::config{.workers = 2, .policy = GetParam()});
        const auto caller = wt::thread_now();
        std::atomic<int> blocked{0}, wrong{0};
        for (int rep = 0; rep < 20 && blocked.load() < 5; ++rep) {
          run_until_on_caller(p, [&](bool here) {
            if (!here) return false;
            std::atomic<int> started{0};
            const auto branch = [&] {
              started.fetch_add(1);
              wt::wait_until([&] { return started.load() == 2; }, std::chrono::milliseconds(200));
              if (wt::thread_now() == caller) return;
              std::uint64_t r = 0;
              std::thread other([&] { r = p.run([] { return wt::fib(10); }); });
              other.join();
              if (r != wt::fib_serial(10)) wrong.fetch_add(1);
              blocked.fetch_add(1);
            };
            weft::join(branch, branch);
            return true;
          });
        }
        if (wrong.load() != 0) std::_Exit(5);
        std::_Exit(blocked.load() > 0 ? 0 : 6);  // 6: no branch ever ran on a worker, nothing tested
      }()),
      testing::ExitedWithCode(0), "");
}

// Callers of run on several threads at once, each borrowing a slot when one sleeps, the rest queued;
// under the fiber engine a borrower runs its own job's threads only (serve_borrowed), and the
// workers every other one.  Every job's result and the pool's join count come out as the serial
// elision's; a lost thread would hang the test (ctest's timeout).
TEST_P(RunEntry, ConcurrentCallersEachGetTheirOwnResult) {
  const unsigned workers = 2, callers = 4, runs = wt::pick(40u, 10u);
  weft::pool p(weft::config{.workers = workers, .policy = GetParam()});
  const unsigned n = fib_size(wt::pick(16u, 12u));
  p.reset_stats();
  std::atomic<unsigned> wrong{0};
  std::vector<std::thread> threads;
  for (unsigned c = 0; c < callers; ++c)
    threads.emplace_back([&, c] {
      for (unsigned r = 0; r < runs; ++r) {
        if ((r + c) % 3 == 0) std::this_thread::sleep_for(2ms);  // let workers sleep: slots to borrow
        const unsigned m = n - (r + c) % 3;
        if (p.run([&] { return wt::fib(m); }) != wt::fib_serial(m)) wrong.fetch_add(1);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0u);
  std::uint64_t joins = 0;
  for (unsigned c = 0; c < callers; ++c)
    for (unsigned r = 0; r < runs; ++r) joins += wt::fib_joins(n - (r + c) % 3);
  EXPECT_EQ(p.stats().total.joins, joins);
}

TEST_P(RunEntry, ExceptionsLeaveACallerRun) {
  if (!lends_slots()) GTEST_SKIP() << "sanitized builds do not lend slots (root_jobs.cpp: no stack switch there)";
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
  if (wt::uses_fibers(GetParam())) GTEST_SKIP() << "a fiber-engine job runs on a fiber stack (config::fiber_stack_bytes: test_fibers.cpp)";
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

// And its overflow is reported like a worker's, naming the setting.  Under the fiber engine the job
// runs on fiber stacks, on the caller's thread too, and the overflow of one there names its own
// setting: the caller's thread needs the alternate signal stack the message is written on (stop
// 53's second CI rehearsal died without the message, FibersLimits.FiberStackOverflowNamesTheSetting,
// where the run happened to borrow a slot).
TEST_P(RunEntry, ACallerRunsStackOverflowNamesTheSetting) {
  if (wt::sanitized) GTEST_SKIP() << "the sanitizers handle SIGSEGV themselves (and lend no slot to the other engines)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const bool fibers = wt::uses_fibers(GetParam());
  weft::config c{.workers = 1, .policy = GetParam()};
  if (fibers)
    c.fiber_stack_bytes = 64 << 10;
  else
    c.stack_bytes = 256 << 10;
  EXPECT_DEATH(([&] {
                 weft::pool p(c);
                 run_until_on_caller(p, [fibers](bool here) {
                   // A chain of joins under the fiber engine forks a thread, with a stack of its
                   // own, per level: there plain recursion overflows the one it runs on.
                   if (here) fibers ? void(wt::deep_recursion(1 << 20)) : void(wt::join_chain(200'000));
                   return here;
                 });
               }()),
               fibers ? "fiber's stack \\(65536 bytes\\) overflowed.*WEFT_FIBER_STACK_BYTES"
                      : "native stack \\(262144 bytes\\) overflowed.*WEFT_STACK_BYTES");
}

// A fork() inside a task run on the caller's borrowed slot, while another thread of the pool runs
// the job's other branch: the child has only the caller's thread, which, once the forking branch
// returns, can never see the job end (its other thread is not in the child).  As on a worker
// (README, "Pools and processes"), the child ends with a message saying so (SIGABRT); the fiber
// engine's borrower waited for ever in serve_borrowed (found by stop 53's fiberlend hunt).  The
// branch on the caller forks once the other has started on another thread (bounded: 10 s; a steal
// takes microseconds), and that one waits until the parent has reaped the child (bounded: 60 s).
// The child arms alarm(10): hung, it dies of SIGALRM.
TEST_P(RunEntry, AForkChildWhoseBranchReturnsOnTheCallerSaysSo) {
  if (!wt::uses_fibers(GetParam())) GTEST_SKIP() << "the fiber engine's borrower";
  // ThreadSanitizer reports races in the child between the parent's fiber switches (README, "Left
  // by stop 49's space hunt"; Fibers.AForkChildNeverWaitsForTheStackLockOfAGoneThread skips too).
  if (wt::sanitized) GTEST_SKIP() << "the sanitizers do not follow forks made while workers switch fibers";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      ([&] {
        ::alarm(120);
        weft::pool p(weft::config{.workers = 2, .policy = GetParam()});
        const auto caller = wt::thread_now();
        pid_t child = -1;
        int status = 0;
        run_until_on_caller(p, [&](bool here) {
          if (!here) return false;
          std::atomic<bool> other_started{false}, reaped{false};
          const auto branch = [&] {
            if (wt::thread_now() != caller) {
              other_started = true;
              wt::wait_until([&] { return reaped.load(); }, std::chrono::milliseconds(60'000));
              return;
            }
            if (!wt::wait_until([&] { return other_started.load(); }, std::chrono::milliseconds(10'000))) return;
            child = ::fork();
            if (child == 0) {
              ::alarm(10);
              return;  // in the child: the branch returns, its job's other thread is not there
            }
            if (child > 0) ::waitpid(child, &status, 0);
            reaped = true;
          };
          weft::join(branch, branch);
          return true;
        });
        if (child <= 0) std::_Exit(6);  // both branches ran on the caller: nothing tested
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
          std::fprintf(stderr, "child: %s %d\n", WIFSIGNALED(status) ? "signal" : "exit",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
          std::_Exit(5);
        }
        std::_Exit(0);
      }()),
      testing::ExitedWithCode(0), "a worker thread has nothing left that it can do.*End the child inside the task");
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
