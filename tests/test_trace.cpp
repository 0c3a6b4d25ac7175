// Tests of the timeline trace (SPEC §6, issue 12): the file parses as trace-event JSON, its lanes
// hold the WOOL Fig. 6 activities where they must be, its instants agree with the pool's counters,
// per-lane time never goes backwards, and a full buffer drops what it says it dropped.
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "address_limit.hpp"
#include "common.hpp"
#include "trace.hpp"  // src/: files written from hand-made buffers (TraceFile)

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

struct temp_path {
  fs::path path;
  explicit temp_path(const char* name)
      : path(fs::temp_directory_path() / ("weft_trace_" + std::to_string(::getpid()) + "_" + name + ".json")) {}
  ~temp_path() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

json load(const fs::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in.good()) << "no trace file at " << p;
  return json::parse(in);  // throws (failing the test) when the file is not JSON
}

// Events of one lane (tid) with the given phase, in file order.
std::vector<json> events(const json& t, int tid, const char* ph, const char* name = nullptr) {
  std::vector<json> out;
  for (const json& e : t["traceEvents"])
    if (e["ph"] == ph && e.value("tid", -1) == tid && (name == nullptr || e["name"] == name)) out.push_back(e);
  return out;
}

std::size_t count(const json& t, int tid, const char* name) { return events(t, tid, "i", name).size(); }

std::set<std::string> activities(const json& t, int tid) {
  std::set<std::string> out;
  for (const json& e : events(t, tid, "X")) out.insert(e["name"].get<std::string>());
  return out;
}

// A run with joins on every worker, then the pool is destroyed (which writes the file).
struct traced_run {
  weft::stats stats;
  json trace;
};

traced_run run_fib(weft::policy p, unsigned workers, unsigned n, const fs::path& path, std::size_t cap = 0) {
  traced_run r;
  {
    weft::pool pl(weft::config{.workers = workers, .policy = p, .trace_path = path.string(), .trace_events = cap});
    EXPECT_EQ(pl.run([&] { return wt::fib(n); }), wt::fib_serial(n));
    r.stats = pl.stats();
  }
  r.trace = load(path);
  return r;
}

// Every lane: activities in time order, none overlapping the next; instants of one name in order.
void expect_monotone(const json& t, int lanes) {
  for (int tid = 0; tid < lanes; ++tid) {
    double end = 0;
    for (const json& e : events(t, tid, "X")) {
      const double ts = e["ts"], dur = e["dur"];
      EXPECT_GE(ts + 1e-3, end) << "lane " << tid << ": an activity starts before the previous one ends";
      EXPECT_GE(dur, 0.0);
      end = ts + dur;
    }
    std::map<std::string, double> last;
    for (const json& e : events(t, tid, "i")) {
      const std::string name = e["name"];
      const double ts = e["ts"];
      EXPECT_GE(ts, last[name]) << "lane " << tid << ": " << name << " instants go backwards";
      last[name] = ts;
    }
  }
}

}  // namespace

// Each worker's lane starts with startup and ends with shutdown; the instants are the counters'
// events one for one (nothing is dropped at this size).
// One test per policy, so that a failure names its policy (each reads a whole trace back: ~5 s a
// policy under ThreadSanitizer; ctest runs them in one process, cmake/WeftTestGroups.cmake).
class TraceLanes : public testing::TestWithParam<weft::policy> {};
INSTANTIATE_TEST_SUITE_P(All, TraceLanes,
                         testing::ValuesIn(wt::implemented_where([](const auto& row) {
                           return row.runs_on != weft::detail::mechanism::caller;
                         })),
                         wt::policy_name);

