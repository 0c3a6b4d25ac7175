// weft::spawn — the typed spawn (a join split in two: include/weft/spawn.hpp).  Results equal the
// serial elision under every policy and worker count, for every kind of closure and result; errors
// come out of sync, or of the destructor as documented; a spawned task is stolen and joined; misuse
// ends the process with a message; outside a pool the task runs at sync.
#include <array>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common.hpp"

namespace {

class Spawn : public wt::PoolTest {};
WT_INSTANTIATE(Spawn);

using wt::fib_spawn;

// Lace's order: a node's children spawned first to last and synced last to first, one handle per
// frame; the leaves add their index path into `sum`.
std::uint64_t tree_spawn(unsigned depth, unsigned width, unsigned child, std::uint64_t path) {
  if (depth == 0) return wt::mix(path);
  if (child == width - 1) return tree_spawn(depth - 1, width, 0, path * width + child);
  auto t = weft::spawn([=] { return tree_spawn(depth - 1, width, 0, path * width + child); });
  const std::uint64_t rest = tree_spawn(depth, width, child + 1, path);
  return rest + t.sync();
}
std::uint64_t tree_serial(unsigned depth, unsigned width, std::uint64_t path) {
  if (depth == 0) return wt::mix(path);
  std::uint64_t s = 0;
  for (unsigned c = 0; c < width; ++c) s += tree_serial(depth - 1, width, path * width + c);
  return s;
}

}  // namespace

TEST_P(Spawn, FibEqualsTheElisionAndCountsAJoinPerSpawn) {
  const unsigned n = wt::pick(24u, 18u);
  pool().reset_stats();
  EXPECT_EQ(pool().run([&] { return fib_spawn(n); }), wt::fib_serial(n));
  EXPECT_EQ(pool().stats().total.joins, wt::fib_joins(n));
}

TEST_P(Spawn, SeveralOpenHandlesSyncedYoungestFirst) {
  for (unsigned width : {2u, 3u, 7u}) {
    const unsigned depth = width == 7 ? 4 : wt::pick(10u, 7u) / (width == 3 ? 2 : 1);
    EXPECT_EQ(pool().run([&] { return tree_spawn(depth, width, 0, 1); }), tree_serial(depth, width, 1))
        << "depth " << depth << ", width " << width;
  }
}

// Closures that live in the frame (trivially copyable, small), ones the frame points at (large, or
// not trivially copyable, or move-only), and results of every kind, each spawned at every node of a
// recursion so that some are stolen at 2 and more workers.
TEST_P(Spawn, ClosuresAndResultsOfEveryKind) {
  struct node {
    static long run(int d) {
      if (d == 0) return 1;
      std::array<long, 12> big;  // 96 bytes: not in the frame
      std::iota(big.begin(), big.end(), long(d));
      auto t_big = weft::spawn([big, d] { return std::accumulate(big.begin(), big.end(), 0L) + run(d - 1); });
      const std::string label = "node-" + std::to_string(d);  // not trivially copyable
      auto t_str = weft::spawn([label] { return label + "!"; });
      auto owned = std::make_unique<int>(d);  // move-only
      auto t_own = weft::spawn([p = std::move(owned)] { return *p * 2; });
      long side = 0;
      auto t_void = weft::spawn([&side, d] { side = d * 3; });  // void: sync returns nothing
      static_assert(std::is_void_v<decltype(t_void.sync())>);
      const long mine = run(d - 1);
      t_void.sync();
      const int twice = t_own.sync();
      const std::string s = t_str.sync();
      const long b = t_big.sync();
      return mine + b + twice + side + long(s.size());
    }
    static long serial(int d) {
      if (d == 0) return 1;
      long big = 0;
      for (int i = 0; i < 12; ++i) big += d + i;
      const long label = long(("node-" + std::to_string(d) + "!").size());
      return serial(d - 1) + big + serial(d - 1) + 2 * d + 3 * d + label;
    }
  };
  const int d = wt::pick(12, 9);
  EXPECT_EQ(pool().run([&] { return node::run(d); }), node::serial(d));
}

