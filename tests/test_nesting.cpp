// weft tests: nesting without a cliff (SPEC §2: joins nest at least 10^6 deep on a worker and on a
// thread calling run; past a limit, a clear error naming the limit and the setting that raises it).
#include <alloca.h>

#include <unistd.h>

#include <cstdio>
#include <system_error>
#include <thread>

#include "address_limit.hpp"
#include "common.hpp"

namespace {

class Nesting : public wt::PoolTest {};
INSTANTIATE_TEST_SUITE_P(All, Nesting, testing::ValuesIn([] {
                           std::vector<wt::pool_param> out;
                           // Not the fiber engine: there each nested join is a live thread with a
                           // stack of its own (test_fibers.cpp checks the limit's message).
                           for (const auto& p : wt::all_pool_params())
                             if (p.workers <= 2 && !wt::uses_fibers(p.policy)) out.push_back(p);
                           return out;
                         }()),
                         wt::param_name);

// Under the sanitizers the depth is 10,000: their runtimes keep a shadow call stack of their own
// (ThreadSanitizer's holds 64K entries, a few per nesting level) that a million levels overflow.
TEST_P(Nesting, AMillionNestedJoins) {
  const long depth = wt::sanitized ? 10'000 : 1'000'000;
  // From the test's own thread (its native stack is the process's `ulimit -s`, 8 MiB by default):
  // the job runs on a stack of weft's (a worker's, a lent slot's, or under `serial` the serial
  // context's; until stop 38 `serial` ran it on this thread's stack and crashed with a bare SIGSEGV).
  const long got = pool().run([&] { return wt::join_chain(depth); });
  EXPECT_EQ(got, depth / 2);
  // The pool is still usable and right afterwards.
  EXPECT_EQ(pool().run([] { return wt::fib(20); }), wt::fib_serial(20));
}

// A DFS down a long path written with loops (each node a parallel_for over its children, the path
// a child each) and joins, nested deep with a second worker looking for work: the oldest-first
// check (lazy-bf, heartbeat) walked every frame below it at each of the path's checks — quadratic:
// 10^5 levels took 77 s (stop 40's bug hunt) — until it kept a floor (hot_state::scan_floor); the
// checking builds assert the floor never passes a candidate.  The path mixes one-iteration loops
// (no candidate while their iteration runs), loops of two (the second iteration a candidate) and
// joins (the second branch a candidate), so frames below the floor are popped and pushed again.
namespace dfs_path {
long walk(long v, long n) {
  if (v >= n) return 0;
  switch (v % 7) {
    case 3: {  // a loop of two: the path goes on in the first child, the second is a leaf
      return weft::parallel_reduce(0, 2, 0L, [&](int i) { return i == 0 ? walk(v + 1, n) : 1L; }, std::plus<>{});
    }
    case 5: {  // a join: the path goes on in the first branch
      auto [a, b] = weft::join([&] { return walk(v + 1, n); }, [] { return 1L; });
      return a + b;
    }
    default: {  // a loop of one child
      long r = 0;
      weft::parallel_for(0, 1, [&](int) { r = walk(v + 1, n); });
      return r;
    }
  }
}
long ones(long v, long n) {  // the pure case: every node a loop of one child
  if (v >= n) return v;
  long r = 0;
  weft::parallel_for(0, 1, [&](int) { r = ones(v + 1, n); });
  return r;
}
long expected(long n) {
  long leaves = 0;
  for (long v = 0; v < n; ++v) leaves += (v % 7 == 3 || v % 7 == 5);
  return leaves;
}
}  // namespace dfs_path

TEST_P(Nesting, ADeepPathOfLoopsAndJoins) {
  // Under the sanitizers 2,000 levels: their frames are several times larger (ASan's redzones; a
  // level here is a loop's or a join's whole call chain), and the checking builds' assertion of the
  // floor covers the 4096 frames below it at any depth.
  const long depth = wt::sanitized ? 2'000 : 200'000;
  for (int rep = 0; rep < 3; ++rep)
    EXPECT_EQ(pool().run([&] { return dfs_path::walk(0, depth); }), dfs_path::expected(depth)) << "rep " << rep;
  // Every node a one-iteration loop: no candidate anywhere, a check at every level.  Quadratic
  // before the floor (10^5 levels: 77 s, 2*10^5 several minutes), a fraction of a second now; the
  // group's ctest timeout is the bound that would catch it coming back.
  EXPECT_EQ(pool().run([&] { return dfs_path::ones(0, depth); }), depth);
}

// Giving back a deep run's native stack (README, "Deep nesting's costs"): the pages a recursion of
// nested joins committed below the margin (256 KiB) go back once the stack is idle — a worker's own
// when it sleeps, a lent slot's or a serial context's when the run on it returns.  Before stop 52's
// trim they stayed committed while the pool lived (8 threads at depth 10^6: 858 MB resident under
// `serial`).  The task stack is not given back (README says why); only the native stack's share is
// asserted: what the recursion touched is measured as the distance between its top and bottom
// frames, and the resident set must fall by at least 3/4 of it less the 256 KiB kept.
namespace trim {
long rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * ::sysconf(_SC_PAGESIZE);
}
struct bottom {
  std::uintptr_t sp = 0;  // the deepest frame's address
  long rss = 0;           // the resident set there, every level's pages committed
  std::thread::id thread;
};
long chain(long n, bottom& b) {
  if (n == 0) {
    // The frame's address, not a local's: AddressSanitizer's detect_stack_use_after_return (CI's
    // setting) keeps locals on a fake stack in its heap.
    b.sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    b.rss = rss_bytes();
    b.thread = std::this_thread::get_id();
    return 0;
  }
  // Each level's frame padded by 256 bytes, so that what the chain touches does not hang on the
  // build's frame sizes: CI's sanitizer builds (-O1) made frames of ~80 bytes, and 10^4 levels
  // touched 0.8 MB, under the floor asserted below (stop 52's CI rehearsal).
  volatile char pad[256];
  pad[0] = char(n);
  auto [x, y] = weft::join([&] { return chain(n - 1, b); }, [&] { return n & 1; });
  return x + y + pad[0] - char(n);
}
}  // namespace trim