TEST_P(TraceLanes, AgreeWithCounters) {
  wt::clean_env clean;
  const weft::policy p = GetParam();
  temp_path tp("counters");
  // fib(16) under a sanitizer: the fiber engine's fib(20) wrote ~20,000 promotions, and reading
  // them back took most of ThreadSanitizer's 35 s for this test (stop 58's rehearsal).
  const traced_run r = run_fib(p, 2, wt::sanitized ? 16 : 20, tp.path);
  const json& t = r.trace;
  EXPECT_EQ(t["otherData"]["dropped_events"], 0);
  EXPECT_EQ(t["otherData"]["policy"], std::string(weft::to_string(p)));
  std::uint64_t work_lanes = 0;
  for (int w = 0; w < 2; ++w) {
    const weft::counters& c = r.stats.workers[std::size_t(w)];
    const std::set<std::string> acts = activities(t, w);
    EXPECT_TRUE(acts.count("startup")) << "worker " << w;
    EXPECT_TRUE(acts.count("shutdown")) << "worker " << w;
    EXPECT_TRUE(acts.count("stealing")) << "worker " << w;  // every worker looks for work first
    work_lanes += acts.count("work");
    const auto x = events(t, w, "X");
    EXPECT_EQ(x.front()["name"], "startup");
    EXPECT_EQ(x.back()["name"], "shutdown");
    EXPECT_EQ(count(t, w, "promotion"), c.promotions) << "worker " << w;
    EXPECT_EQ(count(t, w, "steal"), c.steals) << "worker " << w;
    EXPECT_EQ(count(t, w, "heartbeat"), c.heartbeats_delivered) << "worker " << w;
    std::size_t leapfrogs = 0;
    for (const json& e : events(t, w, "i", "steal")) {
      leapfrogs += e["args"]["leapfrog"].get<bool>();
      EXPECT_EQ(e["args"]["thief"], w);
      // A worker never steals from itself (before stop 40 the fiber engine wrote the thief as the
      // victim); adf and fifo take threads from a shared structure: no victim worker.
      if (p == weft::policy::adf || p == weft::policy::fifo) EXPECT_TRUE(e["args"]["victim"].is_null());
      else if (!e["args"]["victim"].is_null()) EXPECT_NE(e["args"]["victim"], w);
      else EXPECT_EQ(p, weft::policy::dfd) << "only dfd's unowned deques have no victim";
    }
    EXPECT_EQ(leapfrogs, c.leapfrogs) << "worker " << w;
    // Work taken by leapfrogging shows as leapfrog-work, inside a leapfrogging interval.
    EXPECT_EQ(acts.count("leapfrog-work") != 0, c.leapfrogs != 0) << "worker " << w;
    if (c.leapfrogs != 0) EXPECT_TRUE(acts.count("leapfrogging"));
  }
  EXPECT_GE(work_lanes, 1u);  // the root job ran on some worker
  // Each steal from a worker is mirrored on its victim's lane.
  std::size_t steals = 0, stolen = 0;
  for (int w = 0; w < 2; ++w) {
    for (const json& e : events(t, w, "i", "steal")) steals += !e["args"]["victim"].is_null();
    stolen += count(t, w, "stolen-from");
  }
  EXPECT_EQ(steals, stolen);
  expect_monotone(t, 2);
}

// A worker of the fiber engine that waits for another pool's job serves its own pool meanwhile
// (runtime::wait_serving), in a loop that starts with no deque of its own: under dfd its own deque is
// set aside, still in R', and what it takes from there is its own forked work, no theft.  Found by
// stop 49's seeing-inside hunt: it counted a steal on a one-worker pool and wrote a steal whose
// victim was its thief (and a stolen-from on the thief's own lane).  The wait is bounded: the
// waiting worker runs the other branch at once, or the test fails after 10 s.
TEST(Trace, AWorkerServingItsPoolWhileWaitingStealsNotFromItself) {
  wt::clean_env clean;
  for (weft::policy p : wt::implemented_where([](const auto& row) { return row.runs_on == weft::detail::mechanism::fibers; })) {
    SCOPED_TRACE(std::string(weft::to_string(p)));
    temp_path tp("serving");
    weft::stats s;
    bool served = false;
    {
      weft::pool a(weft::config{.workers = 1, .policy = p, .trace_path = tp.path.string()});
      weft::pool b(weft::config{.workers = 1, .policy = weft::policy::ws});
      std::atomic<bool> other_ran{false};
      a.run([&] {
        weft::join(
            [&] {
              b.run([&] {
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                while (!other_ran.load() && std::chrono::steady_clock::now() < until)
                  std::this_thread::sleep_for(std::chrono::milliseconds(1));
              });
            },
            [&] { other_ran = true; });
      });
      served = other_ran.load();
      s = a.stats();
    }
    EXPECT_TRUE(served);
    const json t = load(tp.path);
    for (const json& e : events(t, 0, "i", "steal")) EXPECT_NE(e["args"]["victim"], 0) << "worker 0 stole from itself";
    EXPECT_EQ(count(t, 0, "stolen-from"), 0u);
    EXPECT_EQ(count(t, 0, "steal"), s.workers[0].steals);
    // Under adf and fifo the thread comes from the shared structure (a steal with no victim, README);
    // dfd's came from the worker's own deque.
    if (p == weft::policy::dfd) EXPECT_EQ(s.total.steals, 0u) << "a steal on a one-worker pool";
  }
}


