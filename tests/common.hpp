// weft tests: shared helpers — sizes, the policy x workers parameters, serial references.
#pragma once

#include <gtest/gtest.h>
#include <pthread.h>
#include <weft/detail/env_settings.hpp>
#include <weft/detail/platform.hpp>
#include <weft/detail/policy_table.hpp>
#include <weft/weft.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifndef WEFT_TEST_SCALE
#define WEFT_TEST_SCALE 4
#endif

namespace wt {

// 4 = full sizes, 1 = reduced (sanitizers).  The environment variable WEFT_TEST_SCALE overrides.
inline int scale() {
  static const int s = [] {
    if (const char* e = std::getenv("WEFT_TEST_SCALE"); e != nullptr && *e != '\0') return std::atoi(e);
    return WEFT_TEST_SCALE;
  }();
  return s;
}
inline bool reduced() { return scale() < 4; }
template <class T>
T pick(T full, T small) {
  return reduced() ? small : full;
}

inline constexpr bool sanitized =
#ifdef WEFT_TEST_SANITIZER
    true;
#else
    false;
#endif

// ---------------------------------------------------------------------------------------------
// Parameters: every implemented policy x workers {1, 2, 4, 8} (serial: 1 only).  The worker counts
// are the CMake setting WEFT_TEST_WORKERS (scripts/test.sh: ThreadSanitizer 2, 8; AddressSanitizer
// 1, 8; the chaos build 8, 16, 32 on one core).

#ifndef WEFT_TEST_WORKERS_LIST
#define WEFT_TEST_WORKERS_LIST 1, 2, 4, 8
#endif

struct pool_param {
  weft::policy policy;
  unsigned workers;
};

inline std::ostream& operator<<(std::ostream& os, const pool_param& p) {
  return os << weft::to_string(p.policy) << "/" << p.workers;
}

// Tests select policies by their traits (weft/detail/policy_table.hpp), not by name: a policy
// added to the table is tested like the others of its kind.
inline const weft::detail::policy_traits& traits(weft::policy p) { return weft::detail::traits_of(p); }
// Does the policy run everything on the calling thread (serial)?
inline bool runs_on_caller(weft::policy p) { return traits(p).runs_on == weft::detail::mechanism::caller; }
// The implemented policies whose row satisfies `keep`.
template <class Keep>
std::vector<weft::policy> implemented_where(Keep keep) {
  std::vector<weft::policy> out;
  for (const auto& row : weft::detail::policy_table)
    if (row.implemented && keep(row)) out.push_back(row.value);
  return out;
}

// Does the policy run its joins as fiber-engine threads (adf, dfd, fifo)?
inline bool uses_fibers(weft::policy p) { return traits(p).runs_on == weft::detail::mechanism::fibers; }
// fifo runs breadth-first (NAR §5.3's baseline): a program holds O(its joins) threads live under it,
// each with a fiber stack, up to config::fiber_fork_limit (4,096).  Before stop 55's fork limit the
// suites' programs ran it out of stacks (vm.max_map_count) and the suites left it out; now they run
// it, and tests that size their programs or count steals ask this.
inline bool breadth_first(weft::policy p) { return p == weft::policy::fifo; }
// The policies the general suites run.  Not the fiber engine's under the sanitizers: there a fiber
// switch and a fiber's creation cost ThreadSanitizer and AddressSanitizer a new shadow stack each,
// and a suite's loops (one thread per iteration) ran 40 s a test; test_fibers.cpp runs them there.
inline std::vector<weft::policy> suite_policies() {
  return implemented_where([](const weft::detail::policy_traits& row) {
    return !(sanitized && uses_fibers(row.value));
  });
}

inline std::vector<pool_param> all_pool_params() {
  std::vector<pool_param> out;
  for (weft::policy p : suite_policies()) {
    if (runs_on_caller(p)) {
      out.push_back({p, 1});
      continue;
    }
    for (unsigned w : {WEFT_TEST_WORKERS_LIST}) out.push_back({p, w});
  }
  return out;
}

// Policies with workers (not serial), one value each: for tests that choose their own worker count.
inline std::vector<weft::policy> parallel_policies() {
  return implemented_where([](const weft::detail::policy_traits& row) {
    return !runs_on_caller(row.value) && !(sanitized && uses_fibers(row.value));
  });
}

inline std::string ident(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

inline std::string param_name(const testing::TestParamInfo<pool_param>& info) {
  return ident(weft::to_string(info.param.policy)) + "_" + std::to_string(info.param.workers);
}
inline std::string policy_name(const testing::TestParamInfo<weft::policy>& info) {
  return ident(weft::to_string(info.param));
}

// A fixture owning a pool of the parameter's policy and size.
class PoolTest : public testing::TestWithParam<pool_param> {
 protected:
  void SetUp() override {
    pool_ = std::make_unique<weft::pool>(weft::config{.workers = GetParam().workers, .policy = GetParam().policy});
    ASSERT_EQ(pool_->size(), GetParam().workers);
    ASSERT_EQ(pool_->policy(), GetParam().policy);
  }
  void TearDown() override { pool_.reset(); }
  weft::pool& pool() { return *pool_; }
  weft::policy policy() const { return GetParam().policy; }
  unsigned workers() const { return GetParam().workers; }
  // Can a branch run out of the serial elision's order — on another worker than its owner's, or,
  // under fifo, even on one worker: a join queues its first branch as a thread and goes on with its
  // second (NAR §5.3's breadth-first order)?
  bool can_steal() const {
    return !runs_on_caller(GetParam().policy) && (GetParam().workers > 1 || breadth_first(GetParam().policy));
  }

  std::unique_ptr<weft::pool> pool_;
};

#define WT_INSTANTIATE(suite) \
  INSTANTIATE_TEST_SUITE_P(All, suite, testing::ValuesIn(wt::all_pool_params()), wt::param_name)

// Runs make(), expects std::invalid_argument whose what() contains every one of `needles`.
template <class F>
void expect_invalid(F&& make, std::initializer_list<const char*> needles, const std::string& what_for) {
  try {
    make();
    ADD_FAILURE() << what_for << ": no exception";
  } catch (const std::invalid_argument& e) {
    for (const char* n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
          << what_for << ": message does not name \"" << n << "\": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what_for << ": wrong exception type: " << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Serial references and parallel kernels

inline std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

inline std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

// fib written with scopes: a scope per call, spawning both calls.
inline std::uint64_t fib_scope(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0, b = 0;
  weft::scope s;
  s.spawn([&] { a = fib_scope(n - 1); });
  s.spawn([&] { b = fib_scope(n - 2); });
  s.sync();
  return a + b;
}

// fib written as README "Cheap joins" recommends: arguments captured by value, the first branch
// declared noexcept (the join then has no exception cleanup around it: detail::cannot_throw).
inline std::uint64_t fib_noexcept(unsigned n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([n]() noexcept { return fib_noexcept(n - 1); }, [n] { return fib_noexcept(n - 2); });
  return a + b;
}

// fib as fib() is, its second branch spawned (weft::spawn) and its first run before the sync: the
// same joins, the same work and span.
inline std::uint64_t fib_spawn(unsigned n) {
  if (n < 2) return n;
  auto t = weft::spawn([n] { return fib_spawn(n - 2); });
  const std::uint64_t a = fib_spawn(n - 1);
  return a + t.sync();
}

// Joins made by fib(n): one per inner node of its call tree.
inline std::uint64_t fib_joins(unsigned n) { return n < 2 ? 0 : 1 + fib_joins(n - 1) + fib_joins(n - 2); }
// Joins of fib(n) whose frame lies in slots 0..d-1 of the task stack, on one worker.  A join's frame
// is popped before its second branch runs inline, so the first branch's joins go one slot up and
// the second branch's reuse the slot: the slot is the number of enclosing joins in whose *first*
// branch the join runs, not its nesting depth.
inline std::uint64_t fib_joins_in_slots(unsigned n, unsigned slot, unsigned d) {
  if (n < 2) return 0;
  return (slot < d ? 1 : 0) + fib_joins_in_slots(n - 1, slot + 1, d) + fib_joins_in_slots(n - 2, slot, d);
}

// splitmix64 finalizer: the hash used by generated programs and checksums.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct rng {
  std::uint64_t s;
  explicit rng(std::uint64_t seed) : s(seed * 0x2545F4914F6CDD1Dull + 1) {}
  std::uint64_t next() { return s = mix(s); }
  std::uint32_t below(std::uint32_t n) { return n == 0 ? 0 : std::uint32_t(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
};

// The CPUs this process may run on, as the spare heartbeat delivery counts its cores.
inline std::size_t usable_cpus() { return weft::detail::usable_cpus(); }

// Busy-wait politely until pred() or the timeout; returns pred().
template <class P>
bool wait_until(P pred, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return pred();
    std::this_thread::yield();
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Making a scheduling event certain instead of hoping for it.
//
// The bound on every wait for a steal or a beat.  Why it is safe: once a branch is stealable the
// runtime wakes a sleeping worker (notify_work), which needs only to wake and take one item, and a
// heartbeat policy makes it stealable at the first beat (<= 1 ms period) after the waiter starts
// polling: a few milliseconds even on a loaded 2-core machine under a sanitizer.  30 s is four orders
// of magnitude more, and below ctest's per-test timeout (120 s, 600 s sanitized), so a runtime that
// never steals fails with a message instead of a timeout.
inline constexpr std::chrono::seconds event_bound{30};

// The rounds of a handshake stress test (the deque and Wool-window races): `full` rounds, unless
// more than `budget` of wall time has passed once `floor` of them are done.  Each such round waits
// for a thread of its own to be scheduled, which costs a few ns on an idle machine and a scheduler
// slice (ms) on a loaded one: DequeRace.LastItemGoesToExactlyOneTaker's 5 x 50,000 rounds take 5 s
// alone, 66 s beside two busy loops, and ran past ctest's 120 s under heavier load (stop 50's and
// stop 57's rehearsals).  The floor keeps what every run checks (all its assertions, over at least
// `floor` rounds); only how far past it a loaded run goes depends on the machine.
struct round_budget {
  std::size_t full, floor;
  std::chrono::steady_clock::time_point until;
  round_budget(std::size_t full_rounds, std::size_t floor_rounds, std::chrono::milliseconds budget)
      : full(full_rounds), floor(floor_rounds), until(std::chrono::steady_clock::now() + budget) {}
  // Whether round `r` (0-based) runs; the clock is read once every 64 rounds.
  bool more(std::size_t r) const {
    if (r >= full) return false;
    if (r < floor || r % 64 != 0) return true;
    return std::chrono::steady_clock::now() < until;
  }
};

// wait_until, polling meanwhile (tiny joins: the poll points where lazy and heartbeat policies
// promote, LS §3, HB §2): a wait inside a join's branch for its other branch to run elsewhere.  A
// wait that only yields polls nothing, and under heartbeat the other branch is then never promoted.
template <class P>
bool poll_until_true(P pred, std::chrono::nanoseconds bound = event_bound) {
  return wait_until(
      [&] {
        weft::join([] {}, [] {});
        return pred();
      },
      std::chrono::duration_cast<std::chrono::milliseconds>(bound));
}

// Called in a join's first branch: polls until `happened` (set by the second branch once it runs
// on another worker), at most event_bound.  Returns whether it happened.
template <class Flag>
bool poll_until(const Flag& happened, std::chrono::nanoseconds bound = event_bound) {
  return poll_until_true([&] { return happened.load() != 0; }, bound);
}

// Tells whether a join's second branch ran on another thread than its first branch, while the
// first was still running: the first branch calls first_entered() then wait_for_steal(); the
// second calls second_entered().
// Plain recursion with a frame of 256 bytes or more per level (the volatile keeps it from being
// folded into a loop; not joins, whose branches get stacks of their own under the fiber engine):
// deep enough, it overflows the stack it runs on.
inline long deep_recursion(long n) {
  volatile char pad[256];
  pad[0] = char(n);
  return n == 0 ? 0 : deep_recursion(n - 1) + pad[0];
}

// The calling thread's id, read anew at every call.  glibc declares pthread_self (which
// std::this_thread::get_id calls) `const`, so the compiler may reuse one call's result for a later
// one in the same function — across a join in between, after which a fiber-engine task may run on
// another thread.  noipa: neither inlined nor analysed into a const function itself.
__attribute__((noipa)) inline std::thread::id thread_now() { return std::this_thread::get_id(); }

struct steal_probe {
  std::atomic<int> stolen{0};
  std::atomic<int> first_waiting{0};
  std::atomic<std::thread::id> first_thread{};

  void first_entered() { first_thread.store(std::this_thread::get_id()); }
  // A second branch that runs on the first branch's thread ran after it (serial order): no steal.
  // Under the fiber engine the first branch itself moves between workers while it polls (each
  // poll is a fork that preempts it), so the second may start on the thread the first started on:
  // starting while the first still waits for it is the steal there.
  void second_entered() {
    if (first_thread.load() != std::this_thread::get_id() || first_waiting.load() != 0) stolen.store(1);
  }
  bool wait_for_steal() {
    first_waiting.store(1);
    const bool happened = poll_until(stolen);
    first_waiting.store(0);
    return happened;
  }
};

// A join whose second branch certainly runs on another worker than its first (needs a pool with
// 2+ workers): the first branch polls until the second has started elsewhere, then runs first().
// `stolen` says whether that happened within the bound.
template <class F, class G>
auto join_stolen(F&& first, G&& second, bool& stolen) {
  steal_probe probe;
  return weft::join(
      [&] {
        probe.first_entered();
        stolen = probe.wait_for_steal();
        return first();
      },
      [&] {
        probe.second_entered();
        return second();
      });
}

// Sets (or, with nullptr, unsets) an environment variable for the guard's lifetime.
class env_guard {
 public:
  env_guard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~env_guard() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  env_guard(const env_guard&) = delete;
  env_guard& operator=(const env_guard&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Clears every variable the runtime reads (weft/detail/env_settings.hpp) for the guard's lifetime
// (tests that read the environment).
struct clean_env {
  clean_env() {
    for (std::string_view name : weft::detail::env_settings)
      guards_.push_back(std::make_unique<env_guard>(std::string(name).c_str(), nullptr));
  }

 private:
  std::vector<std::unique_ptr<env_guard>> guards_;
};

// A chain of n nested joins: every level's join runs the next level in its first branch, so the
// task stack holds one frame per level (and the native stack one C++ frame or two).  Returns the
// number of odd levels.
inline long join_chain(long n) {
  if (n == 0) return 0;
  auto [a, b] = weft::join([&] { return join_chain(n - 1); }, [&] { return n & 1; });
  return a + b;
}

// Runs f on a new thread whose native stack is `bytes` (the test's choice, not weft's), and waits.
template <class F>
void on_thread_with_stack(std::size_t bytes, F f) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t t;
  auto thunk = [](void* p) -> void* {
    (*static_cast<F*>(p))();
    return nullptr;
  };
  ASSERT_EQ(::pthread_create(&t, &attr, thunk, &f), 0);
  pthread_attr_destroy(&attr);
  ::pthread_join(t, nullptr);
}

}  // namespace wt
