// Each policy's defining behaviour on a tiny DAG: what it promotes, when, and how it splits loops.
#include <gtest/gtest.h>

#include <string>

#include "engine.hpp"
#include "generators.hpp"

using namespace weft_sim;

namespace {

struct Probe {
  RunResult result;
  std::vector<std::uint32_t> promoted;
};

Probe run(const Dag& d, const std::string& policy, unsigned p, const Costs& c) {
  Probe out;
  RunConfig cfg{&d, &policy_by_name(policy), c, p, 1};
  cfg.promoted_nodes = &out.promoted;
  out.result = simulate(cfg);
  return out;
}

// root = pair(L1, R1), L1 = pair(L2, R2), L2 = pair(long leaf, R3): three nested joins whose
// latent branches are told apart by node id.
struct Nest {
  Dag dag;
  std::uint32_t r1, r2, r3;
};

Nest nested_joins(Time root_work) {
  Nest n;
  const auto body = n.dag.add_leaf(1000);
  n.r3 = n.dag.add_leaf(7);
  n.r2 = n.dag.add_leaf(8);
  n.r1 = n.dag.add_leaf(9);
  const auto l2 = n.dag.add_pair(0, body, n.r3);
  const auto l1 = n.dag.add_pair(0, l2, n.r2);
  n.dag.add_pair(root_work, l1, n.r1);
  return n;
}

}  // namespace

TEST(Policy, LazyDepthFirstPromotesTheInnermostBreadthFirstTheOldest) {
  // P = 2. The root's 20 units make the thief's first attempt (t = 0) fail; at t = 50 it steals
  // R1, which the root's poll promoted. The next poll inside the long leaf finds the deque empty
  // with L1's and L2's branches latent: DF-LS publishes R3 (innermost, LS §3.3), BF-LS R2
  // (oldest, LS §6.1).
  Costs c = zero_costs();
  c.promote = 1;
  c.steal = 50;
  c.poll = 10;
  const Nest n = nested_joins(20);
  const auto df = run(n.dag, "lazy-df", 2, c);
  const auto bf = run(n.dag, "lazy-bf", 2, c);
  ASSERT_GE(df.promoted.size(), 2u);
  ASSERT_GE(bf.promoted.size(), 2u);
  EXPECT_EQ(df.promoted[0], n.r1);
  EXPECT_EQ(bf.promoted[0], n.r1);
  EXPECT_EQ(df.promoted[1], n.r3);
  EXPECT_EQ(bf.promoted[1], n.r2);
}

// A second processor whose steals take longer than any of these runs: nothing is stolen, but the
// lazy trigger is on (on one processor it is off, as in the runtime's one-worker pool).
constexpr Time never = Time(1) << 40;

TEST(Policy, LazyThresholdTwoKeepsTwoItemsPublished) {
  // Nothing is stolen: DF-LS publishes until its deque holds 1 item, DF2-LS 2.
  Costs c = zero_costs();
  c.steal = never;
  const Nest n = nested_joins(0);
  EXPECT_EQ(run(n.dag, "lazy-df", 2, c).promoted, (std::vector<std::uint32_t>{n.r1}));
  EXPECT_EQ(run(n.dag, "lazy-df2", 2, c).promoted, (std::vector<std::uint32_t>{n.r1, n.r2}));
}