// The heartbeat policy: each beat sent is a beat-sent instant in its sender's lane — the timer's
// lane under thread delivery; under spare delivery (the default) the timer's or that of the idle
// worker that sent it — and each worker was requested exactly as many beats as were sent; delivered
// beats never exceed requested ones.
TEST(Trace, HeartbeatsRequestedAndDelivered) {
  wt::clean_env clean;
  if (!weft::detail::traits_of(weft::policy::heartbeat).implemented) GTEST_SKIP();
  for (weft::heartbeat_delivery d : {weft::heartbeat_delivery::spare, weft::heartbeat_delivery::thread}) {
    SCOPED_TRACE(d == weft::heartbeat_delivery::spare ? "spare" : "thread");
    temp_path tp("beats");
    weft::stats s;
    {
      weft::pool pl(weft::config{.workers = 2, .policy = weft::policy::heartbeat, .heartbeat = std::chrono::microseconds(50),
                                 .heartbeat_delivery = d, .trace_path = tp.path.string()});
      // Joins for at least 20 ms of wall time: 400 periods, so beats are sent even on a loaded
      // machine (by the timer while a core is spare, else by the worker not running the job).
      // Twice, with reset_stats between: the file covers the pool's life, its requested counts
      // too (found by stop 41's bug hunt: they were the counters since the reset).
      for (int round = 0; round < 2; ++round) {
        if (round == 1) pl.reset_stats();
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
        pl.run([&] {
          while (std::chrono::steady_clock::now() < until) EXPECT_EQ(wt::fib(16), wt::fib_serial(16));
        });
      }
      s = pl.stats();
    }
    const json t = load(tp.path);
    const int timer = 2;  // lanes: worker 0, worker 1, the timer
    const std::size_t by_timer = count(t, timer, "beat-sent");
    const std::size_t by_workers = count(t, 0, "beat-sent") + count(t, 1, "beat-sent");
    if (d == weft::heartbeat_delivery::thread) EXPECT_EQ(by_workers, 0u);
    EXPECT_GT(s.total.heartbeats_requested, 0u);
    for (int w = 0; w < 2; ++w) {
      const weft::counters& c = s.workers[std::size_t(w)];
      // The file and its otherData are written when the pool is destroyed; the stats were read
      // before that, and beats may be sent until the pool stops (the timer sleeps only when every
      // worker does; a worker sends while it looks for work): the snapshot is at most the final count.
      const std::uint64_t requested_at_end = t["otherData"]["heartbeats_requested"][std::size_t(w)];
      EXPECT_EQ(requested_at_end, by_timer + by_workers);
      EXPECT_LE(c.heartbeats_requested, requested_at_end);
      EXPECT_LE(c.heartbeats_delivered, c.heartbeats_requested);
      EXPECT_GE(count(t, w, "heartbeat"), c.heartbeats_delivered) << "the file's beats cover both runs, the stats the second";
    }
    expect_monotone(t, 3);
  }
}

// Signal delivery (beat_signal.cpp): no timer thread, so no timer lane and no beat-sent instants;
// each worker's `heartbeat` instants are still its delivered beats, and the file's requested
// counts are at least the stats' snapshot (timers keep running until the workers sleep or stop).
TEST(Trace, HeartbeatsBySignalHaveNoTimerLane) {
  wt::clean_env clean;
  if (!weft::detail::traits_of(weft::policy::heartbeat).implemented) GTEST_SKIP();
  temp_path tp("signal-beats");
  weft::stats s;
  {
    weft::pool pl(weft::config{.workers = 2, .policy = weft::policy::heartbeat, .heartbeat = std::chrono::microseconds(50),
                               .heartbeat_delivery = weft::heartbeat_delivery::signal, .trace_path = tp.path.string()});
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
    pl.run([&] {
      while (std::chrono::steady_clock::now() < until) EXPECT_EQ(wt::fib(16), wt::fib_serial(16));
    });
    s = pl.stats();
  }
  const json t = load(tp.path);
  for (const json& e : t["traceEvents"]) EXPECT_NE(e.value("tid", -1), 2) << "a third lane: " << e.dump();
  for (int w = 0; w < 2; ++w) {
    const weft::counters& c = s.workers[std::size_t(w)];
    const std::uint64_t requested_at_end = t["otherData"]["heartbeats_requested"][std::size_t(w)];
    EXPECT_LE(c.heartbeats_requested, requested_at_end);
    EXPECT_LE(c.heartbeats_delivered, c.heartbeats_requested);
    EXPECT_EQ(count(t, w, "heartbeat"), c.heartbeats_delivered);
  }
  expect_monotone(t, 2);
}

