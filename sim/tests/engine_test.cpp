// Invariants of the simulator for every policy: work conserved, every node started exactly as
// often as the serial execution starts it, all memory freed, bounds of greedy scheduling,
// determinism per seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <string>
#include <string_view>

#include "generators.hpp"
#include "report.hpp"

using namespace weft_sim;

namespace {

const char* const kDags[] = {"fib:14", "nqueens:7", "loops:5:37:3", "uts-geo:7:3:2:10",
                             "uts-bin:20:4:0.2:3", "nar:2:2:7", "nar:3:3:8", "alg5:20:50",
                             "nar-lb:8:30:100"};
const unsigned kWorkers[] = {1, 2, 3, 8, 64};

// Starts per template node in the serial execution: multiplicities pushed from the root down
// (children have smaller indices, so one sweep in decreasing index order).
std::vector<std::uint64_t> serial_starts(const Dag& d) {
  std::vector<std::uint64_t> m(d.size(), 0);
  m[d.root()] = 1;
  for (std::size_t i = d.size(); i-- > 0;) {
    const Node& n = d.node(std::uint32_t(i));
    if (m[i] == 0) continue;
    if (n.kind == NodeKind::pair) {
      m[n.left] += m[i];
      m[n.right] += m[i];
    } else if (n.kind == NodeKind::loop) {
      for (std::uint64_t k = 0; k < n.count; ++k) m[d.iteration(n, k)] += m[i];
    }
  }
  return m;
}

RunResult run(const Dag& d, const std::string& policy, unsigned p, const Costs& c = Costs{},
              std::uint64_t seed = 1, std::vector<std::uint64_t>* starts = nullptr) {
  RunConfig cfg{&d, &policy_by_name(policy), c, p, seed};
  cfg.node_starts = starts;
  return simulate(cfg);
}

// Runs `policy` on `d` and checks what every schedule keeps: each template node started as often
// as in the serial execution (`expected`), the DAG's work done, all memory freed, the executed span
// at least the DAG's.
RunResult run_checked(const Dag& d, const std::vector<std::uint64_t>& expected, const NodeTotals& totals,
                      const std::string& policy, unsigned p, const Costs& c, std::uint64_t seed) {
  std::vector<std::uint64_t> starts(d.size(), 0);
  const RunResult r = run(d, policy, p, c, seed, &starts);
  EXPECT_EQ(starts, expected);
  EXPECT_EQ(r.raw_work, totals.work);
  EXPECT_EQ(r.memory_at_end, 0u);
  EXPECT_GE(r.exec_span, totals.span);
  return r;
}

std::vector<std::string> simulated_policies() {
  std::vector<std::string> out;
  for (const auto& p : kPolicies)
    if (p.simulated) out.emplace_back(p.name);
  return out;
}

}  // namespace

TEST(Engine, EveryNodeRunsExactlyAsOftenAsSeriallyAndWorkIsConserved) {
  for (const char* spec : kDags) {
    const Dag d = make_dag(spec);
    const auto totals = d.root_totals();
    const auto expected = serial_starts(d);
    for (const auto& policy : simulated_policies())
      for (unsigned p : kWorkers) {
        SCOPED_TRACE(std::string(spec) + " " + policy + " P=" + std::to_string(p));
        const RunResult r = run_checked(d, expected, totals, policy, p, Costs{}, 7);
        EXPECT_EQ(double(r.instances), totals.instances);
        EXPECT_GE(double(r.memory_peak), totals.serial_peak * (p == 1 ? 1.0 : 0.0));
        // Time is accounted: the P workers' busy and idle time fill P × makespan.
        EXPECT_GE(r.idle, 0.0);
        EXPECT_GE(double(r.makespan), totals.work / p);
        if (p == 1 && policy != "fifo") {  // fifo: breadth-first, every take from its queue
          EXPECT_EQ(r.thefts, 0u);
          EXPECT_EQ(double(r.makespan), r.raw_work + r.overhead);  // nothing else happens
          EXPECT_EQ(double(r.memory_peak), totals.serial_peak);    // the depth-first order
        }
      }
  }
}

// No schedule runs faster than its work and its span allow, whatever the costs: a promoted branch is
// stealable only once its promotion is paid (Item::ready, Thread::ready), a join goes on only once
// its thief paid the signal (Costs::sync, Frame::done_at), time off the processor counts only up to
// the end.  So idle time is never negative and the makespan is at least the executed span and the
// work over P.  Found by stop 40's bug hunt: a fifo chain of five 1-unit nodes "ran" 4x faster on
// three processors with promote = 10000 (a child taken by a processor whose clock was earlier than
// its fork's end), ws on nqueens:3 at P = 64 ended before its span, a 5000-unit sync and time
// sharing gave negative idle time.
TEST(Engine, NoScheduleBeatsItsSpanOrItsWorkWhateverTheCosts) {
  struct cost_set {
    const char* name;
    Time promote, sync, steal, pop, slice_on, slice_off;
  };
  const cost_set sets[] = {{"promote 10000", 10000, 0, 1, 20, 0, 0},
                           {"sync 5000", 100, 5000, 1, 20, 0, 0},
                           {"steal 0, promote 1000", 1000, 50, 0, 0, 0, 0},
                           {"time sharing", 100, 50, 1000, 20, 1000, 500},
                           {"pop 3000, sync 5000", 1, 5000, 1000, 3000, 100, 50}};
  for (const char* spec : {"loops:1:1:5", "loops:1:2:1", "loops:3:5:7", "fib:10", "nqueens:4", "nar:1:1:6",
                           "uts-geo:5:3:2:10", "nar-lb:8:20:100"}) {
    const Dag d = make_dag(spec);
    const auto t = d.root_totals();
    for (const cost_set& cs : sets) {
      Costs c;
      c.promote = cs.promote;
      c.sync = cs.sync;
      c.steal = cs.steal;
      c.pop = cs.pop;
      c.slice_on = cs.slice_on;
      c.slice_off = cs.slice_off;
      for (const auto& policy : simulated_policies())
        for (unsigned p : {1u, 2u, 3u, 7u}) {
          SCOPED_TRACE(std::string(spec) + " " + cs.name + " " + policy + " P=" + std::to_string(p));
          const RunResult r = run(d, policy, p, c, 5);
          EXPECT_EQ(r.raw_work, t.work);
          EXPECT_GE(r.idle, 0.0);
          EXPECT_GE(double(r.makespan), r.exec_span);
          EXPECT_GE(double(r.makespan), std::max(t.work / p, t.span));
        }
    }
  }
}