TEST(Policy, ACheckReadsTheDequeAgainAfterEachPush) {
  // One loop of 16 iterations of 100 units, DF2-LS on 2 processors, a push costs 10.  At the poll
  // after iteration 0 (t = 100) the deque is empty: the owner pushes [8,16) and, still short of 2,
  // reads the size again after the push (t = 110), as the runtime's loop re-reads the shared deque
  // (LS §6.2's delay).  A thief that looks every unit takes [8,16) inside that window, so the same
  // check pushes [4,8) and then [2,4) — outer halves — before iteration 1 runs.  A thief that looks
  // every 30 units comes at t = 120, after the check filled the deque with [8,16) and [4,8): the
  // next push is at the poll after iteration 1, half of what is left, [3,4).  (Before stop 31 the
  // check was one instant: [8,16), [4,8), then [3,4) whatever the thief did.)
  const Dag loop = make_nested_loops(1, 16, 100);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> quick, slow;
  Costs c = zero_costs();
  c.promote = 10;
  c.steal = 5000;
  RunConfig cfg{&loop, &policy_by_name("lazy-df2"), c, 2, 1};
  cfg.costs.probe = 1;
  cfg.promoted_ranges = &quick;
  const RunResult rq = simulate(cfg);
  cfg.costs.probe = 30;
  cfg.promoted_ranges = &slow;
  const RunResult rs = simulate(cfg);
  using range = std::pair<std::uint64_t, std::uint64_t>;
  ASSERT_GE(quick.size(), 3u);
  ASSERT_GE(slow.size(), 3u);
  EXPECT_EQ(std::vector<range>(quick.begin(), quick.begin() + 3), (std::vector<range>{{8, 16}, {4, 8}, {2, 4}}));
  EXPECT_EQ(std::vector<range>(slow.begin(), slow.begin() + 3), (std::vector<range>{{8, 16}, {4, 8}, {3, 4}}));
  EXPECT_EQ(rq.raw_work, 1600.0);
  EXPECT_EQ(rs.raw_work, 1600.0);
}

TEST(Policy, LazyPoliciesNeverPromoteOnOneProcessor) {
  // LS's trigger keeps items for thieves; one processor has none (src/sched_deque.cpp's rule).
  const Nest n = nested_joins(0);
  const Dag loops = make_nested_loops(2, 30, 5);
  for (const char* policy : {"lazy-df", "lazy-df2", "lazy-bf"}) {
    EXPECT_TRUE(run(n.dag, policy, 1, zero_costs()).promoted.empty()) << policy;
    const auto r = run(loops, policy, 1, Costs{}).result;
    EXPECT_EQ(r.promotions, 0u) << policy;
    EXPECT_GT(r.polls, 0u) << policy;
  }
}

TEST(Policy, HeartbeatPromotesTheOldestOncePerPeriod) {
  // One worker, N = 300, polls every 10 units in the 1000-unit leaf: beats at t >= 300, 600, 900
  // promote R1, R2, R3 in that order (oldest first, HB §2), whatever the deque holds.
  Costs c = zero_costs();
  c.poll = 10;
  c.heartbeat = 300;
  const Nest n = nested_joins(0);
  const auto hb = run(n.dag, "heartbeat", 1, c);
  EXPECT_EQ(hb.promoted, (std::vector<std::uint32_t>{n.r1, n.r2, n.r3}));
  EXPECT_EQ(hb.result.beats, 3u);
}

TEST(Policy, WorkStealingPromotesEveryJoinAndHalvesLoopsToSingleIterations) {
  const Dag fib = make_fib(12);
  const auto r = run(fib, "ws", 1, Costs{}).result;
  EXPECT_EQ(r.promotions, r.joins);  // LS §2.2: every second branch is pushed at once
  EXPECT_EQ(r.pops, r.joins);        // one worker takes every one of them back
  const Dag loop = make_nested_loops(1, 1000, 5);
  const auto l = run(loop, "ws", 4, Costs{}).result;
  EXPECT_EQ(l.loop_splits, 1000u - 1);  // split in halves down to grain 1: n - 1 splits
}

TEST(Policy, AutoPartitionerMakesKTimesPChunksWithoutThefts) {
  // TBB's auto partitioner (LS l.136–153): K·P chunks, halved per split, so K·P - 1 splits when
  // nothing is stolen (one worker); a stolen chunk is re-split up to V pieces.
  const Dag loop = make_nested_loops(1, 1000, 5);
  for (std::uint64_t k : {1u, 4u, 8u, 16u}) {
    Costs c;
    c.ap_k = k;
    EXPECT_EQ(run(loop, "ws-ap", 1, c).result.loop_splits, k - 1) << "K = " << k;
  }
  Costs c;
  const auto eight = run(loop, "ws-ap", 8, c).result;
  EXPECT_GT(eight.thefts, 0u);
  EXPECT_GE(eight.loop_splits, 4u * 8 - 1);
  c.ap_v = 1;  // without the reset on theft exactly K·P chunks remain
  EXPECT_EQ(run(loop, "ws-ap", 8, c).result.loop_splits, 4u * 8 - 1);
}

