// weft tests: the adaptive policies behave as their papers say (issue 3).
//  * on one worker the lazy policies never promote (no thief can come), ws promotes every join;
//  * with a second worker (a rig: it never runs) the lazy policies promote a tiny fraction of joins;
//  * heartbeat promotes about run time / N times (at most once per beat), never with a huge N;
//  * DF promotes the innermost latent item, BF and heartbeat the oldest (observed with the
//    promotion hook);
//  * ws-ap splits a loop into K*P pieces (once it has run a few microseconds);
//  * loops poll: a long parallel_for on one worker under lazy-bf gets split when a thief appears.
#include <gtest/gtest.h>
#include <weft/weft.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common.hpp"
#include "component_rig.hpp"
#include "config_resolve.hpp"
#include "loop_split.hpp"

namespace {

using weft::detail::policy_traits;
using weft::detail::trigger;

// The lazy policies (LS): promote while the deque holds fewer than THR items.
std::vector<weft::policy> lazy_policies() {
  auto out = wt::implemented_where([](const policy_traits& row) { return row.when == trigger::deque_below_threshold; });
  EXPECT_FALSE(out.empty());
  return out;
}

long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

std::uint64_t fib_joins(int n) { return n < 2 ? 0 : 1 + fib_joins(n - 1) + fib_joins(n - 2); }

// Every promotion observed, in order (the hook runs on the promoting worker).
std::mutex events_mutex;
std::vector<weft::detail::promotion_event> events;
std::atomic<std::size_t> promotions_seen{0};    // events.size(), readable without the lock
std::atomic<std::size_t> loop_splits_seen{0};  // events of kind loop_half

void record(const weft::detail::promotion_event& e) {
  std::lock_guard lk(events_mutex);
  events.push_back(e);
  if (e.kind == weft::detail::promotion_kind::loop_half) loop_splits_seen.fetch_add(1);
  promotions_seen.fetch_add(1);
}

struct hook_guard {
  hook_guard() {
    events.clear();
    promotions_seen = 0;
    loop_splits_seen = 0;
    weft::detail::set_promotion_hook(&record);
  }
  ~hook_guard() { weft::detail::set_promotion_hook(nullptr); }
};

// Two nested loops: the outer at task-stack depth 0, the inner at depth 1.
long nested_loops(int outer, int inner) {
  return weft::parallel_reduce(0, outer, 0L, [&](int i) -> long {
    return weft::parallel_reduce(0, inner, 0L, [&](int j) -> long { return i * inner + j; },
                                 [](long a, long b) { return a + b; });
  }, [](long a, long b) { return a + b; });
}

}  // namespace

TEST(Adaptive, LazyPoliciesNeverPromoteOnOneWorker) {
  // LS's trigger keeps items on the deque for thieves; a pool of one worker has none.
  const int n = 24;
  const long want = nested_loops(40, 40);
  for (weft::policy p : lazy_policies()) {
    weft::pool pool(weft::config{.workers = 1, .policy = p});
    EXPECT_EQ(pool.run([&] { return fib(n); }), 46368);
    EXPECT_EQ(pool.run([] { return nested_loops(40, 40); }), want);
    const auto s = pool.stats().total;
    EXPECT_EQ(s.joins, fib_joins(n)) << weft::to_string(p);
    EXPECT_EQ(s.promotions, 0u) << weft::to_string(p);
    EXPECT_EQ(s.deque_checks, 0u) << weft::to_string(p);
    EXPECT_EQ(s.steals, 0u);
  }
}

TEST(Adaptive, LazyPoliciesPromoteATinyFractionOfJoins) {
  // Two workers, the second never running (wt::acting_as_worker): the deque starts empty, so the
  // first poll promotes, and then only the polls after a pop empties it again.
  const int n = 24;
  for (weft::policy p : lazy_policies()) {
    wt::manual_runtime m(p, 2, 256);
    weft::detail::worker& w = m.w(0);
    {
      wt::acting_as_worker as(m, 0);
      EXPECT_EQ(fib(n), 46368);
    }
    EXPECT_EQ(w.retired_joins, fib_joins(n)) << weft::to_string(p);
    EXPECT_GT(w.ledger.promotions, 0u) << weft::to_string(p);              // the deque starts empty
    EXPECT_LT(w.ledger.promotions * 100, w.retired_joins) << weft::to_string(p);  // "a tiny fraction"
    EXPECT_GT(w.deque_checks, 0u);
  }
}

TEST(Adaptive, EagerPoliciesPromoteEveryJoin) {
  const auto eager = wt::implemented_where([](const policy_traits& row) { return row.when == trigger::every_push; });
  ASSERT_FALSE(eager.empty());
  for (weft::policy p : eager) {
    weft::pool pool(weft::config{.workers = 1, .policy = p});
    EXPECT_EQ(pool.run([] { return fib(20); }), 6765);
    const auto s = pool.stats().total;
    EXPECT_EQ(s.promotions, s.joins) << weft::to_string(p);
    EXPECT_EQ(s.joins, fib_joins(20));
  }
}

// The eager join (eager.hpp) promotes and takes back inline: each promotion still reaches the hook
// and the ledger.  fib(20) nests 19 joins (fib(20) down to fib(2)), each promoted while the ones
// below it run, so on one worker the live promoted items peak at exactly 19.
TEST(Adaptive, EagerJoinsReportEveryPromotionAndTheirPeak) {
  const auto eager = wt::implemented_where([](const policy_traits& row) { return row.when == trigger::every_push; });
  for (weft::policy p : eager) {
    hook_guard g;
    weft::pool pool(weft::config{.workers = 1, .policy = p});
    EXPECT_EQ(pool.run([] { return fib(20); }), 6765);
    const auto s = pool.stats().total;
    EXPECT_EQ(promotions_seen.load(), fib_joins(20)) << weft::to_string(p) << ": the hook missed promotions";
    EXPECT_EQ(s.promotions, fib_joins(20)) << weft::to_string(p);
    EXPECT_EQ(s.live_threads_peak, 19u) << weft::to_string(p);
  }
}