// A branch's work after its own join (Node::work_after) comes before its parent's join goes on.
// The bug hunt of 2026-11-29 (random DAG files): under adf, dfd and fifo, a thread ran its work
// after the join and signalled its parent's join in one step, so a sibling ending earlier, on a
// processor acting in between, took the parent's continuation at its own earlier clock: pair(5,
// loop(0, 1 iteration, after 7), leaf 1) ended at 6 on two processors, its span 12, and idle time
// was negative.  The generators' DAGs have no work after a join but nar-lb's (1 unit); recorded
// DAGs have it at every join.
TEST(Engine, AJoinGoesOnOnlyAfterItsBranchesWorkAfterTheirOwnJoins) {
  Dag loop_first;
  const auto iteration = loop_first.add_leaf(0);
  loop_first.set_root(loop_first.add_pair(5, loop_first.add_loop(0, 1, iteration, 7), loop_first.add_leaf(1)));
  Dag pair_second;
  const auto zero = pair_second.add_leaf(0);
  pair_second.set_root(pair_second.add_pair(1, pair_second.add_leaf(2), pair_second.add_pair(1, zero, zero, 50)));
  for (const Dag* d : {&loop_first, &pair_second}) {
    const auto t = d->root_totals();
    for (const auto& policy : simulated_policies())
      for (const Costs& c : {zero_costs(), Costs{}})
        for (unsigned p : {1u, 2u, 3u, 4u}) {
          SCOPED_TRACE(policy + " P=" + std::to_string(p) + " span " + std::to_string(t.span));
          const RunResult r = run(*d, policy, p, c, 3);
          EXPECT_GE(double(r.makespan), t.span);
          EXPECT_GE(r.idle, 0.0);
        }
  }
  EXPECT_EQ(loop_first.root_totals().span, 12.0);
}

// exec_span is HB §3's g_h: a promoted fork's branch starts τ = promote after the fork.  The thread
// engine (adf, dfd, fifo), where every fork promotes, added nothing, so its exec_span was the DAG's
// own span whatever `promote` was (stop 48's sim hunt).  pair(0, leaf 10, leaf 10) with promote 100:
// the promoted branch ends at 110 under every policy that promotes the fork; fifo promotes both.
// With a deeper DAG, whose every fork the thread engine promotes, exec_span is the span with τ per
// fork (HB §3.1's S_τ) under fifo, which makes every child a thread.
TEST(Engine, ExecutedSpanAddsThePromotionCostOnEveryPromotedFork) {
  Dag d;
  d.set_root(d.add_pair(0, d.add_leaf(10), d.add_leaf(10)));
  Costs c;
  c.promote = 100;
  for (const char* policy : {"ws", "adf", "dfd", "fifo"})
    for (unsigned p : {1u, 2u}) {
      SCOPED_TRACE(std::string(policy) + " P=" + std::to_string(p));
      EXPECT_EQ(run(d, policy, p, c).exec_span, 110.0);
    }
  const Dag fib = make_fib(8);
  for (unsigned p : {1u, 3u})
    EXPECT_EQ(run(fib, "fifo", p, c).exec_span, fib.span_with_fork_cost(100)) << "P=" << p;
}

// Costs::detach (TBB's continuation-passing loops): a loop piece that does not wait for its stolen
// sub-ranges still has every node run once, its work conserved and its memory freed, with and
// without leapfrogging; and pieces do detach (the rule acts) wherever a loop piece is stolen.
TEST(Engine, DetachedLoopPiecesStillRunEveryNodeOnce) {
  for (const char* spec : {"nqueens:7", "loops:5:37:3", "uts-geo:7:3:2:10", "alg5:20:50", "fib:12"}) {
    const Dag d = make_dag(spec);
    const auto totals = d.root_totals();
    const auto expected = serial_starts(d);
    for (const char* policy : {"ws", "ws-ap", "lazy-df", "lazy-df2", "lazy-bf", "heartbeat"})
      for (bool leapfrog : {true, false})
        for (unsigned p : {1u, 2u, 8u, 64u}) {
          SCOPED_TRACE(std::string(spec) + " " + policy + " P=" + std::to_string(p) +
                       (leapfrog ? " leapfrog" : " random"));
          Costs c;
          c.detach = true;
          c.leapfrog = leapfrog;
          const RunResult r = run_checked(d, expected, totals, policy, p, c, 3);
          if (p == 1) EXPECT_EQ(r.detached, 0u);
        }
  }
  // nqueens's nested loops under ws at 8 processors: stolen pieces that split again are the rule.
  Costs c;
  c.detach = true;
  const RunResult r = run(make_dag("nqueens:8"), "ws", 8, c);
  EXPECT_GT(r.detached, 0u);
  EXPECT_EQ(run(make_dag("nqueens:8"), "wool", 8, c).detached, 0u);  // wool's halves are joins
  c.detach = false;
  EXPECT_EQ(run(make_dag("nqueens:8"), "ws", 8, c).detached, 0u);
}