TEST(Policy, ALoopPiecePollsAfterEachIterationButNotBeforeItsFirst) {
  // As the runtime's pieces (adaptive_loop::run_chunks: a poll after each chunk): when nothing is
  // stolen every promotion of a loops-only DAG is a range that later runs as a piece of its own, so the polls are
  // the iterations less one per piece (each loop entered and each promoted range).  Polled before
  // its first iteration too, a loop let DF-LS promote the outermost loop first and then hold its
  // deque full for the rest of the run.
  const Dag loops = make_nested_loops(2, 30, 5);
  Costs c;
  c.steal = never;  // nothing stolen: the second processor only keeps the trigger on
  for (const char* policy : {"lazy-df", "lazy-df2", "lazy-bf"}) {
    const auto r = run(loops, policy, 2, c).result;
    EXPECT_GT(r.promotions, 0u) << policy;
    EXPECT_EQ(r.polls, r.iterations - r.loops - r.promotions) << policy;
  }
}

TEST(Policy, PollFirstChecksALoopPieceBeforeItsFirstIterationAsLsFigure3) {
  // Costs::poll_first (a study switch, LS Fig. 3: a TD is checked "upon creating it, popping it off
  // the local deque, or stealing it"): every piece polls before each of its iterations, its first
  // included, so with nothing stolen the polls are exactly the iterations (the runtime's rule, off:
  // the iterations less one per piece, the test above).
  const Dag loops = make_nested_loops(2, 30, 5);
  Costs c;
  c.steal = never;
  c.poll_first = true;
  for (const char* policy : {"lazy-df", "lazy-df2", "lazy-bf"}) {
    const auto r = run(loops, policy, 2, c).result;
    EXPECT_GT(r.promotions, 0u) << policy;
    EXPECT_EQ(r.polls, r.iterations) << policy;
    EXPECT_EQ(r.raw_work, 2.0 * 30 * 5) << policy;  // every iteration once
  }
  // One loop of 16 iterations of 100 units under DF-LS on 2 processors.  Polled at its entry, the
  // loop pushes [8,16) before iteration 0 runs; the thief, its deque empty, pushes half of the
  // piece it stole, [12,16), before that piece's first iteration (t = steal + promote), not after
  // it.  With the switch off the first push comes at the poll after iteration 0 (half of [1,16)).
  const Dag loop = make_nested_loops(1, 16, 100);
  Costs z = zero_costs();
  z.promote = 10;
  z.steal = 20;
  using range = std::pair<std::uint64_t, std::uint64_t>;
  for (const bool first : {true, false}) {
    std::vector<range> ranges;
    z.poll_first = first;
    RunConfig cfg{&loop, &policy_by_name("lazy-df"), z, 2, 1};
    cfg.promoted_ranges = &ranges;
    const RunResult r = simulate(cfg);
    ASSERT_GE(ranges.size(), 2u) << first;
    if (first) EXPECT_EQ(std::vector<range>(ranges.begin(), ranges.begin() + 2), (std::vector<range>{{8, 16}, {12, 16}}));
    else EXPECT_EQ(ranges.front(), (range{8, 16}));
    EXPECT_EQ(r.raw_work, 1600.0) << first;
    EXPECT_EQ(r.polls, first ? r.iterations : r.iterations - r.loops - r.thefts - r.pops) << first;
  }
}