// One worker under ws promotes every join: fib(18) makes 4180 promotion instants, more than a
// buffer of 1024 events holds.  Instants stop at 7/8 of it and are counted as dropped, and the
// activities keep being recorded.
TEST(Trace, DroppedInstantsAreCounted) {
  wt::clean_env clean;
  temp_path tp("dropped");
  const traced_run r = run_fib(weft::policy::ws, 1, 18, tp.path, 1024);
  const json& t = r.trace;
  const std::uint64_t promotions = r.stats.total.promotions;
  ASSERT_EQ(promotions, wt::fib_joins(18));
  const std::uint64_t recorded = count(t, 0, "promotion");
  const std::uint64_t dropped = t["otherData"]["dropped_events"];
  EXPECT_EQ(recorded + dropped, promotions);
  EXPECT_EQ(t["otherData"]["dropped_per_lane"][0], dropped);
  EXPECT_LE(recorded, 1024u - 1024u / 8);
  EXPECT_EQ(count(t, 0, "trace-full"), 0u);  // only instants were dropped
  EXPECT_EQ(events(t, 0, "X").back()["name"], "shutdown");
  expect_monotone(t, 1);
}

// A buffer that filled up is a limit hit: writing the file says so on stderr, with the number of
// events missing and the setting to raise (before stop 43's bug hunt only the file's otherData
// told); a trace that dropped nothing says nothing.
TEST(Trace, DroppedEventsNameTheLimit) {
  wt::clean_env clean;
  temp_path tp("dropped-note");
  testing::internal::CaptureStderr();
  const traced_run r = run_fib(weft::policy::ws, 1, 18, tp.path, 1024);
  std::string err = testing::internal::GetCapturedStderr();
  const std::uint64_t dropped = r.trace["otherData"]["dropped_events"];
  ASSERT_GT(dropped, 0u);
  EXPECT_NE(err.find("lacks " + std::to_string(dropped) + " event"), std::string::npos) << err;
  EXPECT_NE(err.find("config.trace_events = 1024"), std::string::npos) << err;
  EXPECT_NE(err.find("WEFT_TRACE_EVENTS"), std::string::npos) << err;
  testing::internal::CaptureStderr();
  const traced_run small = run_fib(weft::policy::ws, 1, 10, tp.path);  // 88 promotions: nothing dropped
  err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(small.trace["otherData"]["dropped_events"], 0);
  EXPECT_EQ(err.find("weft: the trace"), std::string::npos) << err;
}

// The promotions not recorded are counted across pool::reset_stats too (the bench resets the
// counters before its timed run).
TEST(Trace, DroppedCountSurvivesResetStats) {
  wt::clean_env clean;
  temp_path tp("reset");
  {
    weft::pool pl(weft::config{.workers = 1, .policy = weft::policy::ws, .trace_path = tp.path.string(),
                               .trace_events = 1024});
    for (int rep = 0; rep < 2; ++rep) {
      pl.reset_stats();
      EXPECT_EQ(pl.run([] { return wt::fib(18); }), wt::fib_serial(18));
    }
  }
  const json t = load(tp.path);
  const std::uint64_t dropped = t["otherData"]["dropped_events"];
  EXPECT_EQ(count(t, 0, "promotion") + dropped, 2 * wt::fib_joins(18));
}

// A buffer of 16 events fills up: the lane ends with a trace-full instant, holds at most 16 events,
// and the file says events were dropped.
TEST(Trace, FullBufferEndsTheLane) {
  wt::clean_env clean;
  temp_path tp("full");
  const traced_run r = run_fib(weft::policy::ws, 1, 12, tp.path, 16);
  const json& t = r.trace;
  EXPECT_EQ(count(t, 0, "trace-full"), 1u);
  std::size_t recorded = 0;
  for (const json& e : t["traceEvents"])
    if (e["ph"] != "M" && e["tid"] == 0) ++recorded;
  EXPECT_LE(recorded, 16u);
  EXPECT_GE(t["otherData"]["dropped_events"].get<std::uint64_t>(), r.stats.total.promotions - 14);
  expect_monotone(t, 1);
}

// write_trace() while the pool runs (README: "at any time"): the snapshot is a valid file, and the
// counters it reads are no data race with the workers that count (the ThreadSanitizer stage runs
// this; before stop 40 it reported the ledger's promotion count, read by write_trace and written by
// a promoting worker, under adf and lazy-bf alike).
TEST(Trace, WriteTraceDuringARun) {
  wt::clean_env clean;
  for (weft::policy p : {weft::policy::lazy_bf, weft::policy::ws, weft::policy::adf}) {
    temp_path tp("snapshot");
    // Small buffers: a snapshot writes every lane's events (under ThreadSanitizer ~1 s a snapshot
    // of the default 2^20-event buffers).
    weft::pool pl(weft::config{.workers = 2, .policy = p, .trace_path = tp.path.string(), .trace_events = 4096});
    std::atomic<bool> done{false};
    std::atomic<int> written{0};
    std::thread writer([&] {
      do {
        pl.write_trace();
        written.fetch_add(1);
      } while (!done.load());
    });
    // The runs go on until the writer has written a few snapshots during them (bounded: each run is
    // a few ms, and the writer needs no worker to make progress).  fib(11) under a sanitizer: adf
    // makes a thread per join, about a millisecond each to ThreadSanitizer (16 s for fib(16)).
    const unsigned n = wt::pick(16u, 11u);
    for (int i = 0; i < 10 || (written.load() < 3 && i < 2000); ++i)
      EXPECT_EQ(pl.run([&] { return wt::fib(n); }), wt::fib_serial(n));
    done = true;
    writer.join();
    EXPECT_EQ(load(tp.path)["otherData"]["workers"], 2) << weft::to_string(p);
  }
}