class NestingTrim : public testing::TestWithParam<weft::policy> {};
INSTANTIATE_TEST_SUITE_P(All, NestingTrim, testing::ValuesIn([] {
                           std::vector<weft::policy> out;
                           for (weft::policy p : weft::implemented_policies())
                             if (!wt::uses_fibers(p)) out.push_back(p);  // each join a fiber of its own there
                           return out;
                         }()),
                         wt::policy_name);

TEST_P(NestingTrim, ADeepRunsNativeStackIsGivenBackWhenIdle) {
  if (wt::sanitized && wt::runs_on_caller(GetParam()))
    GTEST_SKIP() << "a sanitized serial run stays on the caller's stack (root_jobs.cpp, WEFT_SWITCH_STACKS)";
  // Under the sanitizers 10^4 levels (their shadow call stacks; AMillionNestedJoins), 2*10^5
  // otherwise; each level's frame padded (trim::chain).
  const long depth = wt::sanitized ? 10'000 : 200'000;
  weft::pool p(weft::config{.workers = 1, .policy = GetParam()});
  const std::thread::id caller = std::this_thread::get_id();
  bool on_caller = false, on_worker = false;
  // Twice: right after a run (the worker, awake for 1 ms after its work, likely runs it) and after
  // a pause (it sleeps: the caller likely borrows its slot and runs the job on the slot's stack).
  // Which it was is recorded, not required: each must give its pages back.
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    if (round % 2 == 0) {
      EXPECT_EQ(p.run([] { return 1; }), 1);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    trim::bottom b;
    EXPECT_EQ(p.run([&] {
                // The job's own top frame: the chain's distance below it is what it touched.
                const auto from = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
                const long r = trim::chain(depth, b);
                b.sp = from - b.sp;  // bytes from the job's top to its deepest frame
                return r;
              }),
              depth / 2);
    (b.thread == caller ? on_caller : on_worker) = true;
    const long touched = long(b.sp);
    // Some 3.5-4 MB under ThreadSanitizer (10^4 levels of 350-400 bytes), 70-80 MB otherwise; under
    // AddressSanitizer with detect_stack_use_after_return the padding and every other local live on
    // its fake stack, and the native stack's share is too small to measure against the resident set.
    if (wt::sanitized && touched <= 1L << 20)
      GTEST_SKIP() << "the recursion touched only " << touched << " bytes of native stack (a sanitizer's fake stack holds its locals)";
    ASSERT_GT(touched, wt::sanitized ? 1L << 20 : 4L << 20) << "the recursion should touch megabytes of native stack";
    // The trim keeps 256 KiB below the stack pointer (stack_trim_margin): the rest must go, 3/4 of
    // it at least in the resident set; 1/2 under the sanitizers, whose runtimes commit memory of
    // their own meanwhile (ThreadSanitizer's sync objects for the joins' atomics: the set fell by
    // 560-640 KB of 870 KB given back).
    const long must_fall = (touched - (256L << 10)) / (wt::sanitized ? 2 : 4) * (wt::sanitized ? 1 : 3);
    // The worker gives its stack back when it sleeps, 1 ms after its last work; the borrower and the
    // serial caller before run returns.  Polled with a bound of 10 s: far beyond 1 ms on a loaded
    // machine, and a failure (pages never given back) shows as the bound, not as a hang.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    long fell = b.rss - trim::rss_bytes();
    while (fell < must_fall && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      fell = b.rss - trim::rss_bytes();
    }
    EXPECT_GE(fell, must_fall) << "the resident set fell by " << fell << " bytes of the " << touched
                               << " the recursion touched on its native stack (ran on the "
                               << (b.thread == caller ? "caller" : "worker") << ")";
  }
  RecordProperty("ran_on", std::string(on_caller ? "caller " : "") + (on_worker ? "worker" : ""));
}