TEST(Policy, AutoPartitionerDefersItsSplitsAsTheRuntimeDoes) {
  // Costs::ap_defer, the runtime's ap_defer_cycles: a piece makes its K·P splits only once it has
  // run that long, each piece on its own clock.  A loop of 1,000 iterations of 5 units (about 6
  // with the poll: 6,000 in all) on one worker, K·P = 4: deferred past its end it never splits;
  // deferred by 500 it splits twice after ~83 iterations (4 -> 2 -> 1 chunks) and the child range
  // of 2 chunks (~460 iterations) splits once when it has run 500 too: K·P - 1 in all; deferred
  // by 2,500 the loop splits twice after ~416 iterations, and that child (~290 iterations, ~1,750
  // units) ends before its own deferral is up.
  const Dag loop = make_nested_loops(1, 1000, 5);
  Costs c;
  c.ap_defer = 1'000'000;
  EXPECT_EQ(run(loop, "ws-ap", 1, c).result.loop_splits, 0u);
  EXPECT_EQ(run(loop, "ws-ap", 4, c).result.thefts, 0u) << "nothing to steal from a loop that never split";
  c.ap_defer = 500;
  EXPECT_EQ(run(loop, "ws-ap", 1, c).result.loop_splits, 4u - 1);
  c.ap_defer = 2'500;
  EXPECT_EQ(run(loop, "ws-ap", 1, c).result.loop_splits, 2u);
  c.ap_defer = 0;  // TBB's rule: at the piece's start
  EXPECT_EQ(run(loop, "ws-ap", 1, c).result.loop_splits, 4u - 1);
}

TEST(Policy, WoolPublishesTheOutermostDescriptorsAndGrowsOnTheTripWire) {
  // A chain of 12 nested joins over a long leaf. One worker: only task-stack positions below the
  // public limit (4) are published (WOOL §III.B).
  Dag chain;
  std::uint32_t node = chain.add_leaf(100000);
  const auto side = chain.add_leaf(10);
  for (int i = 0; i < 12; ++i) node = chain.add_pair(1, node, side);
  Costs c;
  c.poll = 100;
  const auto one = run(chain, "wool", 1, c).result;
  EXPECT_EQ(one.promotions, 4u);
  EXPECT_EQ(one.trip_wires, 0u);
  // Two workers: the thief takes positions 0, 1, 2 (the trip wire: 2nd highest public slot); the
  // owner's next poll publishes wool_step more positions.
  const auto two = run(chain, "wool", 2, c).result;
  EXPECT_GE(two.trip_wires, 1u);
  EXPECT_GT(two.promotions, 4u);
}

TEST(Policy, DepthFirstLooksAtTheInnermostTaskStackFrameOfItsOwnTaskOnly) {
  // The runtime's DF promotion (sched_deque.cpp promote_one) looks at one frame: the top of the
  // task stack, and only above the base of the task the worker runs (a leapfrogged item's, during
  // a blocked join).  root = a loop of 2 iterations, J = pair(leaf 200, S) and a leaf;
  // S = pair(leaf 1000, S2).  W0 promotes S at J; W1 steals it at once and promotes S2.  W0's
  // polls inside the leaf find J (S stolen) on top: nothing to promote, though the loop's second
  // iteration is latent below it.  At J, W0 blocks and leapfrogs S2; its polls there see no
  // frame of S2's own, and the loop below the blocked join is not theirs to promote.  After J,
  // one iteration is left: no split.  So the loop never splits.
  Dag d;
  const auto s = d.add_pair(0, d.add_leaf(1000), d.add_leaf(1000));
  const auto s2 = d.node(s).right;
  const auto j = d.add_pair(0, d.add_leaf(200), s);
  d.set_root(d.add_loop(0, std::vector<std::uint32_t>{j, d.add_leaf(10)}));
  Costs c = zero_costs();
  c.steal = 50;
  c.poll = 10;
  const auto df = run(d, "lazy-df", 2, c);
  EXPECT_EQ(df.promoted, (std::vector<std::uint32_t>{s, s2}));
  EXPECT_EQ(df.result.loop_splits, 0u);
  EXPECT_EQ(df.result.leapfrogs, 1u);
  EXPECT_EQ(df.result.thefts, 2u);
}

TEST(Policy, WoolReusesAJoinsSlotForItsSecondBranch) {
  // The runtime pops a join's frame before it calls the second branch inline, so the branch's own
  // joins take the same task-stack slot: a chain of 12 joins nested in second branches sits in
  // slot 0, public, and every one is published (one worker: none stolen); nested in first
  // branches (the test above) only the 4 below the public limit are.
  Dag spine;
  std::uint32_t node = spine.add_leaf(10);
  for (int i = 0; i < 12; ++i) node = spine.add_pair(1, spine.add_leaf(10), node);
  EXPECT_EQ(run(spine, "wool", 1, Costs{}).result.promotions, 12u);
  // A loop is a halving tree of joins there: a join is public when fewer than 4 of its ancestors
  // hold it in their first half.  64 iterations: sum over depth d < 6 of C(d, k), k < 4 = 56.
  const Dag loop = make_nested_loops(1, 64, 10);
  EXPECT_EQ(run(loop, "wool", 1, Costs{}).result.promotions, 56u);
}