// The eager join on a full deque: the frame stays latent and the join is an ordinary one (eager.hpp,
// join.hpp join_eager).  The deque holds as many items as the task stack holds frames, so only a
// ws-ap loop's split-off ranges, which share it, can fill it; here the test fills it itself, on
// one worker (no thief).  The joins must give the serial result, promote nothing, and leave the
// deque as they found it; once it has room again every join is promoted again.
TEST(Adaptive, EagerJoinsOnAFullDequeStayLatent) {
  using weft::detail::frame;
  const auto eager = wt::implemented_where([](const policy_traits& row) { return row.when == trigger::every_push; });
  for (weft::policy p : eager) {
    weft::pool pool(weft::config{.workers = 1, .policy = p, .max_depth = 1024});
    std::vector<frame> fillers(4096);
    std::size_t filled = 0;
    bool in_order = true;
    const long r = pool.run([&] {
      weft::detail::chase_lev_deque* d = weft::detail::tls_hot.eager_deque;
      if (d == nullptr) return -1L;
      while (filled < fillers.size() && d->push(&fillers[filled])) ++filled;
      const long v = fib(15);
      for (std::size_t i = filled; i-- > 0;) in_order &= d->pop() == &fillers[i];
      in_order &= d->pop() == nullptr;
      return v;
    });
    ASSERT_NE(r, -1) << weft::to_string(p) << ": no eager deque on the worker";
    EXPECT_EQ(r, 610) << weft::to_string(p);
    EXPECT_GE(filled, 1024u) << weft::to_string(p) << ": the deque holds at least max_depth items";
    EXPECT_LT(filled, fillers.size()) << weft::to_string(p) << ": the deque never said full";
    EXPECT_TRUE(in_order) << weft::to_string(p) << ": the joins on the full deque changed it";
    auto s = pool.stats().total;
    EXPECT_EQ(s.joins, fib_joins(15)) << weft::to_string(p);
    EXPECT_EQ(s.promotions, 0u) << weft::to_string(p) << ": a join promoted on a full deque";
    EXPECT_EQ(s.live_threads_peak, 0u) << weft::to_string(p);
    pool.reset_stats();
    EXPECT_EQ(pool.run([] { return fib(15); }), 610);
    s = pool.stats().total;
    EXPECT_EQ(s.promotions, fib_joins(15)) << weft::to_string(p) << ": eager again once the deque has room";
    EXPECT_EQ(s.live_threads_peak, 14u) << weft::to_string(p);
  }
}

TEST(Adaptive, HeartbeatPromotesAtMostOncePerBeat) {
  hook_guard g;
  const auto period = std::chrono::microseconds(500);
  weft::pool pool(weft::config{.workers = 1, .policy = weft::policy::heartbeat, .heartbeat = period});
  const auto t0 = std::chrono::steady_clock::now();
  long r = 0;
  int runs = 0;
  for (; runs < 20; ++runs) r += pool.run([] { return fib(25); });
  // Beats are wall-clock: make one certain by computing on, inside one run, until a promotion has
  // been observed (fib's joins are the polls where a beat is acted on, HB §2), within
  // wt::event_bound (see there why that is safe).
  bool beat = true;
  r += pool.run([&] {
    long sum = 0;
    const auto end = std::chrono::steady_clock::now() + wt::event_bound;
    for (; promotions_seen.load() == 0; ++runs) {
      if (std::chrono::steady_clock::now() > end) {
        beat = false;
        break;
      }
      sum += fib(25);
    }
    return sum;
  });
  ASSERT_TRUE(beat) << "no promotion within " << wt::event_bound.count() << " s of heartbeat with a 500 us period";
  const double elapsed_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r, runs * 75025L);
  const auto s = pool.stats().total;
  const double beats = elapsed_us / double(period.count());
  EXPECT_LE(double(s.promotions), beats + 20) << "promotions " << s.promotions << " beats " << beats;
  EXPECT_GT(s.promotions, 0u) << "no beat in " << elapsed_us << " us";
  EXPECT_EQ(s.promotions, promotions_seen.load()) << "the counter and the hook disagree";
}

TEST(Adaptive, HeartbeatWithAHugePeriodNeverPromotes) {
  weft::pool pool(weft::config{.workers = 1, .policy = weft::policy::heartbeat,
                               .heartbeat = std::chrono::microseconds(100'000'000)});
  EXPECT_EQ(pool.run([] { return fib(22); }), 17711);
  EXPECT_EQ(pool.stats().total.promotions, 0u);
}

TEST(Adaptive, DepthFirstPromotesTheInnermostBreadthFirstTheOldest) {
  // Two workers, the second never running (wt::acting_as_worker) but counted as searching, as an
  // idle thief is: at the first poll (the inner loop's first chunk boundary) the deque is empty, so
  // the lazy policies promote.  DF splits the loop being executed (the inner one, depth 1); BF
  // splits the oldest (the outer loop, depth 0).
  const long want = nested_loops(40, 40);
  for (weft::policy p : lazy_policies()) {
    hook_guard g;
    wt::manual_runtime m(p, 2, 256);
    m.rt.begin_search(m.w(1));
    {
      wt::acting_as_worker as(m, 0);
      EXPECT_EQ(nested_loops(40, 40), want);
    }
    m.rt.end_idle(m.w(1));
    std::lock_guard lk(events_mutex);
    ASSERT_FALSE(events.empty()) << weft::to_string(p);
    const auto& first = events.front();
    EXPECT_EQ(first.kind, weft::detail::promotion_kind::loop_half);
    if (wt::traits(p).which == weft::detail::promoted_item::oldest)
      EXPECT_EQ(first.depth, 0u) << "BF must split the outer loop";
    else
      EXPECT_EQ(first.depth, 1u) << weft::to_string(p) << " must split the inner loop";
  }
}