TEST(Trace, EnvironmentAndSettings) {
  wt::clean_env clean;
  temp_path tp("env");
  {
    wt::env_guard g("WEFT_TRACE", tp.path.c_str());
    wt::env_guard c("WEFT_TRACE_EVENTS", "4096");
    weft::pool pl(weft::config{.workers = 1, .policy = weft::policy::lazy_bf});
    EXPECT_EQ(pl.config().trace_path, tp.path.string());
    EXPECT_EQ(pl.config().trace_events, 4096u);
    EXPECT_EQ(pl.run([] { return wt::fib(10); }), 55u);
    pl.write_trace();  // a snapshot while the pool lives
    EXPECT_EQ(load(tp.path)["otherData"]["workers"], 1);
  }
  EXPECT_EQ(load(tp.path)["otherData"]["events_per_lane_capacity"], 4096);
  for (std::size_t bad : {std::size_t(8), std::size_t(1) << 30}) {
    try {
      weft::pool pl(weft::config{.workers = 1, .trace_path = tp.path.string(), .trace_events = bad});
      ADD_FAILURE() << "trace_events = " << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("trace_events"), std::string::npos) << e.what();
    }
  }
  // The buffers' size without a trace: an error naming both settings; unset, it stays 0.
  try {
    weft::pool pl(weft::config{.workers = 1, .trace_events = 4096});
    ADD_FAILURE() << "trace_events without trace_path accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trace_path"), std::string::npos) << e.what();
  }
  {
    wt::env_guard c("WEFT_TRACE_EVENTS", "4096");
    EXPECT_THROW(weft::pool(weft::config{.workers = 1}), std::invalid_argument);
  }
  weft::pool off(weft::config{.workers = 1});
  EXPECT_EQ(off.config().trace_events, 0u);
  EXPECT_THROW(off.write_trace(), std::logic_error);
  // A folder that does not exist: refused when the pool is made, naming the setting.
  try {
    weft::pool bad(weft::config{.workers = 1, .trace_path = "/nonexistent-dir/x.json"});
    ADD_FAILURE() << "a trace_path in a missing folder was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trace_path"), std::string::npos) << e.what();
  }
  // A folder itself, named as it is or with a trailing '/': no file can be written there either
  // (it was accepted, and the failure came on stderr when the pool went: stop 43's bug hunt).
  for (const std::string& dir : {fs::temp_directory_path().string(), fs::temp_directory_path().string() + "/"}) {
    try {
      weft::pool bad(weft::config{.workers = 1, .trace_path = dir});
      ADD_FAILURE() << "a trace_path naming a folder was accepted: " << dir;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("trace_path"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
    }
  }
  // A folder where no file can be made (procfs makes none, whoever asks — root too): refused when
  // the pool is made, with the reason.  It was accepted, and the run's trace was lost with one line
  // on stderr when the pool went (found by stop 51's config hunt).
  try {
    weft::pool bad(weft::config{.workers = 1, .trace_path = "/proc/weft-x.json"});
    ADD_FAILURE() << "a trace_path where no file can be made was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trace_path"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot be written"), std::string::npos) << e.what();
  }
  // A path with a NUL byte in it: the file would be the part before it (C's open stops there), a
  // path the program never gave; it was written there (found by stop 51's config hunt).
  {
    temp_path before("nul");
    try {
      weft::pool bad(weft::config{.workers = 1, .trace_path = before.path.string() + std::string(1, '\0') + "x"});
      ADD_FAILURE() << "a trace_path with a NUL byte was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("trace_path"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("NUL"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(before.path));
  }
  // The check leaves nothing behind: a file it made is removed, one that was there is kept whole.
  {
    temp_path fresh("check");
    weft::pool pl(weft::config{.workers = 1, .trace_path = fresh.path.string()});
    EXPECT_FALSE(fs::exists(fresh.path)) << "the check left a file behind";
  }
  {
    temp_path kept("kept");
    std::ofstream(kept.path) << "older";
    {
      weft::pool pl(weft::config{.workers = 1, .trace_path = kept.path.string()});
      std::ifstream in(kept.path);
      std::string text;
      in >> text;
      EXPECT_EQ(text, "older") << "the check changed an existing file";
    }
  }
  // A folder gone after the pool was made: the write fails with the reason.
  {
    const fs::path dir = fs::temp_directory_path() / ("weft_trace_dir_" + std::to_string(::getpid()));
    fs::create_directory(dir);
    weft::pool pl(weft::config{.workers = 1, .trace_path = (dir / "x.json").string()});
    fs::remove(dir);
    EXPECT_THROW(pl.write_trace(), std::runtime_error);
  }
}

// No memory for the trace buffers (here: a 4 GiB buffer under an address-space limit 3 GiB above
// what the process maps): the pool's constructor throws a std::bad_alloc that names the setting
// (a bare "std::bad_alloc" before stop 43's bug hunt).  In a child process, whose limit does not
// bind this one; not under the sanitizers, whose shadow memory needs no address-space limit.
TEST(Trace, NoMemoryForTheBuffersNamesTheSetting) {
  wt::clean_env clean;
  if (wt::sanitized) GTEST_SKIP() << "the sanitizers' shadow memory and RLIMIT_AS do not mix";
  temp_path tp("nomem");
  const std::string what = wt::in_child_with_address_room(std::size_t(3) << 30, [&]() -> std::string {
    try {
      weft::pool pl(weft::config{.workers = 1, .trace_path = tp.path.string(), .trace_events = std::size_t(1) << 28});
    } catch (const std::bad_alloc& e) {
      return e.what();
    } catch (const std::exception& e) {
      return std::string("not a bad_alloc: ") + e.what();
    }
    return "no exception";
  });
  EXPECT_NE(what.find("trace_events"), std::string::npos) << what;
  EXPECT_NE(what.find("268435456"), std::string::npos) << what;
}

// Files written at once replace each other whole: two pools sharing one path (as WEFT_TRACE makes
// every pool), snapshotting from two threads at the same moment, leave a file that parses, each
// round.  Before stop 43's bug hunt both wrote into the one file at once: the longer file's tail
// after the shorter one, invalid JSON.
TEST(Trace, PoolsSharingAFileReplaceItWhole) {
  wt::clean_env clean;
  temp_path tp("shared");
  weft::pool one(weft::config{.workers = 1, .policy = weft::policy::ws, .trace_path = tp.path.string(), .trace_events = 4096});
  weft::pool two(weft::config{.workers = 2, .policy = weft::policy::ws, .trace_path = tp.path.string(), .trace_events = 4096});
  EXPECT_EQ(one.run([] { return wt::fib(14); }), wt::fib_serial(14));  // ~600 promotions: a longer file
  EXPECT_EQ(two.run([] { return wt::fib(8); }), wt::fib_serial(8));
  for (int round = 0; round < 40; ++round) {
    std::atomic<int> ready{0};
    auto snapshot = [&ready](const weft::pool& p) {
      ready.fetch_add(1);
      while (ready.load() < 2) {  // both start together (each thread runs this at once)
      }
      p.write_trace();
    };
    std::thread a(snapshot, std::cref(one)), b(snapshot, std::cref(two));
    a.join();
    b.join();
    std::ifstream in(tp.path);
    const json t = json::parse(in, nullptr, false);
    ASSERT_FALSE(t.is_discarded()) << "round " << round << ": the file is not JSON";
    const int workers = t["otherData"]["workers"];
    EXPECT_TRUE(workers == 1 || workers == 2);
  }
}

// Every pool writes its file when destroyed, a serial one too (its run is on the caller: the file has
// the metadata and no worker lanes).  It wrote none, where write_trace() and the global pool did.
TEST(Trace, SerialPoolWritesOnDestruction) {
  wt::clean_env clean;
  temp_path tp("serial");
  fs::remove(tp.path);
  {
    weft::pool pl(weft::config{.workers = 1, .policy = weft::policy::serial, .trace_path = tp.path.string()});
    EXPECT_EQ(pl.run([] { return wt::fib(10); }), 55u);
  }
  ASSERT_TRUE(fs::exists(tp.path)) << "no trace file from a serial pool";
  const json t = load(tp.path);
  EXPECT_EQ(t["otherData"]["policy"], "serial");
  EXPECT_LT(t["otherData"]["duration_us"].get<double>(), 600e6) << "the pool's life, from its own start";
}

// A serial pool has no worker lanes (nor a timer lane), so it has no buffers for trace_events to
// size: the setting, given in code or in the environment, is refused naming it, as every setting a
// policy has no use for is (README, "Configuration").  Found by stop 54's trace hunt: it was
// accepted and ignored.  Left unset it stays 0, so that the pool's config() makes it again.
TEST(Trace, SerialPoolRefusesTraceEvents) {
  wt::clean_env clean;
  temp_path tp("serial_events");
  auto expect_refused = [&](const weft::config& c, const char* what) {
    try {
      weft::pool pl(c);
      ADD_FAILURE() << what << ": accepted";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("config.trace_events / WEFT_TRACE_EVENTS"), std::string::npos) << m;
      EXPECT_NE(m.find("serial"), std::string::npos) << m;
    }
  };
  expect_refused(weft::config{.workers = 1, .policy = weft::policy::serial, .trace_path = tp.path.string(),
                              .trace_events = 4096},
                 "in code");
  {
    wt::env_guard c("WEFT_TRACE_EVENTS", "4096");
    expect_refused(weft::config{.workers = 1, .policy = weft::policy::serial, .trace_path = tp.path.string()},
                   "from the environment");
  }
  weft::pool pl(weft::config{.workers = 1, .policy = weft::policy::serial, .trace_path = tp.path.string()});
  EXPECT_EQ(pl.config().trace_events, 0u);
  weft::pool again(pl.config());
  EXPECT_EQ(again.run([] { return wt::fib(10); }), 55u);
}