TEST(Policy, ChunkedLoopsPollAfterEachChunkAsTheRuntimeDoes) {
  // Costs::chunk_low > 0: adaptive_loop::run_chunks' chunks.  A loop of one iteration around 200
  // iterations of 10 units, one worker: the inner loop's chunks are untimed 1, 2, 4, 8, 16, 32 (63
  // iterations), then 64 (the ramp's last doubling), then the first timed chunk doubles to 128 and
  // takes the remaining 73: a poll after each, 8, and one after the outer loop's only chunk.
  const Dag loop = make_nested_loops(1, 200, 10);
  Costs c = zero_costs();
  c.chunk_low = 100;
  c.chunk_high = 400;
  EXPECT_EQ(run(loop, "lazy-bf", 1, c).result.polls, 8u + 1);
  // An inner loop of 8: chunks 1, 2, 4, 1 (reductions double); growth 4 (parallel_for): 1, 4, 3.
  const Dag eight = make_nested_loops(1, 8, 10);
  EXPECT_EQ(run(eight, "lazy-bf", 1, c).result.polls, 4u + 1);
  c.chunk_growth = 4;
  EXPECT_EQ(run(eight, "lazy-bf", 1, c).result.polls, 3u + 1);
  // Unchunked (chunk_low 0): a poll before each iteration but the first (none in the outer loop).
  EXPECT_EQ(run(eight, "lazy-bf", 1, zero_costs()).result.polls, 7u);
}

TEST(Policy, AnEmptyLoopCostsNothing) {
  // loops.hpp returns before any loop code when the range is empty.
  Dag d;
  d.set_root(d.add_pair(0, d.add_loop(0, 0, d.add_leaf(5)), d.add_loop(0, 3, d.add_leaf(10))));
  Costs c = zero_costs();
  c.loop = 100;
  const auto r = run(d, "lazy-bf", 1, c).result;
  EXPECT_EQ(r.loops, 1u);
  EXPECT_EQ(r.makespan, 100u + 3 * 10);
}

TEST(Policy, LazyChecksHoldWhileTheOnlyThiefBacksOff) {
  // The runtime's hold (src/pool_runtime.hpp no_thief_looking): processor 1 steals the pair's small
  // right branch (at 100, done at 110) and then waits out a backoff longer than the loop; processor
  // 0's checks, the first after the loop's first iteration (at 1000), promote nothing, so the loop
  // runs whole on it.  Without the backoff, processor 1 takes parts of the loop.  Every lazy policy
  // (DF too since stop 28: it remembers the held check's item and promotes it first afterwards).
  Dag d;
  d.set_root(d.add_pair(0, d.add_loop(0, 1000, d.add_leaf(1000)), d.add_leaf(10)));
  for (const char* policy : {"lazy-df", "lazy-df2", "lazy-bf"}) {
    SCOPED_TRACE(policy);
    Costs c = zero_costs();
    c.steal = 100;
    c.backoff = c.backoff_first = 10000000;
    c.backoff_small = 1000;
    const auto held = run(d, policy, 2, c).result;
    EXPECT_EQ(held.thefts, 1u);
    EXPECT_EQ(held.steal_backoffs, 1u);
    EXPECT_EQ(held.promotions, 1u) << "a check promoted while the only thief was backing off";
    c.backoff = c.backoff_first = 0;
    const auto looking = run(d, policy, 2, c).result;
    EXPECT_GT(looking.thefts, 1u);
    EXPECT_GT(looking.promotions, 1u);
    EXPECT_LT(double(looking.makespan), 0.7 * double(held.makespan));
  }
}