// The same with parallel_for, whose first chunks (1 and 20 iterations) run in a head of their own,
// inlined where the loop is written (adaptive_loop::run_for): the outer loop is in its head (its first
// iteration) when the inner loop's first poll promotes, and must be found there like any loop frame.
// Every iteration runs once, whatever the loops' lengths around the head's end (21 iterations).
TEST(Adaptive, ParallelForHeadsArePromotedLikeAnyLoop) {
  for (int n : {1, 2, 3, 5, 6, 20, 21, 22, 40, 85, 86, 300}) {
    for (weft::policy p : lazy_policies()) {
      hook_guard g;
      wt::manual_runtime m(p, 2, 256);
      m.rt.begin_search(m.w(1));  // an idle thief
      std::vector<std::atomic<int>> runs(std::size_t(n) * n);
      {
        wt::acting_as_worker as(m, 0);
        weft::parallel_for(0, n, [&](int i) {
          weft::parallel_for(0, n, [&](int j) { runs[std::size_t(i) * n + j].fetch_add(1, std::memory_order_relaxed); });
        });
      }
      m.rt.end_idle(m.w(1));
      for (std::size_t k = 0; k < runs.size(); ++k)
        ASSERT_EQ(runs[k].load(), 1) << weft::to_string(p) << ", n = " << n << ": iteration " << k;
      std::lock_guard lk(events_mutex);
      // After the inner loop's first iteration, a loop of two has one left: a single iteration is
      // not split (DF pushes only a range it can halve; LS Alg. 3), so the order is checked from 3.
      if (n < 3) continue;
      ASSERT_FALSE(events.empty()) << weft::to_string(p) << ", n = " << n;
      const auto& first = events.front();
      EXPECT_EQ(first.kind, weft::detail::promotion_kind::loop_half);
      if (wt::traits(p).which == weft::detail::promoted_item::oldest)
        EXPECT_EQ(first.depth, 0u) << "BF must split the outer loop, n = " << n;
      else
        EXPECT_EQ(first.depth, 1u) << weft::to_string(p) << " must split the inner loop, n = " << n;
    }
  }
}

TEST(Adaptive, DepthFirstPromotesTheJoinJustPushedBreadthFirstTheOldestJoin) {
  // A chain of joins whose first branches nest: the first poll is the outermost join's entry, where
  // innermost and oldest coincide (depth 0).  Then, with the deque holding that item, nothing is
  // promoted until it is popped; the next promotion happens at the first poll after that pop.
  const long want = fib(18);
  // THR = 1: while the deque holds one item, nothing more is promoted.
  const auto thr1 = wt::implemented_where([](const policy_traits& row) {
    return row.when == trigger::deque_below_threshold && row.threshold == 1;
  });
  ASSERT_FALSE(thr1.empty());
  for (weft::policy p : thr1) {
    hook_guard g;
    wt::manual_runtime m(p, 2, 256);  // the second worker never runs (wt::acting_as_worker)
    {
      wt::acting_as_worker as(m, 0);
      EXPECT_EQ(fib(18), want);
    }
    std::lock_guard lk(events_mutex);
    ASSERT_GE(events.size(), 2u);
    EXPECT_EQ(events[0].depth, 0u);
    EXPECT_EQ(events[0].kind, weft::detail::promotion_kind::join);
    // After the root's item is popped, the root's second branch fib(16) runs at depth 0 and its
    // first join (depth 0 again) is both innermost and oldest.
    for (const auto& e : events) EXPECT_EQ(e.kind, weft::detail::promotion_kind::join);
  }
}

namespace {
// Iterations run so far, and that count at each promotion (the hook runs on the promoting worker).
std::atomic<int> loop_iterations_run{0};
std::vector<int> iterations_at_promotion;
void record_iterations(const weft::detail::promotion_event&) {
  std::lock_guard lk(events_mutex);
  iterations_at_promotion.push_back(loop_iterations_run.load());
}
// n loops of 400 iterations on the calling thread (the rig's worker 0), each counted.
void run_loops(int n) {
  for (int i = 0; i < n; ++i)
    weft::parallel_for(0, 400, [](int) { loop_iterations_run.fetch_add(1, std::memory_order_relaxed); });
}
}  // namespace

TEST(Adaptive, AShortDequeIsFilledToThrAtOneCheck) {
  // LS §6.2: DF2-LS "pushes a TD with half its tasks onto its empty deque, then pushes another TD
  // with half of its remaining tasks" -- both at one check.  A flat loop of 400 on the two-worker
  // rig (the second worker never runs, counted as searching: nothing is stolen): its first check
  // comes after its first chunk (one iteration) and finds the deque empty.  THR = 2: two halves
  // there; THR = 1: one.  Any later promotion comes only once the piece's own range is done and it
  // takes a half back (and splits it only if it holds two of the piece's timed chunks: loops.cpp,
  // keeps_rest).
  for (weft::policy p : lazy_policies()) {
    {
      std::lock_guard lk(events_mutex);
      iterations_at_promotion.clear();
    }
    loop_iterations_run = 0;
    weft::detail::set_promotion_hook(&record_iterations);
    wt::manual_runtime m(p, 2, 256);
    m.rt.begin_search(m.w(1));
    {
      wt::acting_as_worker as(m, 0);
      run_loops(1);
    }
    m.rt.end_idle(m.w(1));
    weft::detail::set_promotion_hook(nullptr);
    EXPECT_EQ(loop_iterations_run.load(), 400) << weft::to_string(p);
    std::lock_guard lk(events_mutex);
    const std::size_t thr = std::size_t(wt::traits(p).threshold);
    ASSERT_GE(iterations_at_promotion.size(), thr) << weft::to_string(p);
    for (std::size_t i = 0; i < thr; ++i) EXPECT_EQ(iterations_at_promotion[i], 1) << weft::to_string(p);
    for (std::size_t i = thr; i < iterations_at_promotion.size(); ++i)
      EXPECT_GT(iterations_at_promotion[i], 1) << weft::to_string(p);
  }
}