// The global pool is never destroyed: its trace is written at exit.  In a child process (fork), so
// that this process's global pool, if any, is not the one traced: the child forgets it (SPEC §2,
// fork) and makes a new one from its environment.
TEST(Trace, GlobalPoolWritesAtExit) {
  wt::clean_env clean;
  temp_path tp("global");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("WEFT_TRACE", tp.path.c_str(), 1);
    ::setenv("WEFT_WORKERS", "2", 1);
    const bool ok = wt::fib(15) == wt::fib_serial(15);  // a join from main: the global pool
    std::exit(ok ? 0 : 3);                              // runs the atexit handlers
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const json t = load(tp.path);
  EXPECT_EQ(t["otherData"]["workers"], 2);
  EXPECT_FALSE(events(t, 0, "X").empty());
  EXPECT_FALSE(events(t, 1, "X").empty());
}

// A child of fork() makes a global pool of its own (global_pool.cpp); one that traces and measures,
// where the parent's global pool did neither, writes its trace and prints its work/span table at
// exit too.  Before stop 47's seeing-inside hunt the exit handlers were registered only when the
// process's first global pool needed them: the child's file and table were silently missing (seen
// as Trace.GlobalPoolWritesAtExit failing when run in one process after other tests had used the
// global pool).
TEST(Trace, GlobalPoolRemadeAfterForkWritesAtExit) {
  wt::clean_env clean;
  temp_path tp("global-after-fork");
  temp_path err_path("global-after-fork-stderr");
  EXPECT_EQ(wt::fib(10), wt::fib_serial(10));  // a join from main: the parent's global pool, untraced
  ASSERT_TRUE(weft::pool::global().config().trace_path.empty());
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (std::freopen(err_path.path.c_str(), "w", stderr) == nullptr) std::_Exit(4);
    ::setenv("WEFT_TRACE", tp.path.c_str(), 1);
    ::setenv("WEFT_WORKERS", "2", 1);
    ::setenv("WEFT_WORK_SPAN", "calls", 1);
    const bool ok = wt::fib(12) == wt::fib_serial(12);  // the child's global pool, made now
    std::exit(ok ? 0 : 3);                              // runs the atexit handlers
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  ASSERT_TRUE(fs::exists(tp.path)) << "the child's global pool wrote no trace at exit";
  const json t = load(tp.path);
  EXPECT_EQ(t["otherData"]["workers"], 2);
  EXPECT_FALSE(events(t, 0, "X").empty());
  std::ifstream in(err_path.path);
  const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(err.find("weft work/span (unit: calls"), std::string::npos) << "the child's stderr: " << err;
}