TEST(Policy, LsAlgorithm5DefeatsBreadthFirstLazyScheduling) {
  // LS §9.4: N postponed no-op tasks above a loop of N long iterations. BF-LS publishes the
  // postponed no-ops (oldest first) while it runs the loop's iterations itself, so the loop stays
  // on one worker much longer than under eager work stealing, which splits it at once.
  const Dag d = make_ls_adversary(64, 10000);
  Costs c;
  const auto bf = run(d, "lazy-bf", 8, c).result;
  const auto ws = run(d, "ws", 8, c).result;
  EXPECT_GT(double(bf.makespan), 2.0 * double(ws.makespan));
}

TEST(Policy, HeartbeatMeetsHbTheorems2And3) {
  // HB Theorems 2-3 with per-thread credit (HB §3.4's semantics), τ = the promotion cost and no
  // other overhead: work <= (1 + τ/N)·w and span <= (1 + N/τ)·s, s with τ per fork (HB §3.1).
  for (const char* spec : {"fib:18", "nqueens:8", "loops:16:2048:20", "uts-geo:7:4:3:20"}) {
    const Dag d = make_dag(spec);
    const double w = d.root_totals().work;
    for (Time n : {100u, 400u, 2000u, 10000u})
      for (unsigned p : {1u, 8u, 64u}) {
        SCOPED_TRACE(std::string(spec) + " N=" + std::to_string(n) + " P=" + std::to_string(p));
        Costs c = zero_costs();
        c.promote = 100;
        c.steal = 200;
        c.heartbeat = n;
        c.hb_thread_credit = true;
        const auto r = run(d, "heartbeat", p, c).result;
        EXPECT_LE(r.raw_work + r.overhead, (1.0 + 100.0 / double(n)) * w);
        EXPECT_LE(r.exec_span, (1.0 + double(n) / 100.0) * d.span_with_fork_cost(100));
        EXPECT_GT(r.promotions, 0u);
      }
  }
}

TEST(Policy, HeartbeatSpareDeliveryBeatsOnlyWhileAProcessorIsFree) {
  // hb_spare (the runtime's default delivery): one processor is never free, so no beat and no
  // promotion, where thread delivery promotes every N; on several, beats only while one looks for
  // work, so no more than under thread delivery (fewer where the processors are mostly busy), and
  // the run still ends with every node run once.
  const Dag d = make_dag("fib:18");
  Costs thread;
  thread.heartbeat = 4000;
  Costs spare = thread;
  spare.hb_spare = true;
  const auto one_thread = run(d, "heartbeat", 1, thread).result;
  const auto one_spare = run(d, "heartbeat", 1, spare).result;
  EXPECT_GT(one_thread.promotions, 0u);
  EXPECT_EQ(one_spare.beats, 0u);
  EXPECT_EQ(one_spare.promotions, 0u);
  EXPECT_LT(one_spare.makespan, one_thread.makespan);  // no promotion paid for
  for (unsigned p : {2u, 8u}) {
    SCOPED_TRACE("P=" + std::to_string(p));
    const auto t = run(d, "heartbeat", p, thread).result;
    const auto s = run(d, "heartbeat", p, spare).result;
    EXPECT_GT(s.promotions, 0u);
    EXPECT_GT(s.thefts, 0u);
    if (p == 2) EXPECT_LT(s.beats, t.beats);  // on 8 processors fib(18) leaves one free nearly always
    EXPECT_LE(s.beats, t.beats);
    EXPECT_DOUBLE_EQ(s.raw_work, d.root_totals().work);
    EXPECT_LT(s.makespan, one_spare.makespan);  // it still spreads the work
  }
}