TEST(Adaptive, NoPromotionWhileEveryOtherWorkerBacksOffAndItsReturnRearmsTheCheck) {
  // Issue 9 item 2 (LS: promote only when a thief needs work): while the only other worker waits
  // out a steal backoff, a lazy check promotes nothing (a flat loop of 400 on the two-worker rig
  // runs whole, no split); when the wait ends, the thief sets the owner's `notify` bit again, and
  // the owner's next check splits the next loop after its first iteration, as
  // AShortDequeIsFilledToThrAtOneCheck has it.  (Under DF the item of the held check comes first:
  // DepthFirstCheckAfterAHoldPromotesTheItemItHeld.)
  const std::uint32_t notify = weft::detail::poll_bit::notify;
  for (weft::policy p : lazy_policies()) {
    {
      std::lock_guard lk(events_mutex);
      iterations_at_promotion.clear();
    }
    loop_iterations_run = 0;
    weft::detail::set_promotion_hook(&record_iterations);
    wt::manual_runtime m(p, 2, 256);
    {
      wt::acting_as_worker as(m, 0);
      weft::detail::hot_state* const own = m.w(0).hot;
      m.w(0).hot = &as.as.hot();  // as on a lent slot: the worker's poll word is the acting thread's
      m.rt.begin_search(m.w(1));  // worker 1 is a thief (a searcher while it waits)
      m.rt.begin_backoff();       // worker 1 waits out a backoff
      run_loops(1);
      {
        std::lock_guard lk(events_mutex);
        EXPECT_TRUE(iterations_at_promotion.empty()) << weft::to_string(p) << ": promoted while no thief looked";
      }
      {
        EXPECT_EQ(as.as.hot().poll.load() & notify, 0u) << weft::to_string(p) << ": the check was not cleared";
        m.rt.end_backoff();
        EXPECT_NE(as.as.hot().poll.load() & notify, 0u) << weft::to_string(p) << ": the thief's return did not re-arm";
        loop_iterations_run = 0;
        run_loops(1);
      }
      m.rt.end_idle(m.w(1));
      m.w(0).hot = own;
    }
    weft::detail::set_promotion_hook(nullptr);
    EXPECT_EQ(loop_iterations_run.load(), 400) << weft::to_string(p);
    std::lock_guard lk(events_mutex);
    ASSERT_FALSE(iterations_at_promotion.empty()) << weft::to_string(p);
    EXPECT_EQ(iterations_at_promotion[0], 1) << weft::to_string(p);
  }
}

// The two-worker rig of the hold tests below, for each lazy policy: the test thread acts as worker 0
// (its poll word the worker's, as on a lent slot), worker 1 has no thread; body(p, m, hot) drives
// it.  Afterwards every one of the `loops_run` loops of 400 (run_loops) ran all its iterations.
template <class Body>
void on_lazy_rigs(long loops_run, Body body) {
  for (weft::policy p : lazy_policies()) {
    hook_guard g;
    loop_iterations_run = 0;
    wt::manual_runtime m(p, 2, 256);
    {
      wt::acting_as_worker as(m, 0);
      weft::detail::hot_state* const own = m.w(0).hot;
      m.w(0).hot = &as.as.hot();  // as on a lent slot: the worker's poll word is the acting thread's
      body(p, m, as.as.hot());
      m.w(0).hot = own;
    }
    EXPECT_EQ(loop_iterations_run.load(), 400L * loops_run) << weft::to_string(p);
  }
}

// Offers nobody takes (runtime::futile_offers): a worker counted as searching may not be running
// (descheduled), or may never catch items that their owner takes back within ~100 ns; LS's rule
// would promote at every check for it.  On the two-worker rig worker 1 counts as searching and
// never steals: after futile_offers untaken items the owner's checks hold (40 loops of 400, each of
// which splits at its first check while offers are made: far fewer promotions than loops), a
// search round of worker 1 re-arms them (the notify bit) and the next loop splits again.  Once
// worker 1 no longer searches it runs a task of its own (nobody searches, sleeps or waits at a
// join): every loop runs unsplit (a loop piece's check holds while every other worker is busy:
// sched_deque.cpp, promote_below_threshold); and with worker 1 waiting at a blocked join (a thief
// of its own thief's work), every loop splits as LS has it.
TEST(Adaptive, OffersNobodyTakesWaitForASearchRound) {
  const std::uint32_t notify = weft::detail::poll_bit::notify;
  constexpr int loops = 40;
  const std::size_t futile = weft::detail::runtime::futile_offers;
  on_lazy_rigs(4 * loops + 1, [&](weft::policy p, wt::manual_runtime& m, weft::detail::hot_state& hot) {
    const std::size_t thr = std::size_t(wt::traits(p).threshold);
    m.rt.begin_search(m.w(1));  // worker 1 searches, and never takes anything
    run_loops(loops);
    const std::size_t held = promotions_seen.load();
    EXPECT_LE(held, futile + 2 * thr) << weft::to_string(p) << ": offers went on with nobody taking them";
    EXPECT_EQ(hot.poll.load() & notify, 0u) << weft::to_string(p) << ": the holding check was not cleared";
    m.rt.search_round(m.w(1));
    EXPECT_NE(hot.poll.load() & notify, 0u) << weft::to_string(p) << ": a search round did not re-arm";
    run_loops(1);
    EXPECT_GT(promotions_seen.load(), held) << weft::to_string(p) << ": no offer after a search round";
    const std::size_t after_round = promotions_seen.load();
    run_loops(loops);
    EXPECT_LE(promotions_seen.load(), after_round + 2 * thr) << weft::to_string(p) << ": one round, many offers";
    m.rt.end_idle(m.w(1));  // worker 1 runs a task: every other worker is busy
    hot.poll.fetch_or(notify);
    const std::size_t before_busy = promotions_seen.load();
    run_loops(loops);
    EXPECT_EQ(promotions_seen.load(), before_busy) << weft::to_string(p) << ": a loop split with every other worker busy";
    m.rt.waiting_joins.fetch_add(1);  // worker 1 waits at a blocked join: LS's rule, an offer at every loop
    m.rt.search_round(m.w(1));         // its search rounds re-arm the held checks
    const std::size_t before_ls = promotions_seen.load();
    run_loops(loops);
    EXPECT_GE(promotions_seen.load(), before_ls + loops) << weft::to_string(p) << ": held while a blocked join looked";
    m.rt.waiting_joins.fetch_sub(1);
  });
}

