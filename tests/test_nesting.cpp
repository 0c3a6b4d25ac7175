// weft tests: nesting without a cliff (SPEC §2: joins nest at least 10^6 deep on a worker and on a
// thread calling run; past a limit, a clear error naming the limit and the setting that raises it).
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

// A native stack too small for the nesting: the message names config.stack_bytes.
TEST_P(NestingLimits, NativeStackOverflowNamesTheSetting) {
  EXPECT_DEATH(([&] {
                 weft::pool p(weft::config{.workers = 1, .policy = GetParam(), .stack_bytes = 256 << 10});
                 p.run([] { return wt::join_chain(200'000); });
               }()),
               "native stack \\(262144 bytes\\) overflowed.*WEFT_STACK_BYTES");
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