TEST(Policy, StealBackoffFollowsSmallThefts) {
  // The runtime's steal backoff (Costs::backoff): a thief back from an item of less than
  // backoff_small of its own work waits before it looks again.  Small stolen branches: waits follow
  // them (at most one per theft), and there are fewer thefts than without the backoff; fib(22)
  // with 40 units per call gives large ones at P = 2.
  // A chain of 400 joins whose latent branches are small: the owner runs down the chain, thieves
  // take the small branches (two 1500-unit leaves each, under backoff_small).
  Dag small;
  {
    const auto l1 = small.add_leaf(1500), l2 = small.add_leaf(1500);
    const auto piece = small.add_pair(0, l1, l2);
    std::uint32_t node = small.add_leaf(1500);
    for (int i = 0; i < 400; ++i) node = small.add_pair(100, node, piece);
    small.set_root(node);
  }
  Costs off;
  off.steal = 1000;
  off.probe = 100;
  Costs on = off;
  on.backoff = 256000;
  on.backoff_small = 8000;
  on.backoff_first = 1000;
  const auto a = run(small, "lazy-df", 2, off).result;
  const auto b = run(small, "lazy-df", 2, on).result;
  EXPECT_EQ(a.steal_backoffs, 0u);
  EXPECT_GT(b.steal_backoffs, 0u);
  EXPECT_LE(b.steal_backoffs, b.thefts - b.leapfrogs);
  EXPECT_LT(b.thefts, a.thefts);
  EXPECT_DOUBLE_EQ(b.raw_work, small.root_totals().work);
  const Dag big = make_dag("fib:22:40");
  const auto c = run(big, "lazy-bf", 2, on).result;
  EXPECT_GT(c.thefts, 0u);
  EXPECT_LE(c.steal_backoffs, c.thefts / 2);
}

namespace {
Costs nar_steps() {  // NAR §7.2.2: one timestep per action and per steal, nothing else
  Costs c = zero_costs();
  c.steal = 1;
  return c;
}
}  // namespace

TEST(Policy, DfdTradesGranularityForMemoryWithK) {
  // NAR Fig 7.10 (G3 + M3, a nested loop allocating 40 KB per outer iteration): smaller K, less
  // memory and smaller scheduling granularity (actions per steal); AsyncDF keeps the least memory.
  const Dag d = make_nar_tree(3, 3, 12, 1);
  Costs big = nar_steps(), small = nar_steps();
  small.quota = 100;
  const auto ws = run(d, "dfd", 32, big).result;  // K = ∞: NAR's space-efficient work stealer
  const auto dfd = run(d, "dfd", 32, small).result;
  const auto adf = run(d, "adf", 32, small).result;
  EXPECT_LT(2 * dfd.memory_peak, ws.memory_peak);
  EXPECT_LT(4 * dfd.raw_work / double(dfd.thefts), ws.raw_work / double(ws.thefts));
  EXPECT_LE(adf.memory_peak, dfd.memory_peak);
}

TEST(Policy, WorkStealingMemoryOnTheorem67DagGrowsWithPTimesD) {
  // NAR Corollary 6.8: on Fig 6.9's DAG, S1 = A but work stealing (dfd with K = ∞) holds blocks
  // on every processor at every depth: doubling p or D about doubles the high-water mark.
  auto peak = [](unsigned p, unsigned depth) {
    const Dag d = make_nar_lower_bound(p, depth, 1000);
    return double(run(d, "dfd", p, nar_steps()).result.memory_peak);
  };
  const double base = peak(16, 100);
  EXPECT_GT(base, 50 * 1000.0);  // far above S1 = 1000
  EXPECT_GT(peak(32, 100), 1.6 * base);
  EXPECT_GT(peak(16, 200), 1.6 * base);
  // AsyncDF with K below A (dummy threads before each block) stays far lower (NAR Theorem 3.6).
  Costs k = nar_steps();
  k.quota = 10;
  EXPECT_LT(double(run(make_nar_lower_bound(16, 100, 1000), "adf", 16, k).result.memory_peak), base / 4);
}

TEST(Policy, FifoRunsBreadthFirst) {
  // The original Pthreads FIFO (NAR l.2700-2712): even on one processor a tree's threads all start
  // before the first one finishes, so memory is the whole tree's, far above S1.
  const Dag d = make_nar_tree(1, 1, 10, 3);
  const auto r = run(d, "fifo", 1, nar_steps()).result;
  EXPECT_GT(double(r.memory_peak), 10 * d.root_totals().serial_peak);
  // Breadth first, all 1024 leaves are queued before the first runs: all 2047 threads live.
  EXPECT_EQ(r.live_items_peak, 1024u + 1023u);
}