// A task that returns a reference: sync returns a copy, by value, as a join returns its branches'
// results (a reference out of sync would refer to the handle's temporary).  Each node's string
// is read after the handles of the nodes below it have been synced and destroyed.
TEST_P(Spawn, ResultsAreValuesWhenTheTaskReturnsAReference) {
  struct node {
    static std::size_t run(const std::vector<std::string>& words, int d) {
      if (d == 0) return 0;
      auto t_const = weft::spawn([&words, d]() -> const std::string& { return words[std::size_t(d)]; });
      static_assert(std::is_same_v<decltype(t_const.sync()), std::string>);
      std::string mutable_word = words[std::size_t(d)];
      auto t_mut = weft::spawn([&mutable_word]() -> std::string& { return mutable_word; });
      static_assert(std::is_same_v<decltype(t_mut.sync()), std::string>);
      const std::size_t below = run(words, d - 1);
      std::string copy = t_mut.sync();
      mutable_word.clear();  // the copy does not see it
      const std::string word = t_const.sync();
      return below + word.size() + copy.size();
    }
  };
  const int d = wt::pick(14, 9);
  std::vector<std::string> words;
  std::size_t expected = 0;
  for (int i = 0; i <= d; ++i) {
    words.push_back(std::string(std::size_t(20 + i), char('a' + i % 26)));  // beyond any short-string buffer
    if (i > 0) expected += 2 * words.back().size();
  }
  EXPECT_EQ(pool().run([&] { return node::run(words, d); }), expected);
}

TEST_P(Spawn, ErrorsComeOutOfSync) {
  // The task's own exception, from sync; the handles after it still synced by their destructors.
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> ran{0};
    EXPECT_THROW(pool().run([&] {
                   auto a = weft::spawn([&] { ran.fetch_add(1); });
                   auto t = weft::spawn([]() -> int { throw std::runtime_error("task"); });
                   wt::fib(12);
                   (void)t.sync();
                 }),
                 std::runtime_error);
    // Dropped unrun: nobody to steal it (one worker), or run at sync only (the fiber engine).
    if (workers() == 1 || wt::uses_fibers(policy()))
      EXPECT_EQ(ran.load(), 0) << "a handle destroyed during unwinding drops its task";
  }
  // A handle left unsynced is synced by its destructor, which throws the task's exception.
  std::atomic<int> ran{0};
  try {
    pool().run([&] {
      auto t = weft::spawn([&] {
        ran.fetch_add(1);
        throw std::logic_error("unsynced");
      });
      wt::fib(10);
    });
    ADD_FAILURE() << "the destructor did not throw the task's exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "unsynced");
  }
  EXPECT_EQ(ran.load(), 1);
  // A second sync is an error; the pool stays usable.
  EXPECT_THROW(pool().run([] {
                 auto t = weft::spawn([] { return 1; });
                 (void)t.sync();
                 (void)t.sync();
               }),
               std::logic_error);
  EXPECT_EQ(pool().run([] { return fib_spawn(15); }), wt::fib_serial(15));
}

// A handle made inside a destructor that an exception calls is no part of that unwinding: left to
// its destructor, it is synced at the cleanup's end and its task runs, as the serial elision runs
// it (the spawn saves the count of exceptions in flight: hot_state::exceptions_in_flight; before,
// the task was dropped unrun and nothing said so).  An exception thrown inside the cleanup after a
// spawn still drops that handle's task, unless a thief took it.
struct cleanup_that_spawns {
  std::atomic<int>& ran;
  std::atomic<int>& dropped_ran;
  ~cleanup_that_spawns() {
    {
      auto t = weft::spawn([this] {
        ran.fetch_add(1);
        return wt::fib(8);
      });
      wt::fib(10);
    }  // ~spawned, unsynced, while "outer" unwinds: the task runs
    try {
      auto t = weft::spawn([this] { dropped_ran.fetch_add(1); });
      throw std::range_error("inside the cleanup");
    } catch (const std::range_error&) {
    }
  }
};