class NestingLimits : public testing::TestWithParam<weft::policy> {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    if (wt::sanitized) GTEST_SKIP() << "the sanitizers handle SIGSEGV themselves";
    if (wt::uses_fibers(GetParam())) GTEST_SKIP() << "no task stack under the fiber engine (test_fibers.cpp: its own limits)";
  }
};
INSTANTIATE_TEST_SUITE_P(All, NestingLimits, testing::ValuesIn(weft::implemented_policies()), wt::policy_name);

// Deeper than config.max_depth: the process stops with a message naming the limit and its setting.
TEST_P(NestingLimits, TooDeepForTheTaskStackNamesTheSetting) {
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = GetParam(), .max_depth = 2048});
                 p.run([] { return wt::join_chain(5000); });
               }()),
               "joins nested deeper than 2048 on one worker.*WEFT_MAX_DEPTH");
}

// The limit is max_depth itself, also where its frames do not fill whole pages: until stop 45's bug
// hunt the guard page came after the frames rounded up to a page (64 frames), so with max_depth =
// 1100 joins nested 1152 deep ran, and the 1153rd died saying "deeper than 1100".
TEST_P(NestingLimits, TheLimitIsExactWhereFramesDoNotFillAPage) {
  {
    weft::pool p(weft::config{.workers = 1, .policy = GetParam(), .max_depth = 1100});
    EXPECT_EQ(p.run([] { return wt::join_chain(1100); }), 550);
  }
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = GetParam(), .max_depth = 1100});
                 p.run([] { return wt::join_chain(1101); });
               }()),
               "joins nested deeper than 1100 on one worker.*WEFT_MAX_DEPTH");
}

// A native stack too small for the nesting: the message names config.stack_bytes.
TEST_P(NestingLimits, NativeStackOverflowNamesTheSetting) {
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = GetParam(), .stack_bytes = 256 << 10});
                 p.run([] { return wt::join_chain(200'000); });
               }()),
               "native stack \\(262144 bytes\\) overflowed.*WEFT_STACK_BYTES");
}