// One test per DAG, so that a failure names its DAG.  (ctest runs them in one process since stop
// 37, cmake/WeftTestGroups.cmake; under ASan 58 s with a quota of 1 for the nar trees, 8.4 s now.)
class EngineQuota : public testing::TestWithParam<const char*> {};

TEST_P(EngineQuota, ThreadSchedulersWithAQuotaStillRunEveryNodeOnce) {
  // adf/dfd with a finite K preempt threads, give deques up and run dummy threads (NAR §7.2.2);
  // nothing may be lost or run twice, and all memory comes back.
  const char* const spec = GetParam();
  const Dag d = make_dag(spec);
  const auto totals = d.root_totals();
  const auto expected = serial_starts(d);
  // The smallest quota: 1 byte, except under NAR §7.2.1's trees (nar:G:M): their threads allocate
  // megabytes in all (M2: 256 KB at the root, halving per level; M3: 40 KB at depth 6), the
  // engine's events grow as allocation / K (a dummy thread per K bytes, NAR §7.2.2), and K = 1 took
  // 4 s a DAG at -O3, 27 s under ASan.  8 still preempts at each of their large allocations and
  // at most of M3's small ones (0-48 bytes).
  const std::uint64_t smallest_quota = std::string_view(spec).starts_with("nar:") ? 8 : 1;
  for (const char* policy : {"adf", "dfd", "fifo"})
    for (std::uint64_t k : {smallest_quota, std::uint64_t(64), std::uint64_t(4096)})
      for (unsigned p : {1u, 3u, 16u}) {
        SCOPED_TRACE(std::string(spec) + " " + policy + " K=" + std::to_string(k) + " P=" + std::to_string(p));
        Costs c;
        c.quota = k;
        c.steal = 3;
        std::vector<std::uint64_t> starts(d.size(), 0);
        const RunResult r = run(d, policy, p, c, 5, &starts);
        EXPECT_EQ(starts, expected);
        EXPECT_EQ(r.raw_work, totals.work);
        EXPECT_EQ(r.memory_at_end, 0u);
        EXPECT_GE(r.exec_span, totals.span);
      }
}