TEST_P(Spawn, AHandleMadeDuringUnwindingRunsItsTask) {
  constexpr int rounds = 20;
  std::atomic<int> ran{0}, dropped_ran{0};
  for (int round = 0; round < rounds; ++round)
    EXPECT_THROW(pool().run([&] {
                   cleanup_that_spawns c{ran, dropped_ran};
                   throw std::out_of_range("outer");
                 }),
                 std::out_of_range);
  EXPECT_EQ(ran.load(), rounds) << "a handle made during unwinding dropped its task";
  if (workers() == 1 || wt::uses_fibers(policy()))
    EXPECT_EQ(dropped_ran.load(), 0) << "a handle destroyed by an exception thrown since its spawn ran its task";
  else
    EXPECT_LE(dropped_ran.load(), rounds);
}

// The same on a thread that is no worker (every spawn there takes the slow path and runs its task
// at sync).
TEST(SpawnUnwinding, AHandleMadeDuringUnwindingOutsideAPoolRunsItsTask) {
  std::atomic<int> ran{0}, dropped_ran{0};
  try {
    cleanup_that_spawns c{ran, dropped_ran};
    throw std::out_of_range("outer");
  } catch (const std::out_of_range&) {
  }
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(dropped_ran.load(), 0);
}

// A scope's destructor runs its tasks while an exception unwinds; such a task is not unwinding
// itself: a handle it leaves to its destructor runs its task, a scope of its own keeps its error
// (each compares with the count of exceptions in flight when it was made).  With one worker nothing is stolen, so the scope's task surely runs
// in the destructor.
TEST(SpawnUnwinding, TasksRunDuringUnwindingAreNotUnwinding) {
  weft::pool pl(weft::config{.workers = 1});
  std::atomic<int> ran{0}, inner_error{0};
  EXPECT_THROW(pl.run([&] {
                 weft::scope s;
                 s.spawn([&] {
                   {
                     auto t = weft::spawn([&] { ran.fetch_add(1); });
                   }  // not unwinding here: ~spawned runs the task
                   try {
                     weft::scope inner;
                     inner.spawn([] { throw std::range_error("inner"); });
                   } catch (const std::range_error&) {
                     inner_error.fetch_add(1);  // ~scope threw it: not unwinding here either
                   }
                 });
                 throw std::out_of_range("outer");  // ~scope runs the task during this unwinding
               }),
               std::out_of_range);
  EXPECT_EQ(ran.load(), 1) << "a handle in a task run during unwinding dropped its task";
  EXPECT_EQ(inner_error.load(), 1) << "a scope in a task run during unwinding dropped its error";
  // And the rule itself: a handle destroyed by the unwinding drops its task.
  std::atomic<int> dropped_ran{0};
  EXPECT_THROW(pl.run([&] {
                 auto t = weft::spawn([&] { dropped_ran.fetch_add(1); });
                 throw std::out_of_range("outer");
               }),
               std::out_of_range);
  EXPECT_EQ(dropped_ran.load(), 0);
}