// A recursion inside a branch whose frames are larger than the old 64 KiB guard (a local buffer of
// 8,192 doubles is one): its first access below the stack's end stepped over the guard — a bare
// SIGSEGV where the address below was unmapped, or, where another mapping lay there (another
// fiber's stack in the same arena, another worker's stack or task stack), a write into it and the
// run going on (stop 45's bug hunt: 30 frames of 3 MB on a 1 MiB stack returned "ok").  The guard
// is now 1 MiB (stack_guard.hpp), so a frame under that size meets it and the message names the
// setting.  The frame is made with alloca and its lowest byte written first, as a compiler without
// -fstack-clash-protection does.
namespace large_frames {
std::size_t frame_bytes;  // not a constant, so that the compiler cannot see through alloca
WEFT_NOINLINE long recurse(long n) {
  auto* buf = static_cast<volatile char*>(alloca(frame_bytes));
  buf[0] = char(n);  // the lowest address: the first touch, a whole frame below the previous one
  buf[frame_bytes - 1] = char(n);
  if (n == 0) return buf[0];
  return recurse(n - 1) + buf[frame_bytes - 1];
}
}  // namespace large_frames

TEST_P(NestingLimits, LargeStackFramesMeetTheGuard) {
  large_frames::frame_bytes = 768 << 10;  // under the 1 MiB guard, far over the old 64 KiB one
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = GetParam(), .stack_bytes = 1 << 20});
                 p.run([] {
                   auto [a, b] = weft::join([] { return large_frames::recurse(40); }, [] { return 0L; });
                   return a + b;
                 });
               }()),
               "native stack \\(1048576 bytes\\) overflowed.*WEFT_STACK_BYTES");
}

// The same on a fiber's stack: there the stack below in the arena is another fiber's, its oldest
// frames at the top, where such a frame wrote.
TEST(NestingLimitsFibers, LargeStackFramesMeetTheGuard) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  if (wt::sanitized) GTEST_SKIP() << "the sanitizers handle SIGSEGV themselves";
  large_frames::frame_bytes = 768 << 10;
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = weft::policy::adf, .fiber_stack_bytes = 1 << 20});
                 p.run([] {
                   auto [a, b] = weft::join([] { return large_frames::recurse(40); }, [] { return 0L; });
                   return a + b;
                 });
               }()),
               "fiber's stack \\(1048576 bytes\\) overflowed.*WEFT_FIBER_STACK_BYTES");
}

// Under adf, dfd and fifo every join is a thread on a fiber stack of its own: no join uses a task
// stack, so config.max_depth limits nothing there (a chain of 5,000 joins ran with max_depth =
// 1024) and is refused, as every setting a policy has no use for (README, "Configuration"), naming
// the setting that does limit the nesting there; a pool's config() leaves it unset (0).  Before stop
// 45's bug hunt it was accepted and silently ignored.
TEST(NestingSettings, MaxDepthIsRefusedUnderTheFiberEngine) {
  wt::clean_env clean;
  for (weft::policy p : weft::implemented_policies()) {
    if (!wt::uses_fibers(p)) continue;
    SCOPED_TRACE(std::string(weft::to_string(p)));
    wt::expect_invalid([&] { weft::pool pl(weft::config{.workers = 1, .policy = p, .max_depth = 5000}); },
                       {"config.max_depth", "WEFT_FIBER_STACK_BYTES", "lazy-bf"}, "max_depth under the fiber engine");
    {
      wt::env_guard d("WEFT_MAX_DEPTH", "5000");
      wt::expect_invalid([&] { weft::pool pl(weft::config{.workers = 1, .policy = p}); }, {"WEFT_MAX_DEPTH"},
                         "WEFT_MAX_DEPTH under the fiber engine");
    }
    weft::pool pl(weft::config{.workers = 1, .policy = p});
    EXPECT_EQ(pl.config().max_depth, 0u);
    EXPECT_EQ(pl.run([] { return wt::join_chain(2000); }), 1000);
  }
}