// A sleeper woken for an earlier offer and not yet running (runtime::wake_one's pending wake) will
// search: the checks hold for it as for a searcher, and its first search round re-arms them.  Until
// stop 50 nobody searching meant LS's rule, an offer at every check, while the wake was under way:
// the owner took each item back (10,000-12,000 untaken offers in one invocation of weft-small-work's
// loop(64); docs/results/small-work.md, "Stop 50").  On the two-worker rig nobody ever sleeps, so a
// wake stays pending until the test makes worker 1 search.
TEST(Adaptive, OffersWaitForAWokenSleeperToSearch) {
  const std::uint32_t notify = weft::detail::poll_bit::notify;
  constexpr int loops = 40;
  const std::size_t futile = weft::detail::runtime::futile_offers;
  on_lazy_rigs(2 * loops + 1, [&](weft::policy p, wt::manual_runtime& m, weft::detail::hot_state& hot) {
    const std::size_t thr = std::size_t(wt::traits(p).threshold);
    // Nobody searching, no wake pending, worker 1 at a blocked join: LS's rule, an offer at every loop.
    m.rt.waiting_joins.fetch_add(1);
    run_loops(loops);
    m.rt.waiting_joins.fetch_sub(1);
    const std::size_t offered = promotions_seen.load();
    EXPECT_GE(offered, std::size_t(loops)) << weft::to_string(p) << ": held with nobody searching";
    ASSERT_GE(offered, futile) << weft::to_string(p);
    m.rt.wake_one();  // a sleeper woken (worker 1), not yet running
    run_loops(loops);
    const std::size_t held = promotions_seen.load();
    EXPECT_LE(held, offered + 2 * thr) << weft::to_string(p) << ": offers went on while the woken sleeper was on its way";
    EXPECT_EQ(hot.poll.load() & notify, 0u) << weft::to_string(p) << ": the holding check was not cleared";
    m.rt.begin_search(m.w(1));  // the woken sleeper runs and fails its first attempt
    m.rt.search_round(m.w(1));
    EXPECT_NE(hot.poll.load() & notify, 0u) << weft::to_string(p) << ": its search round did not re-arm";
    run_loops(1);
    EXPECT_GT(promotions_seen.load(), held) << weft::to_string(p) << ": no offer after its search round";
    m.rt.end_idle(m.w(1));
  });
}

// The hold's flag (promotion_held_) is one for the pool, and whoever re-arms consumes it — the
// holding worker too, when it makes a search round itself (its blocked join does, blocked_join.cpp;
// so does its idle loop once its work is done).  That re-arm must set its own `notify` bit as well:
// skipping itself (until stop 36) left its check cleared with the flag gone, so no later round of
// the real searcher re-armed it, and it offered nothing more — with every other worker asleep, for
// the rest of its work (Edges.NonStdExceptionsFromStolenLoopPieces stalled 30 s under lazy-df2).
TEST(Adaptive, ASearchRoundOfTheHoldingWorkerItselfRearmsItsCheck) {
  const std::uint32_t notify = weft::detail::poll_bit::notify;
  on_lazy_rigs(42, [&](weft::policy p, wt::manual_runtime& m, weft::detail::hot_state& hot) {
    m.rt.begin_search(m.w(1));  // worker 1 searches, and never takes anything
    run_loops(40);              // offers nobody takes: worker 0's checks hold
    ASSERT_EQ(hot.poll.load() & notify, 0u) << weft::to_string(p) << ": the check did not hold";
    m.rt.search_round(m.w(0));  // worker 0 itself looks for work (a blocked join of its own)
    EXPECT_NE(hot.poll.load() & notify, 0u)
        << weft::to_string(p) << ": the holding worker's own round consumed the hold and left its check cleared";
    run_loops(1);  // the check comes back; worker 1 has still made no round: it holds again
    const std::size_t held = promotions_seen.load();
    m.rt.search_round(m.w(1));  // now the searcher proves it looks
    run_loops(1);
    EXPECT_GT(promotions_seen.load(), held) << weft::to_string(p) << ": no offer after the searcher's round";
    m.rt.end_idle(m.w(1));
  });
}

// DF-LS under the hold (src/sched_deque.cpp, promote_below_threshold): the check that held its
// promotion would have promoted the innermost item then; the first check after the thief's return
// promotes that item — by then deep below the owner's current work, older and larger, as it would
// be had it waited on the deque — not the innermost item of that moment.  A chain of joins on the
// two-worker rig: the first join's check (notify is set on a fresh slot) holds at depth 0 and
// promotes nothing; at depth 5 the backoff ends; the join at depth 5 polls, and its check must
// promote depth 0 first (DF2-LS, THR = 2, then fills up with the innermost, depth 5).
namespace held_chain {
wt::manual_runtime* rig = nullptr;
std::size_t promoted_while_held = 0;
long chain(int depth) {
  if (depth == 5) {
    promoted_while_held = promotions_seen.load();
    rig->rt.end_backoff();
  }
  if (depth == 8) return 1;
  auto [a, b] = weft::join([depth] { return chain(depth + 1); }, [] { return 1L; });
  return a + b;
}
}  // namespace held_chain

TEST(Adaptive, DepthFirstCheckAfterAHoldPromotesTheItemItHeld) {
  for (weft::policy p : lazy_policies()) {
    if (wt::traits(p).which != weft::detail::promoted_item::innermost) continue;
    hook_guard g;
    wt::manual_runtime m(p, 2, 256);
    held_chain::rig = &m;
    {
      wt::acting_as_worker as(m, 0);
      weft::detail::hot_state* const own = m.w(0).hot;
      m.w(0).hot = &as.as.hot();  // as on a lent slot: the worker's poll word is the acting thread's
      m.rt.begin_backoff();       // worker 1 waits out a backoff until depth 5
      EXPECT_EQ(held_chain::chain(0), 9) << weft::to_string(p);
      m.w(0).hot = own;
    }
    held_chain::rig = nullptr;
    EXPECT_EQ(held_chain::promoted_while_held, 0u) << weft::to_string(p) << ": promoted while no thief looked";
    std::lock_guard lk(events_mutex);
    ASSERT_FALSE(events.empty()) << weft::to_string(p) << ": nothing promoted after the thief's return";
    EXPECT_EQ(events[0].depth, 0u) << weft::to_string(p) << ": the first promotion is not the held check's item";
    const std::size_t thr = std::size_t(wt::traits(p).threshold);
    if (thr >= 2) {
      ASSERT_GE(events.size(), 2u) << weft::to_string(p);
      EXPECT_EQ(events[1].depth, 5u) << weft::to_string(p) << ": DF2 fills up with the innermost item";
    }
  }
}