namespace {

// Busy-waits until the steady clock has moved by `us` microseconds: consecutive events of a
// hand-made buffer then get distinct times in the file (its grid is 1 ns).  No bound needed: the
// clock always advances.
void let_time_pass(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

// A file written from hand-made buffers (src/trace.hpp): two thieves steal from worker 0 in turn.
// Worker 0's stolen-from instants come from both thieves' lanes and are in time order on its lane,
// as every lane's instants are (before stop 43's bug hunt they were written thief by thief, going
// back in time where the second thief's began: seen with 4 workers under ws).
TEST(TraceFile, StolenFromInTimeOrderWithSeveralThieves) {
  using namespace weft::detail;
  temp_path tp("thieves");
  const trace_clock start = trace_clock::now();
  trace_buffer victim(64), a(64), b(64);
  for (trace_buffer* t : {&victim, &a, &b}) t->replace(activity::stealing);
  for (trace_buffer* thief : {&a, &b, &a, &b}) {
    let_time_pass(2);
    EXPECT_TRUE(thief->instant(trace_kind::steal, 0, 0));
  }
  write_trace_file(tp.path.string(), {trace_lane{&victim, "worker 0"}, trace_lane{&a, "worker 1"}, trace_lane{&b, "worker 2"}},
                   start, "\"policy\":\"ws\"");
  const json t = load(tp.path);
  std::vector<int> thieves;
  for (const json& e : events(t, 0, "i", "stolen-from")) thieves.push_back(e["args"]["thief"].get<int>());
  EXPECT_EQ(thieves, (std::vector<int>{1, 2, 1, 2}));
  expect_monotone(t, 3);
}

// A snapshot is one cut of every lane, taken before the file's end time: a worker that records while
// the file is written (pool::write_trace on a running pool, or right after a run, as its workers go
// to sleep) adds nothing to it.  Found by stop 54's trace hunt: each lane was read as the writing
// reached it, after the end time was taken, so a snapshot's lanes ran past otherData.duration_us
// (by the time the lanes before took to write: milliseconds under adf), and dropped_events, summed
// before the lanes were written, differed from dropped_per_lane, read after.  Made deterministic
// with a FIFO as the file: the writer takes its end time, opens the FIFO and blocks on lane 0 (far
// more than a pipe holds) until this thread reads; meanwhile lane 1 records an activity and a
// dropped instant.
TEST(TraceFile, ASnapshotIsOneCutBeforeItsEndTime) {
  using namespace weft::detail;
  const fs::path fifo = fs::temp_directory_path() / ("weft_trace_" + std::to_string(::getpid()) + "_cut.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // so that the writer's open does not wait
  ASSERT_GE(rd, 0) << std::strerror(errno);
  const trace_clock start = trace_clock::now();
  // ~0.6 MB of JSON in lane 0: ten times a pipe's 64 KiB and the stream's buffer (50,000 events took
  // 68 s under ThreadSanitizer).
  trace_buffer big(8192), live(16);
  big.replace(activity::work);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(big.instant(trace_kind::promotion, 1, 0));
  live.replace(activity::stealing);
  while (live.instant(trace_kind::steal, 0, 0)) {
  }  // past 7/8: the next instant is dropped
  const std::uint64_t dropped_before = live.dropped();
  std::string text;
  char buf[1 << 16];
  auto read_some = [&](int timeout_ms) {
    pollfd p{rd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return ssize_t(-1);
    const ssize_t got = ::read(rd, buf, sizeof buf);
    if (got > 0) text.append(buf, std::size_t(got));
    return got;
  };
  std::thread writer([&] {
    write_trace_file(fifo.string(), {trace_lane{&big, "worker 0"}, trace_lane{&live, "worker 1"}}, start,
                     "\"policy\":\"ws\"");
  });
  // The first bytes: the writer has taken its end time (bounded at 60 s: it needs nothing but the
  // files' lock, free here, and the FIFO's open, which a reader makes immediate).
  ASSERT_GT(read_some(60000), 0);
  let_time_pass(50);                   // later than the end time, on any clock
  live.replace(activity::idle);        // what the worker does after the cut
  EXPECT_FALSE(live.instant(trace_kind::steal, 0, 0));
  ASSERT_EQ(live.dropped(), dropped_before + 1);
  // The rest; each wait bounded (60 s: the writer only formats and writes).  0 is the end of file.
  ssize_t got;
  while ((got = read_some(60000)) > 0) {
  }
  writer.join();
  ::close(rd);
  fs::remove(fifo);
  ASSERT_EQ(got, 0) << "the writer stalled";
  const json t = json::parse(text);
  // Compared in whole nanoseconds, the file's resolution (microseconds with three decimals): as
  // doubles, 23.862 + 317.607 exceeds 341.469, an interval that ends exactly at the cut (seen in a
  // CI rehearsal, stop 54).
  const auto ns = [](const json& us) { return std::llround(us.get<double>() * 1000); };
  const long long end = ns(t["otherData"]["duration_us"]);
  for (const json& e : t["traceEvents"]) {
    if (e["ph"] == "X") EXPECT_LE(ns(e["ts"]) + ns(e["dur"]), end) << e.dump();
    if (e["ph"] == "i") EXPECT_LE(ns(e["ts"]), end) << e.dump();
  }
  EXPECT_TRUE(events(t, 1, "X", "idle").empty()) << "lane 1 has an activity recorded after the cut";
  std::uint64_t per_lane = 0;
  for (const json& d : t["otherData"]["dropped_per_lane"]) per_lane += d.get<std::uint64_t>();
  EXPECT_EQ(t["otherData"]["dropped_events"].get<std::uint64_t>(), per_lane);
  EXPECT_EQ(t["otherData"]["dropped_per_lane"][1].get<std::uint64_t>(), dropped_before);
  expect_monotone(t, 2);
}