// A pool::run called from a destructor while an exception unwinds: its job is a task the runtime
// starts (run on a borrowed slot, by a worker, on the caller under the serial policy, or on a fiber),
// so it is not unwinding itself — a handle it leaves to its destructor runs its task and a scope of
// its own keeps its error, as when no exception is in flight.
TEST(SpawnUnwinding, RootJobsRunFromACleanupAreNotUnwinding) {
  for (weft::policy p : {weft::policy::serial, weft::policy::lazy_bf, weft::policy::ws, weft::policy::wool,
                         weft::policy::heartbeat, weft::policy::adf}) {
    weft::pool pl(weft::config{.workers = p == weft::policy::serial ? 1u : 2u, .policy = p});
    std::atomic<int> ran{0}, scope_error{0};
    auto job = [&] {
      {
        auto t = weft::spawn([&] { ran.fetch_add(1); });
      }  // ~spawned: syncs, unless this job took itself for unwinding
      try {
        weft::scope s;
        s.spawn([] { throw std::range_error("job"); });
      } catch (const std::range_error&) {
        scope_error.fetch_add(1);
      }
    };
    struct run_in_destructor {
      weft::pool& pool;
      decltype(job)& body;
      ~run_in_destructor() { pool.run(body); }
    };
    try {
      run_in_destructor d{pl, job};
      throw std::out_of_range("outer");
    } catch (const std::out_of_range&) {
    }
    EXPECT_EQ(ran.load(), 1) << weft::to_string(p) << ": the job's handle dropped its task";
    EXPECT_EQ(scope_error.load(), 1) << weft::to_string(p) << ": the job's scope dropped its error";
  }
}

// The code between spawn and sync throws: the exception leaves, the task is dropped unless a thief
// took it (then it is waited for), and the pool goes on.
TEST_P(Spawn, ContinuationThrows) {
  for (int round = 0; round < 20; ++round) {
    EXPECT_THROW(pool().run([] {
                   auto t = weft::spawn([] { return fib_spawn(12); });
                   if (wt::fib(14) > 0) throw std::out_of_range("continuation");
                   return t.sync();
                 }),
                 std::out_of_range);
  }
  EXPECT_EQ(pool().run([] { return fib_spawn(16); }), wt::fib_serial(16));
}

// With 2 workers a spawned task is made stealable and taken: the other worker runs it while the
// spawning task keeps joining (each join polls, so the lazy policies and heartbeat promote at one;
// ws promotes at the spawn itself).  Bounded: 20 s, far beyond any steal; a task that is never
// taken fails the test, saying so.
TEST(SpawnStolen, TakenByTheOtherWorkerAndJoined) {
  for (weft::policy p : wt::parallel_policies()) {
    if (wt::uses_fibers(p)) continue;  // no deque: there the child runs first, where it was forked
    weft::pool pl(weft::config{.workers = 2, .policy = p});
    std::atomic<bool> taken{false};
    const bool stolen = pl.run([&] {
      const auto spawner = std::this_thread::get_id();
      auto t = weft::spawn([&, spawner] {
        if (std::this_thread::get_id() != spawner) taken.store(true);
        return std::string(40, 'x');
      });
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!taken.load() && std::chrono::steady_clock::now() < deadline) wt::fib(8);
      const bool was_taken = taken.load();
      EXPECT_EQ(t.sync(), std::string(40, 'x'));
      return was_taken;
    });
    EXPECT_TRUE(stolen) << weft::to_string(p) << ": the spawned task was not stolen in 20 s";
    EXPECT_GE(pl.stats().total.steals, 1u) << weft::to_string(p);
  }
}

// Outside a pool the task runs at sync, on the calling thread, after the code before sync (the
// serial order of the join it is).
TEST(SpawnOutsideAPool, RunsAtSyncOnTheCaller) {
  std::vector<int> order;
  const auto caller = std::this_thread::get_id();
  auto t = weft::spawn([&] {
    order.push_back(2);
    return std::this_thread::get_id();
  });
  order.push_back(1);
  EXPECT_EQ(t.sync(), caller);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(fib_spawn(15), wt::fib_serial(15));
  auto bad = weft::spawn([]() -> int { throw std::invalid_argument("outside"); });
  EXPECT_THROW((void)bad.sync(), std::invalid_argument);
  // A second sync is an error here too (this thread's top is null: a synced handle must not look
  // like an open frame to sync's one compare).
  EXPECT_THROW((void)t.sync(), std::logic_error);
  EXPECT_THROW((void)bad.sync(), std::logic_error);
}