TEST(Adaptive, HeartbeatPromotesTheOldestFrame) {
  hook_guard g;
  weft::pool pool(weft::config{.workers = 1, .policy = weft::policy::heartbeat, .heartbeat = std::chrono::microseconds(200)});
  // Beats arrive by wall clock: run fib(24) ten times per run, and runs until at least 10
  // promotions have been observed, within wt::event_bound (see there why that is safe).
  const auto deadline = std::chrono::steady_clock::now() + wt::event_bound;
  while (promotions_seen.load() < 10 && std::chrono::steady_clock::now() < deadline) {
    long r = 0;
    for (int i = 0; i < 10; ++i) r += pool.run([] { return fib(24); });
    ASSERT_EQ(r, 10 * 46368);
  }
  std::lock_guard lk(events_mutex);
  ASSERT_GE(events.size(), 10u) << "fewer than 10 beats acted on in " << wt::event_bound.count()
                                << " s with a 200 us period";
  // fib's recursion is ~24 deep; the oldest promotable frame is always near the bottom: the first
  // beat of each run promotes depth 0, and no promotion can skip an older unpromoted frame.
  std::size_t shallow = 0;
  for (const auto& e : events) shallow += e.depth < 8;
  EXPECT_GT(shallow * 2, events.size()) << "most promotions must be of old (shallow) frames";
}

TEST(Adaptive, AutoPartitionerSplitsALoopIntoKTimesPPieces) {
  hook_guard g;
  weft::pool pool(weft::config{.workers = 2, .policy = weft::policy::ws_ap});
  std::atomic<long> sum{0};
  pool.run([&] { weft::parallel_for(0, 1 << 16, [&](int i) { sum.fetch_add(i, std::memory_order_relaxed); }); });
  EXPECT_EQ(sum.load(), (long(1) << 16) * ((1 << 16) - 1) / 2);
  std::lock_guard lk(events_mutex);
  // K*P = 8 chunks: the root range is split 3 times up front (8 -> 4 -> 2 -> 1); every piece that
  // runs splits further only while its counter allows, so at least K*P - 1 = 7 splits happen.
  std::size_t splits = 0;
  for (const auto& e : events) splits += e.kind == weft::detail::promotion_kind::loop_half;
  EXPECT_GE(splits, 7u);
}

// ...but only once the loop has run a few microseconds (the split is paid by the work it spreads,
// issue 9 item 2): a loop of 16 trivial iterations ends before its splits are due.  It is a time
// rule, so a loop descheduled in the middle may still split: the bound allows one loop in 16 to
// (each such loop makes at most K*P - 1 = 15 splits); splitting up front made 15 per loop.
TEST(Adaptive, AutoPartitionerLeavesAShortLoopWhole) {
  weft::pool pool(weft::config{.workers = 4, .policy = weft::policy::ws_ap});
  const int loops = 256;
  pool.reset_stats();
  const long sum = pool.run([&] {
    long s = 0;
    for (int k = 0; k < loops; ++k)
      s += weft::parallel_reduce(0, 16, 0L, [](int i) { return long(i); }, [](long a, long b) { return a + b; });
    return s;
  });
  EXPECT_EQ(sum, loops * 120L);
  // Sanitized builds run a 16-iteration loop in about the 3 us the rule waits for: there the time
  // rule is not what is being tested, only the result.
  if (!wt::sanitized) EXPECT_LT(pool.stats().total.promotions, std::uint64_t(loops / 16 * 15));
}

// The sizes of a theft (config_resolve.hpp) for the steal backoff: large at small_theft of work or
// more (the waits start again from the first); below it, overlapped when its work overlapped the
// victim's own (its work less the victim's wait at its join) by theft_overlap_gain or more (no wait,
// and a run of small thefts goes on); else small (a wait, twice the last).  The behaviour it gives:
// Idle.AFewMicrosecondTheftItsVictimDidNotWaitForIsNoSmallOne, Idle.StealBackoffFollowsSmallThefts.
TEST(Adaptive, ATheftIsSmallOverlappedOrLarge) {
  using weft::detail::size_of_theft;
  using weft::detail::theft_size;
  constexpr std::uint64_t us = 1000, limit = 8 * us, gain = 2 * us;
  EXPECT_EQ(size_of_theft(1 * us, 0, limit, gain), theft_size::small) << "small work is small whatever its victim did";
  EXPECT_EQ(size_of_theft(5 * us, 0, limit, gain), theft_size::overlapped) << "5 us its victim did not wait for";
  EXPECT_EQ(size_of_theft(5 * us, 3 * us, limit, gain), theft_size::overlapped) << "2 us of overlap";
  EXPECT_EQ(size_of_theft(5 * us, 4 * us, limit, gain), theft_size::small) << "its victim waited for most of it";
  EXPECT_EQ(size_of_theft(5 * us, 9 * us, limit, gain), theft_size::small) << "its victim waited longer than it ran";
  EXPECT_EQ(size_of_theft(8 * us, 8 * us, limit, gain), theft_size::large) << "at the threshold, whatever the victim did";
  EXPECT_EQ(size_of_theft(5 * us, 0, limit, weft::detail::no_overlap_gain), theft_size::small) << "Wool's rule: no overlap counts";
  EXPECT_EQ(weft::detail::theft_overlap_gain, std::chrono::microseconds(2));
}