INSTANTIATE_TEST_SUITE_P(Dags, EngineQuota,
                         testing::Values("fib:12", "nqueens:6", "loops:4:33:3", "nar:1:2:8", "nar:3:3:9",
                                         "nar-lb:16:40:500"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(Engine, ThreadSchedulersRunALoopAsABalancedForkTreeOfItsIterations) {
  // Under adf, dfd and fifo a loop of n iterations is a balanced fork tree (README, "The model"):
  // n - 1 forks, 2n - 1 threads with the loop's own.  A part of one iteration was a thread of its
  // own that then "forked" the iteration's thread as its only child, and the loop node made one
  // more such part for its whole range: 2n forks a loop, each paying `join` (fifo: a promotion
  // and a take from its queue too), and as many extra live threads (the sim hunt of stop 50:
  // loops:3:4:5 counted 30 joins where its trees hold 11, fifo 41 promotions for 22 threads).
  // The forks a serial run meets, from the DAG alone: a pair 1, a loop of n iterations n - 1 (a
  // loop of one iteration runs it as a call).
  for (const char* spec : {"loops:3:4:5", "loops:1:2:5", "loops:2:4:5", "nqueens:6", "uts-geo:5:2:3:7", "fib:9"}) {
    const Dag d = make_dag(spec);
    const std::vector<std::uint64_t> starts = serial_starts(d);
    std::uint64_t forks = 0;
    for (std::uint32_t i = 0; i < d.size(); ++i) {
      const Node& n = d.node(i);
      if (n.kind == NodeKind::pair) forks += starts[i];
      if (n.kind == NodeKind::loop && n.count > 0) forks += starts[i] * (n.count - 1);
    }
    for (const char* policy : {"adf", "dfd", "fifo"}) {
      const bool fifo = std::string(policy) == "fifo";
      for (unsigned p : {1u, 3u}) {
        SCOPED_TRACE(std::string(spec) + " " + policy + " P=" + std::to_string(p));
        const RunResult r = run(d, policy, p);
        EXPECT_EQ(r.joins, forks);
        // A fork makes one thread ready (the other runs at once), fifo's both.
        EXPECT_EQ(r.promotions, fifo ? 2 * forks : forks);
        if (fifo && p == 1) EXPECT_EQ(r.thefts, 2 * forks);  // every thread but the root taken from the queue
      }
    }
  }
  // Breadth first on one processor, a loop of loops whose leaves are all at one depth has every
  // thread live before its first leaf runs (as FifoRunsBreadthFirst's tree): 1 + 2 + 4 + 8.
  EXPECT_EQ(run(make_dag("loops:2:4:5"), "fifo", 1).live_items_peak, 15u);
}

TEST(Engine, ThreadSchedulersPastTheForkLimitRunJoinsInline) {
  // The runtime's fork limit (config::fiber_fork_limit; the `fork_limit` cost): with that many
  // threads live a fork makes no thread ready — its children run on its processor, left then right,
  // at a join's cost and no promotion.  Every node still runs once, and the live threads stay within
  // the limit plus one (a fork below it makes two).  At a limit of 1 only the root lives: no
  // promotion at all, every fork a join.  fifo, breadth first, held all 2,047 threads of a
  // 1,024-leaf tree at once without a limit (FifoRunsBreadthFirst in policy_test.cpp).
  for (const char* spec : {"fib:12", "loops:2:4:5", "nqueens:6"}) {
    const Dag d = make_dag(spec);
    const std::vector<std::uint64_t> expected = serial_starts(d);
    const NodeTotals totals = d.root_totals();
    const std::uint64_t forks = run(d, "adf", 1).joins;
    for (const char* policy : {"adf", "dfd", "fifo"}) {
      for (unsigned p : {1u, 4u}) {
        for (std::uint64_t limit : {1u, 4u, 16u}) {
          SCOPED_TRACE(std::string(spec) + " " + policy + " P=" + std::to_string(p) + " fork_limit=" + std::to_string(limit));
          Costs c;
          c.fork_limit = limit;
          const RunResult r = run_checked(d, expected, totals, policy, p, c, 1);
          EXPECT_EQ(r.joins, forks) << "every fork a join, inline or not";
          EXPECT_LE(r.live_items_peak, limit + 1);
          if (limit == 1) EXPECT_EQ(r.promotions, 0u);
        }
      }
    }
  }
  // Breadth first, fifo at P = 1 fills the limit (fib:12 holds far more threads without it).
  Costs c;
  c.fork_limit = 16;
  EXPECT_GT(run(make_dag("fib:12"), "fifo", 1).live_items_peak, 100u);
  EXPECT_GE(run(make_dag("fib:12"), "fifo", 1, c).live_items_peak, 16u);
  EXPECT_EQ(cost_preset("calibrated", "fifo").fork_limit, 4096u) << "the runtime's default";
  EXPECT_EQ(Costs{}.fork_limit, 0u) << "NAR's rule in the default preset";
}

TEST(Engine, ZeroCostWorkStealingMeetsTheGreedyBound) {
  // With every overhead 0, ws keeps every fork stealable and a zero-latency thief looks at every
  // deque, so no worker idles while a deque holds work: makespan <= W/P + S (Graham's bound).
  // Leapfrogging is not greedy (a blocked worker waits while other deques hold work; measured:
  // up to 0.7% over the bound on uts-geo:8:3:4), so here blocked joins steal from anyone.
  Costs c = zero_costs();
  c.leapfrog = false;
  for (const char* spec : {"fib:16", "nqueens:8", "uts-geo:8:3:4:20", "nar:1:1:10", "nar:2:2:10"}) {
    const Dag d = make_dag(spec);
    const auto t = d.root_totals();
    for (unsigned p : {1u, 2u, 3u, 7u, 16u, 64u, 256u}) {
      SCOPED_TRACE(std::string(spec) + " P=" + std::to_string(p));
      const RunResult r = run(d, "ws", p, c, 3);
      EXPECT_LE(double(r.makespan), t.work / p + t.span);
      EXPECT_GE(double(r.makespan), std::max(t.work / p, t.span));
      EXPECT_EQ(r.exec_span, t.span);  // every fork promoted at no cost: the DAG's own span
    }
  }
  // Not with work after a join (none of the DAGs above has any; recorded DAGs have it at every
  // join): a worker blocked at a join steals, as the runtime's do, and runs what it stole to its end
  // before it goes on after its join, so that work waits while others idle.  Found by the bug hunt
  // of 2026-11-29 (random DAG files; README said zero-cost runs were greedy, without this
  // exception): join(join(17; 0, join(2, 100); then 50), join(0, join(100; 0, 1000))) ends at 1150
  // at P = 64, over W/P + S = 1119.8: the worker blocked at the first join took the 1000-unit
  // strand, its 50 units after the join waited for it.  Without those 50 units the bound holds.
  for (const Time after : {Time(50), Time(0)}) {
    Dag d;
    const auto a = d.add_pair(17, d.add_leaf(0), d.add_pair(0, d.add_leaf(2), d.add_leaf(100)), after);
    const auto b = d.add_pair(0, d.add_leaf(0), d.add_pair(100, d.add_leaf(0), d.add_leaf(1000)));
    d.set_root(d.add_pair(0, a, b));
    const auto t = d.root_totals();
    const RunResult r = run(d, "ws", 64, c, 1);
    EXPECT_EQ(r.raw_work, t.work);
    if (after > 0) EXPECT_EQ(double(r.makespan), t.span + double(after));  // 1150 > 1119.8
    else EXPECT_LE(double(r.makespan), t.work / 64 + t.span);
  }
}

TEST(Engine, SameSeedSameRunOtherSeedOtherSchedule) {
  const Dag d = make_fib(18);
  for (const auto& policy : simulated_policies()) {
    SCOPED_TRACE(policy);
    Costs c;
    c.heartbeat = 2000;
    const auto a = run(d, policy, 8, c, 11), b = run(d, policy, 8, c, 11);
    RunRecord ra{"", policy, 8, 11, c, {}, 0, a}, rb{"", policy, 8, 11, c, {}, 0, b};
    EXPECT_EQ(to_json(ra), to_json(rb));
  }
  bool differs = false;
  const auto base = run(d, "lazy-bf", 8, Costs{}, 1);
  for (std::uint64_t s = 2; s < 6 && !differs; ++s) {
    const auto other = run(d, "lazy-bf", 8, Costs{}, s);
    differs = other.makespan != base.makespan || other.thefts != base.thefts;
  }
  EXPECT_TRUE(differs) << "the victim choice should depend on the seed";
}

// At P = 2 a thief has one victim, so the seed chose nothing and every seed ran one schedule:
// `--runs 2` of the calibration check gave two identical runs, one draw from a program whose real
// steal counts swing 10-100x between runs (uts-bin under lazy-df: 47-13,810 in 7 runs of stop 62,
// as a run does or does not end in leapfrog cascades).  Two spreads of the calibrated preset make
// the seeds sample that: a steal's latency (steal_jitter) and the processors' speeds on node work
// (speed_spread).  Each varies the schedules with the seed; each schedule still runs every node once.
TEST(Engine, SpreadsOfStealLatencyAndSpeedMakeTheSeedsDifferOnTwoProcessors) {
  const Dag d = make_dag("uts-bin:400:8:0.12:5");
  const auto expected = serial_starts(d);
  const NodeTotals totals = d.root_totals();
  for (const std::string& policy : {std::string("lazy-df"), std::string("lazy-bf"), std::string("ws")}) {
    SCOPED_TRACE(policy);
    Costs c = cost_preset("calibrated", policy);
    EXPECT_EQ(c.steal_jitter, 50u);
    EXPECT_EQ(c.speed_spread, 15u);
    c.steal_jitter = 0;
    c.speed_spread = 0;
    const RunResult fixed = run(d, policy, 2, c, 1);
    ASSERT_GT(fixed.thefts, 0u);
    for (std::uint64_t s = 2; s <= 4; ++s) {
      const RunResult r = run(d, policy, 2, c, s);
      EXPECT_EQ(r.makespan, fixed.makespan) << "P = 2 without the spreads: the seed chooses nothing";
      EXPECT_EQ(r.thefts, fixed.thefts);
      EXPECT_EQ(r.steal_time, double(r.thefts) * double(c.steal));
    }
    for (const bool speeds : {false, true}) {
      SCOPED_TRACE(speeds ? "speed_spread" : "steal_jitter");
      Costs v = c;
      (speeds ? v.speed_spread : v.steal_jitter) = speeds ? 10 : 50;
      bool differs = false;
      for (std::uint64_t s = 1; s <= 6; ++s) {
        const RunResult r = run_checked(d, expected, totals, policy, 2, v, s);
        ASSERT_GT(r.thefts, 0u);
        EXPECT_GE(r.idle, 0.0);
        // Each steal costs within [0.5, 1.5] x steal.
        EXPECT_GE(r.steal_time, 0.5 * double(r.thefts) * double(v.steal));
        EXPECT_LE(r.steal_time, 1.5 * double(r.thefts) * double(v.steal) + double(r.thefts));
        if (speeds) EXPECT_EQ(r.steal_time, double(r.thefts) * double(v.steal));
        differs = differs || r.makespan != fixed.makespan || r.thefts != fixed.thefts;
      }
      EXPECT_TRUE(differs) << "the spread should make the seeds' schedules differ";
    }
  }
  // Two strands on two processors: each takes its work times its processor's factor, the factors'
  // mean 1, so one takes at least its work and neither more than 1.15 / 0.85 of it; all of it busy,
  // the reported work the DAG's.  One processor runs at 1: T1 is the fitted one.
  Dag two;
  two.add_pair(0, two.add_leaf(100000), two.add_leaf(100000));
  Costs c = zero_costs();
  c.speed_spread = 15;
  std::set<Time> seen;
  for (std::uint64_t s = 1; s <= 5; ++s) {
    const RunResult r = run(two, "ws", 2, c, s);
    EXPECT_GE(r.makespan, 100000u);
    EXPECT_LE(double(r.makespan), 100000.0 * 1.15 / 0.85 + 1);
    EXPECT_EQ(r.raw_work, 200000.0);
    EXPECT_GE(r.idle, 0.0);
    EXPECT_EQ(run(two, "ws", 1, c, s).makespan, 200000u) << "a lone processor runs at speed 1";
    seen.insert(r.makespan);
  }
  EXPECT_GT(seen.size(), 1u);
  Costs bad;
  bad.steal_jitter = 101;
  EXPECT_THROW(check_costs(bad, "lazy-df"), CostRefused);
  bad = Costs{};
  bad.speed_spread = 51;
  EXPECT_THROW(check_costs(bad, "lazy-df"), CostRefused);
  bad.speed_spread = 10;
  EXPECT_THROW(check_costs(bad, "adf"), CostRefused) << "the thread engines do not model it";
  EXPECT_NO_THROW(check_costs(cost_preset("calibrated", "dfd"), "dfd"));
  EXPECT_EQ(Costs{}.steal_jitter, 0u) << "the default preset's studies keep a fixed steal cost";
  EXPECT_EQ(Costs{}.speed_spread, 0u) << "and processors of one speed";
}

TEST(Engine, BadSettingsAreRejected) {
  const Dag d = make_fib(5);
  EXPECT_THROW(run(d, "ws", 0), std::invalid_argument);
  EXPECT_THROW(policy_by_name("cilk"), std::invalid_argument);
  Costs c;
  EXPECT_THROW(set_cost(c, "steal"), std::invalid_argument);
  EXPECT_THROW(set_cost(c, "stael=3"), std::invalid_argument);
  EXPECT_THROW(set_cost(c, "steal=-3"), std::invalid_argument);
  EXPECT_THROW(set_cost(c, "ap_k=0"), std::invalid_argument);
  // wool_step 0: a stolen trip wire grew the public window by nothing (stop 50's hunts left it,
  // stop 52's siminput hunt refused it); the value is left as it was.
  try {
    set_cost(c, "wool_step=0");
    ADD_FAILURE() << "wool_step=0 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--cost wool_step: must be at least 1");
  }
  EXPECT_EQ(c.wool_step, Costs{}.wool_step);
  set_cost(c, "heartbeat=0");
  EXPECT_THROW(run(d, "heartbeat", 2, c), std::invalid_argument);
  set_cost(c, "steal=77");
  EXPECT_EQ(c.steal, 77u);
  // A value past 2^64 - 1 is too large, not "not a non-negative integer" (the sim hunt of stop 50).
  const auto error_of = [](const char* assignment) {
    Costs k;
    try {
      set_cost(k, assignment);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("steal=99999999999999999999"),
            "--cost steal: 99999999999999999999 is above 2^40 = 1099511627776, the largest value the simulator takes");
  EXPECT_EQ(error_of("leapfrog=99999999999999999999"), "--cost leapfrog: accepted values are 0 and 1");
  EXPECT_NE(error_of("stael=99999999999999999999").find("unknown name 'stael'"), std::string::npos);
}

// Costs that only make sense ordered or nonzero are refused, naming them, under every policy
// (the thread engines too: a bad sweep value fails every run alike).  Found by stop 50's hunts,
// fixed by stop 52's siminput hunt: chunk_low above chunk_high ran with chunks that doubled
// without end (never under chunk_low, never over chunk_high).
TEST(Engine, CostsThatOnlyMakeSenseOrderedAreRefused) {
  const Dag d = make_dag("loops:4:8:100");
  const auto error_of = [&](const Costs& c, const std::string& policy) {
    try {
      run(d, policy, 2, c);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  for (const auto& policy : simulated_policies()) {
    SCOPED_TRACE(policy);
    Costs c;
    c.heartbeat = 1000;
    c.chunk_low = 3000;
    c.chunk_high = 2000;
    EXPECT_EQ(error_of(c, policy),
              "--cost chunk_low: 3000 is above chunk_high 2000 (a chunk doubles while it takes under chunk_low "
              "units and halves over chunk_high: chunk_low must be at most chunk_high; chunk_low=0 runs "
              "loops unchunked)");
    c.chunk_high = 3000;  // equal: a chunk neither grows nor shrinks between them
    EXPECT_EQ(error_of(c, policy), "accepted");
    c.chunk_low = 0;  // unchunked: chunk_high unused (the calibrated preset's chunk_high stays)
    c.chunk_high = 0;
    EXPECT_EQ(error_of(c, policy), "accepted");
    // poll_first is modelled for unchunked loops: with chunks on it changed nothing, so it is refused.
    c.poll_first = true;
    EXPECT_EQ(error_of(c, policy), "accepted");
    c.chunk_low = c.chunk_high = 2000;
    EXPECT_EQ(error_of(c, policy),
              "--cost poll_first: 1 is for unchunked loops (chunk_low 0; it is 2000): a chunked piece polls after "
              "each chunk, as the runtime's, never before its first");
    c.poll_first = false;
    c.chunk_low = c.chunk_high = 0;
  }
  // The steal backoff, on (backoff > 0): backoff_first 0 waited 0 units each time, counted as
  // steal_backoffs all the same (0 doubles to 0); backoff_small 0 made no theft small, so it never
  // waited; backoff_first above backoff waited backoff at once (found by stop 52's siminput hunt).
  // backoff=0 is the switch off, whatever the other two are (the calibrated preset's stay).
  for (const auto& policy : simulated_policies()) {
    SCOPED_TRACE(policy);
    Costs c;
    c.heartbeat = 1000;
    c.backoff = 4000;
    c.backoff_small = 5000;
    c.backoff_first = 0;
    EXPECT_EQ(error_of(c, policy),
              "--cost backoff_first: must be at least 1 while backoff is on (4000): each wait doubles the last "
              "one from backoff_first; backoff=0 turns the backoff off");
    c.backoff_first = 5000;
    EXPECT_EQ(error_of(c, policy),
              "--cost backoff_first: 5000 is above backoff 4000 (the first wait, doubled per small theft in a "
              "row up to backoff, the longest)");
    c.backoff_first = 500;
    c.backoff_small = 0;
    EXPECT_EQ(error_of(c, policy),
              "--cost backoff_small: must be at least 1 while backoff is on (4000): a theft is small under "
              "backoff_small units, and with 0 none is, so no wait ever comes; backoff=0 turns the backoff off");
    c.backoff_small = 1;
    EXPECT_EQ(error_of(c, policy), "accepted");
    c.backoff = 0;
    c.backoff_small = 0;
    c.backoff_first = 9000;
    EXPECT_EQ(error_of(c, policy), "accepted");
  }
  // In a cost file, the line that set either cost of the pair (the calibrated preset's chunk_low is 7700).
  const std::string path = ::testing::TempDir() + "weft_sim_pair_costs.txt";
  std::ofstream(path) << "steal=5\nchunk_high=7000\n";
  try {
    cost_preset("file:" + path, "lazy-bf");
    ADD_FAILURE() << "chunk_high below the preset's chunk_low was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("file:" + path + " line 2: chunk_low: 7700 is above chunk_high 7000"),
              std::string::npos) << e.what();
  }
}

// A failed steal attempt costs `probe` (the runtime's idle loop retries at once, idle.cpp), a
// successful one `steal`: on one long strand the second worker only fails, so it makes about
// makespan / probe attempts, and probe = 0 falls back to `steal` per attempt.  Under every
// policy: the thread engine (adf, dfd, fifo) charged `steal` for every failed attempt whatever
// `probe` was (stop 48's sim hunt), so `--costs calibrated` ran them at 11,800 units a failed look
// while their JSON said probe = 1,000.
TEST(Engine, FailedStealAttemptsCostProbe) {
  Dag d;
  d.add_leaf(100000);
  for (const auto& policy : simulated_policies()) {
    SCOPED_TRACE(policy);
    Costs c;
    c.steal = 1000;
    c.probe = 100;
    const RunResult cheap = run(d, policy, 2, c);
    c.probe = 0;
    const RunResult dear = run(d, policy, 2, c);
    EXPECT_EQ(cheap.thefts, 0u);
    EXPECT_NEAR(double(cheap.steal_attempts), 100000.0 / 100, 2);
    EXPECT_NEAR(double(dear.steal_attempts), 100000.0 / 1000, 2);
    EXPECT_EQ(cheap.makespan, dear.makespan);
  }
}

TEST(Engine, AnIdleTheftCountsTheTimeItsThiefSpentOnIt) {
  // pair(leaf 1000, leaf 300) on 2 processors under eager ws: the second branch is pushed at the
  // join, the other processor steals it (a steal costs 50) and runs its 300 units, then goes back to
  // its idle loop: one idle theft done, 300 units of its own.  A leapfrog is no idle theft.
  Dag d;
  const auto left = d.add_leaf(1000);
  const auto right = d.add_leaf(300);
  d.add_pair(0, left, right);
  Costs c = zero_costs();
  c.steal = 50;
  const RunResult r = run(d, "ws", 2, c);
  EXPECT_EQ(r.thefts, 1u);
  EXPECT_EQ(r.leapfrogs, 0u);
  EXPECT_EQ(r.idle_thefts_done, 1u);
  EXPECT_EQ(r.idle_theft_time, 300.0);
  for (const char* spec : {"fib:14", "nqueens:7", "uts-bin:20:4:0.2:3"}) {
    const Dag g = make_dag(spec);
    for (const std::string& policy : {std::string("lazy-df"), std::string("lazy-bf"), std::string("wool")}) {
      const RunResult x = run(g, policy, 8);
      EXPECT_LE(x.idle_thefts_done, x.thefts - x.leapfrogs) << spec << " " << policy;
      EXPECT_LE(x.leapfrogs_from_thief, x.leapfrogs) << spec << " " << policy;
      EXPECT_LE(x.idle_theft_time, double(x.makespan) * 8) << spec << " " << policy;
    }
  }
}

TEST(Engine, CostPresets) {
  const Costs cal = cost_preset("calibrated", "lazy-bf");
  EXPECT_GT(cal.probe, 0u);
  EXPECT_LT(cal.probe, cal.steal);  // a failed look is cheaper than a migration
  EXPECT_EQ(cost_preset("default", "ws").steal, Costs{}.steal);
  // The runtime's eager join (a deque push and pop per join) costs more than a lazy one.
  const Costs ws = cost_preset("calibrated", "ws");
  EXPECT_GT(ws.promote + ws.pop, cal.join + cal.check);
  try {
    cost_preset("fast", "ws");
    FAIL() << "an unknown preset was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: default, calibrated, file:PATH"), std::string::npos);
  }
}

// A machine's own calibration file (`--costs file:PATH`, sim/fit_costs.py --out): the calibrated
// preset with the file's values over it; "name=value" for every policy, "POLICY.name=value" for
// one; a bad line fails with its file and line, whichever policy is asked for.
TEST(Engine, CostFileOverridesTheCalibratedPresetPerPolicy) {
  const std::string path = ::testing::TempDir() + "weft_sim_costs.txt";
  auto write = [&](const char* text) { std::ofstream(path) << text; };
  write("# fitted here\nsteal = 7000\n\nwool.join=7   # wool's own\nlazy-bf.join=9\n");
  const Costs wool = cost_preset("file:" + path, "wool"), bf = cost_preset("file:" + path, "lazy-bf");
  const Costs df = cost_preset("file:" + path, "lazy-df"), cal = cost_preset("calibrated", "lazy-df");
  EXPECT_EQ(wool.steal, 7000u);
  EXPECT_EQ(bf.steal, 7000u);
  EXPECT_EQ(wool.join, 7u);
  EXPECT_EQ(bf.join, 9u);
  EXPECT_EQ(df.join, cal.join);                // not named: the calibrated preset's
  EXPECT_EQ(df.chunk_low, cal.chunk_low);
  auto error_of = [&](const char* text) -> std::string {
    write(text);
    try {
      cost_preset("file:" + path, "ws");
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(error_of("join=1\nwool.jion=3\n").find("line 2: --cost: unknown name 'jion'"), std::string::npos);
  EXPECT_NE(error_of("cilk.join=3\n").find("line 1: policy: unknown 'cilk'"), std::string::npos);
  EXPECT_NE(error_of("join=-1\n").find("line 1:"), std::string::npos);
  // Stop 41's bug hunt: a name given twice (the last won), a blank inside a name or value (stripped:
  // "st eal" set steal), and a value the policy cannot take (reported as `--cost heartbeat`, without
  // the file) are refused with the file and line.
  EXPECT_NE(error_of("steal=5\n# again\nsteal = 6\n").find("line 3: steal is named twice (first on line 1)"),
            std::string::npos);
  EXPECT_NE(error_of("wool.join=5\nwool.join=6\n").find("line 2: wool.join is named twice"), std::string::npos);
  EXPECT_NE(error_of("st eal = 5\n").find("line 1: 'st eal' has a blank inside it"), std::string::npos);
  EXPECT_NE(error_of("steal = 5 0\n").find("line 1: '5 0' has a blank inside it"), std::string::npos);
  EXPECT_EQ(error_of("steal=5\nws.steal=6\n"), "accepted");  // one for all, one for ws: two names
  // A byte-order mark before the first name made it "unknown name '\xef\xbb\xbfsteal'", the mark invisible.
  EXPECT_EQ(error_of("\xef\xbb\xbfsteal=5\n"), "accepted");
  EXPECT_EQ(cost_preset("file:" + path, "ws").steal, 5u);
  // A file with no value at all (a failed write left it empty, or only its header line) ran the
  // built-in preset as if it were the machine's own calibration (the sim hunt of stop 50).
  for (const char* empty : {"", "\n\n", "# weft-sim costs (0.1 ns) fitted by sim/fit_costs.py to x\n"})
    EXPECT_NE(error_of(empty).find(path + ": no cost values in it"), std::string::npos) << error_of(empty);
  // The policy's own line wins over the line for all, in either order (stop 48's sim hunt: a
  // `steal=` line after `ws.steal=` replaced ws's value, and `heartbeat=0` after
  // `heartbeat.heartbeat=` refused heartbeat's runs).
  for (const char* text : {"ws.steal=6\nsteal=5\n", "steal=5\nws.steal=6\n"}) {
    write(text);
    EXPECT_EQ(cost_preset("file:" + path, "ws").steal, 6u) << text;
    EXPECT_EQ(cost_preset("file:" + path, "lazy-bf").steal, 5u) << text;
  }
  write("heartbeat.heartbeat=9\nheartbeat=0\n");
  EXPECT_EQ(cost_preset("file:" + path, "heartbeat").heartbeat, 9u);
  EXPECT_EQ(cost_preset("file:" + path, "ws").heartbeat, 0u);
  // A file cut inside its last number reads as a smaller number.  A hand-written file may lack its
  // final newline (accepted, the value as written), but sim/fit_costs.py's (its header line says so)
  // always ends with one: without it, the file was cut (it ran with steal=11 for 11800).
  const char* fitted = "# weft-sim costs (0.1 ns) fitted by sim/fit_costs.py to x\ncheck=10\nsteal=11";
  EXPECT_NE(error_of(fitted).find(path + " line 3: the file ends inside this line (no newline after it), and "
                                         "sim/fit_costs.py ends its files with one: a truncated file?"),
            std::string::npos)
      << error_of(fitted);
  EXPECT_EQ(error_of((std::string(fitted) + "800\n").c_str()), "accepted");
  EXPECT_EQ(error_of("# my costs\ncheck=10\nsteal=11"), "accepted");  // hand-written: no newline needed
  EXPECT_EQ(cost_preset("file:" + path, "ws").steal, 11u);
  write("steal=5\nheartbeat.heartbeat=0\n");
  try {
    cost_preset("file:" + path, "heartbeat");
    FAIL() << "heartbeat=0 was accepted under heartbeat";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(path + " line 2: heartbeat: N must be at least 1"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cost_preset("file:" + path, "ws").heartbeat, 400000u);  // not ws's value: the preset's
  // A directory is not a cost file (stop 42: it read as empty, and the calibrated preset ran).
  try {
    cost_preset("file:" + ::testing::TempDir(), "ws");
    FAIL() << "a directory was accepted as a cost file";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos);
  }
  try {
    cost_preset("file:/nonexistent/costs.txt", "ws");
    FAIL() << "a missing cost file was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos);
  }
  // "file:" alone says the path is empty, as --dag file: does (stop 52's siminput hunt: "cannot
  // read the file", which file unsaid).
  try {
    cost_preset("file:", "ws");
    FAIL() << "an empty path was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--costs file:: the path is empty (file:PATH)");
  }
}

// Time sharing (slice_on/slice_off): a worker that is off its processor half the time takes about
// twice as long; no work is lost or run twice, and the off time is reported.
TEST(Engine, TimeSharingStretchesTheMakespanByTheShare) {
  const Dag d = make_dag("loops:1:2:1000000");
  Costs c;
  const RunResult dedicated = run(d, "lazy-bf", 2, c);
  c.slice_on = 10000;
  c.slice_off = 10000;
  const RunResult shared = run(d, "lazy-bf", 2, c);
  EXPECT_EQ(shared.raw_work, d.root_totals().work);
  EXPECT_GT(shared.descheduled, 0.0);
  const double stretch = double(shared.makespan) / double(dedicated.makespan);
  EXPECT_GT(stretch, 1.9);
  EXPECT_LT(stretch, 2.1);
}

// A run whose clocks would pass 2^62 units stops with TimeLimitExceeded (stop 42's bug hunt: 4.2 M
// iterations at iter = 2^40 wrapped a clock, and a negative idle time was reported; a strand of 2^40
// units across slices of 1 wrapped it in one step); just below, the figures are whole.
TEST(Engine, ClocksStopAtTheirLimitInsteadOfWrapping) {
  Costs c;
  c.iter = kMaxTimeValue;
  EXPECT_THROW(run(make_dag("loops:2100:2000:0"), "lazy-bf", 1, c), TimeLimitExceeded);
  const RunResult below = run(make_dag("loops:2000:2000:0"), "lazy-bf", 1, c);
  EXPECT_GE(double(below.makespan), 4e6 * double(kMaxTimeValue));
  // The totals are doubles: past 2^53 units the polls' single units are rounded off the overhead.
  EXPECT_NEAR(double(below.makespan), below.overhead, 1e-9 * double(below.makespan));
  EXPECT_GE(below.idle, 0);
  EXPECT_LT(below.idle, 1e-9 * double(below.makespan));
  Costs sliced;
  sliced.slice_on = 1;
  sliced.slice_off = kMaxTimeValue;
  EXPECT_THROW(run(make_dag("fib:3:1099511627776"), "ws", 1, sliced), TimeLimitExceeded);
}