// Misuse ends the process with a message saying what was wrong (the frame cannot be joined safely).
TEST(SpawnMisuse, SyncOutOfOrderNamesTheRule) {
  EXPECT_DEATH(([] {
                 weft::pool p(weft::config{.workers = 1});
                 p.run([] {
                   auto older = weft::spawn([] { return 1; });
                   auto younger = weft::spawn([] { return 2; });
                   return older.sync() + younger.sync();
                 });
               }()),
               "weft::spawned handle was synced while it was not the youngest open task");
}

TEST(SpawnMisuse, SyncOnAnotherThreadNamesTheRule) {
  EXPECT_DEATH(([] {
                 weft::pool p(weft::config{.workers = 2});
                 p.run([] {
                   auto t = weft::spawn([] { return 1; });
                   int r = 0;
                   std::thread other([&] { r = t.sync(); });
                   other.join();
                   return r;
                 });
               }()),
               "not the youngest open task of this thread");
}

// Two handles synced oldest first: the misuse the frameless tests below make in each setting.
static int sync_older_first() {
  auto older = weft::spawn([] { return 1; });
  auto younger = weft::spawn([] { return 2; });
  return older.sync() + younger.sync();
}

// The same rule where the spawn made no frame (the task runs at sync): outside a pool, under the
// fiber engine, in the work/span mode — a sync out of order, or on another thread, ends the process
// with the same message as where a frame would be popped (a program tested off the pool or under
// adf behaves as under the deque policies).
TEST(SpawnMisuse, FramelessSyncOutOfOrderNamesTheRule) {
  const char* rule = "weft::spawned handle was synced while it was not the youngest open task";
  EXPECT_DEATH(std::exit(sync_older_first()), rule);  // outside a pool
  EXPECT_DEATH(([] {
                 weft::pool p(weft::config{.workers = 2, .policy = weft::policy::adf});
                 p.run(sync_older_first);
               }()),
               rule);
  EXPECT_DEATH(([] {
                 weft::pool p(weft::config{.workers = 1, .work_span = weft::work_span_unit::calls});
                 p.run(sync_older_first);
               }()),
               rule);
  // Destroyed unsynced out of order (not unwinding): the destructor's message.
  EXPECT_DEATH(([] {
                 using handle = weft::spawned<int (*)()>;
                 alignas(handle) unsigned char room[sizeof(handle)];
                 auto* older = ::new (room) handle(weft::spawn(+[] { return 1; }));  // made in place
                 auto younger = weft::spawn([] { return 2; });
                 older->~handle();
                 std::exit(younger.sync());
               }()),
               "weft::spawned handle was destroyed unsynced while it was not the youngest open task");
}

TEST(SpawnMisuse, FramelessSyncOnAnotherThreadNamesTheRule) {
  EXPECT_DEATH(([] {
                 auto t = weft::spawn([] { return 1; });
                 int r = 0;
                 std::thread other([&] { r = t.sync(); });
                 other.join();
                 std::exit(r);
               }()),
               "not the youngest open task of this thread");
}

// In order, frameless handles interleave with ones that made frames (a pool::run between spawn and
// sync on a thread that is no worker) and nest in any number.
TEST(SpawnOutsideAPool, HandlesNestAroundPoolRuns) {
  weft::pool pl(weft::config{.workers = 2});
  auto outer = weft::spawn([] { return wt::fib_serial(10); });
  const std::uint64_t inner = pl.run([] { return fib_spawn(14); });
  auto second = weft::spawn([] { return fib_spawn(12); });  // outside a pool: runs at sync
  EXPECT_EQ(second.sync(), wt::fib_serial(12));
  EXPECT_EQ(outer.sync() + inner, wt::fib_serial(10) + wt::fib_serial(14));
}