// Where a loop's chunks end: the iterations of one chunk see the same loop_record::next (a chunk is
// taken off the range before it runs, LS Alg. 3 lines 3-4), so the body, reading its loop frame's
// record, sees each chunk's end.  On one worker the lazy policies and serial never promote, so the
// chunks are the untimed ramp's and then the first timed chunk: parallel_for's head 1 and 20, then
// 64 cut at an aligned index (lo + k a multiple of loop_align, loop.hpp); a reduction's 1, 2, 4, 8,
// 16 (run_reduce's head), then the chunk loop's 32 and 64, cut at an aligned index past their first,
// peeled iteration, then its first timed chunk, 128 (it has no earlier clock reading).  A
// reduction's chunk ends are part of its schedule (what a poll leaves latent; loops.md, "A short
// reduction's head"): stop 65's head keeps the chunk loop's ends.
std::vector<std::uint64_t> chunk_ends(weft::pool& pool, std::uint64_t lo, std::uint64_t n, bool reduce) {
  std::vector<std::uint64_t> ends;
  auto note = [&](std::uint64_t) {
    const weft::detail::loop_record& rec = weft::detail::loop_of(weft::detail::tls_hot.top - 1);  // the loop's own frame
    if (ends.empty() || ends.back() != rec.next) ends.push_back(rec.next);
  };
  pool.run([&] {
    if (reduce)
      return weft::parallel_reduce(lo, lo + n, std::uint64_t(0), [&](std::uint64_t i) { note(i); return i; }, std::plus<>{});
    weft::parallel_for(lo, lo + n, note);
    return std::uint64_t(0);
  });
  return ends;
}

TEST(Adaptive, ALoopsChunksEndWhereItsRampSays) {
  using v = std::vector<std::uint64_t>;
  std::vector<weft::policy> policies = lazy_policies();
  policies.push_back(weft::policy::serial);
  for (weft::policy p : policies) {
    weft::pool pool(weft::config{.workers = 1, .policy = p});
    const std::string name(weft::to_string(p));
    EXPECT_EQ(chunk_ends(pool, 0, 100, true), (v{1, 3, 7, 15, 31, 63, 100})) << name << ": a reduction from 0";
    // lo = 5: the aligned cuts land where 5 + k + 1 (its peeled iteration) is a multiple of 16.
    EXPECT_EQ(chunk_ends(pool, 5, 100, true), (v{1, 3, 7, 15, 31, 58, 100})) << name << ": a reduction from 5";
    EXPECT_EQ(chunk_ends(pool, 0, 10, true), (v{1, 3, 7, 10})) << name << ": a short reduction";
    EXPECT_EQ(chunk_ends(pool, 0, 31, true), (v{1, 3, 7, 15, 31})) << name << ": a reduction of its head";
    EXPECT_EQ(chunk_ends(pool, 0, 32, true), (v{1, 3, 7, 15, 31, 32})) << name << ": a reduction of 32";
    EXPECT_EQ(chunk_ends(pool, 0, 256, true), (v{1, 3, 7, 15, 31, 63, 127, 255, 256})) << name << ": into the timed chunks";
    EXPECT_EQ(chunk_ends(pool, 0, 100, false), (v{1, 21, 80, 100})) << name << ": a parallel_for";
    EXPECT_EQ(pool.stats().total.promotions, 0u) << name;
  }
}

// A single flat loop of `iterations` slow iterations under lazy-bf, 2 workers: the second worker can
// only get work if the loop splits at its chunk boundaries (LS §4).  The split is observed with the
// promotion hook; from then on, every iteration on the first thread waits until an iteration has run
// on the other worker, so the steal of the split-off half is certain (within wt::event_bound, see
// there why that is safe) instead of a race with the sleeping worker.
// `reduce`: the loop is a parallel_reduce (its chunks are the chunk loop's, not run_for's head), whose
// value must be the serial sum however it split.
void expect_loop_split_and_shared(int iterations, bool reduce = false) {
  hook_guard g;
  weft::pool pool(weft::config{.workers = 2, .policy = weft::policy::lazy_bf});
  std::atomic<int> on_other{0};
  bool waited_out = false;
  const long sum = pool.run([&] {
    const std::thread::id first = std::this_thread::get_id();
    auto body = [&](int i) -> long {
      if (std::this_thread::get_id() != first) {
        on_other.fetch_add(1);
        return i;
      }
      if (loop_splits_seen.load() > 0 && on_other.load() == 0)
        waited_out = !wt::wait_until([&] { return on_other.load() > 0; }, wt::event_bound);
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      while (std::chrono::steady_clock::now() < until) {
      }
      return i;
    };
    if (reduce) return weft::parallel_reduce(0, iterations, 0L, body, std::plus<>{});
    weft::parallel_for(0, iterations, [&](int i) { body(i); });
    return long(iterations) * (iterations - 1) / 2;
  });
  EXPECT_EQ(sum, long(iterations) * (iterations - 1) / 2);
  EXPECT_GT(pool.stats().total.promotions, 0u);
  EXPECT_GT(loop_splits_seen.load(), 0u) << "the loop never split at a chunk boundary";
  EXPECT_FALSE(waited_out) << "the loop split but its other half did not run on the second worker within "
                           << wt::event_bound.count() << " s";
  EXPECT_GT(on_other.load(), 0) << "no iteration ran on the second worker";
}

TEST(Adaptive, LoopsPollBetweenChunks) { expect_loop_split_and_shared(400); }

// A loop of four long iterations is shared too: its first chunk is one iteration, so it polls (and,
// with an empty deque, splits) before its second (a first chunk of four would run it serially).
TEST(Adaptive, AShortLoopOfLongIterationsPollsAfterItsFirst) { expect_loop_split_and_shared(4); }

// The same for reductions, whose first chunks are the chunk loop's (1, 2, 4, ...), not run_for's head.
TEST(Adaptive, ReductionsPollBetweenChunks) { expect_loop_split_and_shared(400, true); }
TEST(Adaptive, AShortReductionOfLongIterationsPollsAfterItsFirst) { expect_loop_split_and_shared(4, true); }

namespace foreign_bits {
WEFT_TASK_FN void never_run(weft::detail::frame*) {}

// What the policy `p` does at a poll of a fresh worker whose word holds `bits`, a join just pushed:
// the frame's marks, the beats counted, the word afterwards.
struct outcome {
  std::uint8_t marks;
  std::uint64_t beats;
  std::uint32_t poll;
};
outcome poll_with(weft::policy p, std::uint32_t bits) {
  using namespace weft::detail;
  wt::manual_runtime m(p, 2, 64);
  worker& w = m.w(0);
  hot_state& h = m.h(0);
  frame* fr = h.top;  // a join's push, as join.hpp makes it
  fr->state.store(task_state::task(&never_run), std::memory_order_relaxed);
  h.top = fr + 1;
  h.poll.store(bits, std::memory_order_relaxed);
  m.sched().promote_at_poll(w, h, fr);
  const outcome o{fr->marks, w.beats_delivered, h.poll.load()};
  if (fr->marks == 0) h.top = fr;  // nothing on a deque: the frame is popped as a join would
  return o;
}
}  // namespace foreign_bits