// What make() throws: the type and what().
template <class F>
std::string thrown_by(F make) {
  try {
    make();
  } catch (const std::bad_alloc& e) {
    return std::string("bad_alloc: ") + e.what();
  } catch (const std::system_error& e) {
    return std::string("system_error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("other: ") + e.what();
  }
  return "no exception";
}

// Settings too large for the address space there is (RLIMIT_AS, a strict overcommit policy): the
// error names the setting that sized the reservation.  Before stop 45's bug hunt a task stack gave a
// bare "std::bad_alloc", a worker's native stack "weft: mapping a worker's native stack: Cannot
// allocate memory", and a serial run whose stack could not be mapped ran on the caller's own stack,
// the setting silently not applied (a deep run then crashed bare).  Not under the sanitizers, whose
// shadow memory and RLIMIT_AS do not mix.
TEST(NestingSettings, ReservationsTooLargeForTheAddressSpaceNameTheSetting) {
  wt::clean_env clean;
  if (wt::sanitized) GTEST_SKIP() << "the sanitizers' shadow memory and RLIMIT_AS do not mix";
  using weft::policy;
  constexpr std::size_t depth = std::size_t(1) << 28, stack = std::size_t(8) << 30;  // 16 GiB, 8 GiB
  for (policy p : {policy::lazy_bf, policy::serial}) {
    SCOPED_TRACE(std::string(weft::to_string(p)));
    auto run_one = [p](weft::config c) {
      c.workers = 1;
      c.policy = p;
      weft::pool pl(c);
      pl.run([] { return wt::join_chain(100); });
    };
    const std::string frames = wt::in_child_with_address_room(std::size_t(3) << 30, [&] { return thrown_by([&] { run_one({.max_depth = depth}); }); });
    EXPECT_NE(frames.find("bad_alloc: "), std::string::npos) << frames;
    EXPECT_NE(frames.find("max_depth"), std::string::npos) << frames;
    EXPECT_NE(frames.find("268435456"), std::string::npos) << frames;
    const std::string native = wt::in_child_with_address_room(std::size_t(3) << 30, [&] { return thrown_by([&] { run_one({.stack_bytes = stack}); }); });
    EXPECT_NE(native.find("system_error: "), std::string::npos) << native;
    EXPECT_NE(native.find("stack_bytes"), std::string::npos) << native;
    EXPECT_NE(native.find("8589934592"), std::string::npos) << native;
  }
}

// The settings: from the field, else the environment, else the default; bad values name the setting.
TEST(NestingSettings, DefaultsEnvironmentAndErrors) {
  wt::clean_env clean;
  {
    weft::pool p(weft::config{.workers = 1});
    EXPECT_EQ(p.config().max_depth, std::size_t(1) << 21);
    EXPECT_EQ(p.config().stack_bytes, std::size_t(1) << 30);
  }
  {
    wt::env_guard d("WEFT_MAX_DEPTH", "5000"), s("WEFT_STACK_BYTES", "8388608");
    weft::pool p(weft::config{.workers = 1});
    EXPECT_EQ(p.config().max_depth, 5000u);
    EXPECT_EQ(p.config().stack_bytes, 8388608u);
    weft::pool q(weft::config{.workers = 1, .max_depth = 3000});  // a field set wins
    EXPECT_EQ(q.config().max_depth, 3000u);
  }
  auto message = [](auto make) -> std::string {
    try {
      make();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no exception";
  };
  auto expect_error = [&](auto make, const std::string& part) {
    const std::string m = message(make);
    EXPECT_NE(m.find(part), std::string::npos) << m;
  };
  expect_error([] { weft::pool p(weft::config{.workers = 1, .max_depth = 10}); }, "config.max_depth = 10 is out of range");
  expect_error([] { weft::pool p(weft::config{.workers = 1, .stack_bytes = 1000}); },
               "config.stack_bytes = 1000 is out of range");
  {
    wt::env_guard d("WEFT_MAX_DEPTH", "lots");
    expect_error([] { weft::pool p(weft::config{.workers = 1}); }, "WEFT_MAX_DEPTH");
  }
  {
    wt::env_guard s("WEFT_STACK_BYTES", "1");
    expect_error([] { weft::pool p(weft::config{.workers = 1}); }, "WEFT_STACK_BYTES");
  }
}

}  // namespace