// Another pool's bits that arrive late.  promote_at_poll's entry (slow_path.cpp) puts aside the
// bits the policy never acts on that it sees in the poll word; a beat or a `notify` sent to the
// thread after that load is in the word when the policy reads it, and the policy must not take it
// for its own.  Seen in the TSan stage of stop 44's CI rehearsal: a serial run inside a heartbeat
// pool's task promoted at such a beat and counted it (HeartbeatDelivery.
// BeatsInANestedSerialRunStayTheOuterPools, spare delivery).  Here the policy's own promote_at_poll
// gets the word as that race leaves it, every foreign bit set and none of its own, and must do
// what it does at a poll with none of them (wool keeps its public window at any poll), leaving
// the bits for the next poll's entry to put aside.
TEST(Adaptive, APolicyNeverActsOnAnotherPoolsBitsLeftInThePollWord) {
  for (weft::policy p : weft::implemented_policies()) {
    if (wt::traits(p).runs_on == weft::detail::mechanism::fibers) continue;  // its workers never poll
    const std::uint32_t foreign = wt::manual_runtime(p, 2, 64).sched().foreign_poll_bits();
    if (foreign == 0) continue;
    const foreign_bits::outcome with = foreign_bits::poll_with(p, foreign), without = foreign_bits::poll_with(p, 0);
    EXPECT_EQ(with.marks, without.marks) << weft::to_string(p) << ": promoted at another pool's bit";
    EXPECT_EQ(with.beats, 0u) << weft::to_string(p) << ": counted another pool's beat";
    EXPECT_EQ(with.poll, without.poll | foreign) << weft::to_string(p) << ": the bits are the next poll's to put aside";
  }
}

// A blocked join names the thief it waits for in `blocked_on` while it waits (runtime::wait_stolen):
// other blocked joins follow it to leapfrog transitively, and a thief's push wakes the join parked on
// it through it (wake_parked_joiners, PROTOCOLS.md §8).  A join nested in a task that the waiting
// join leapfrogged blocks too, and sets its own thief there; when it ends, the outer join is still
// waiting, and must name its own thief again.  Until stop 57 the nested join left -1 behind: from
// then on the outer join, parked, slept on through its thief's pushes until DONE (the wake for work
// of stop 52's idle hunt lost), and nobody leapfrogged through it.  The rig: worker 0's outer join
// waits for thief 1 and leapfrogs a task of worker 1, in which a join waits for thief 2 (its frame
// already DONE, so that it returns at once); the task records what worker 0 names after it.
namespace nested_wait {
wt::manual_runtime* rig = nullptr;
weft::detail::frame* outer = nullptr;
int named_after_inner = -2;
WEFT_TASK_FN void leapfrogged(weft::detail::frame*) {
  using namespace weft::detail;
  alignas(64) frame inner;
  inner.state.store(task_state::done, std::memory_order_relaxed);
  rig->rt.wait_stolen(rig->w(0), &inner, 2);
  named_after_inner = rig->w(0).blocked_on.load(std::memory_order_relaxed);
  outer->state.store(task_state::done, std::memory_order_release);  // the outer join's thief finishes
}
}  // namespace nested_wait

TEST(Adaptive, AJoinNestedInALeapfrogLeavesTheOuterJoinNamingItsThief) {
  using namespace weft::detail;
  for (weft::policy p : weft::implemented_policies()) {
    const mechanism runs_on = wt::traits(p).runs_on;
    if (runs_on != mechanism::deque && runs_on != mechanism::wool_stack) continue;  // no blocked joins
    wt::manual_runtime m(p, 3, 64);
    nested_wait::rig = &m;
    nested_wait::named_after_inner = -2;
    alignas(64) frame outer, task;
    outer.state.store(task_state::stolen(1), std::memory_order_relaxed);
    nested_wait::outer = &outer;
    // The task worker 0 leapfrogs, stealable on worker 1: on its deque, or in its bottom public slot.
    if (runs_on == mechanism::deque) {
      task.state.store(task_state::task(&nested_wait::leapfrogged), std::memory_order_relaxed);
      ASSERT_TRUE(m.sched().promote_frame(m.w(1), &task));
    } else {
      m.w(1).stack.begin()->state.store(task_state::task(&nested_wait::leapfrogged) | task_state::public_tag,
                                        std::memory_order_release);
    }
    const std::uint64_t leapfrogs = m.w(0).leapfrogs;
    // Bounded: were the task not leapfrogged, the wait would park for ever; after 10 s (the whole
    // test takes well under a millisecond) a watchdog plays the thief's end, DONE and the unpark
    // of execute_stolen, and the leapfrog count below fails.
    std::atomic<bool> finished{false};
    std::thread watchdog([&] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!finished.load() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (finished.load()) return;
      outer.state.store(task_state::done, std::memory_order_release);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (m.w(0).parked.load(std::memory_order_relaxed)) {
        m.w(0).unpark_epoch.fetch_add(1, std::memory_order_release);
        m.w(0).unpark_epoch.notify_all();
      }
    });
    m.rt.wait_stolen(m.w(0), &outer, 1);  // returns once the leapfrogged task has set DONE
    finished.store(true);
    watchdog.join();
    EXPECT_EQ(m.w(0).leapfrogs, leapfrogs + 1) << weft::to_string(p) << ": the task was not leapfrogged";
    EXPECT_EQ(nested_wait::named_after_inner, 1)
        << weft::to_string(p) << ": after the nested join the outer join no longer names its thief (worker 1)";
    EXPECT_EQ(m.w(0).blocked_on.load(), -1) << weft::to_string(p) << ": the outer join left a thief named";
  }
}
