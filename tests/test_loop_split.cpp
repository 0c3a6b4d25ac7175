// Component tests of loop-frame splitting (src/loops.cpp; docs/PROTOCOLS.md section 11; LS
// Algorithm 3, LS l.136-153): where split_loop cuts a loop's remaining range (the thief gets the
// upper half, serial order kept), the grain (LS "ppt"), giving an unsplittable range whole, a
// failed push, ws-ap's auto partitioner (loop_begin, loop_child_chunks), and the per-worker pool of
// children.  The loop frames are built by hand on workers of a runtime that starts no thread
// (component_rig.hpp); a thief's steal runs on the test thread.
#include <algorithm>
#include <set>
#include <vector>

#include "common.hpp"
#include "component_rig.hpp"
#include "loop_split.hpp"

namespace {

using namespace weft::detail;
namespace ts = task_state;

// What a thief ran: the child's range and chunk counter, and the state word it ran under.
struct ran_child {
  std::uint64_t begin, end, chunks;
  std::uintptr_t state;
};

WEFT_TASK_FN void run_child_range(frame* f);

// The loop's shared part (its grain, the children's wrapper), where the thieves note what they ran.
struct thief_log : loop_shape {
  explicit thief_log(std::uint64_t grain) : loop_shape{grain, &run_child_range} {}
  std::vector<ran_child> ran;
};

WEFT_TASK_FN void run_child_range(frame* f) {
  auto* c = reinterpret_cast<loop_child*>(f);
  static_cast<thief_log*>(c->shared)->ran.push_back({c->begin, c->end, c->chunks, f->state.load()});
}

WEFT_TASK_FN void run_nothing(frame*) {}

// A running loop: its record and its frame on the owner's task stack, as adaptive_loop::run makes
// them (include/weft/detail/loop.hpp).
struct loop_frame {
  loop_frame(hot_state& h, std::uint64_t begin, std::uint64_t end, std::uint64_t grain, std::uint64_t chunks = 0)
      : log(grain), rec(begin, end, &log), fr(h.top) {
    rec.chunks = chunks;
    rec.ap_armed_at = 0;
    ::new (fr->payload) loop_record*(&rec);
    fr->state.store(ts::loop, std::memory_order_relaxed);
    h.top = fr + 1;
  }
  loop_frame(const loop_frame&) = delete;
  loop_frame& operator=(const loop_frame&) = delete;

  std::uint64_t remaining() const { return rec.end - rec.next; }
  // The children, oldest (highest indices) first.
  std::vector<loop_child*> children_oldest_first() const {
    std::vector<loop_child*> v;
    for (loop_child* c = rec.children; c != nullptr; c = c->older) v.push_back(c);
    std::reverse(v.begin(), v.end());
    return v;
  }

  thief_log log;
  loop_record rec;
  frame* fr;
};

// The promotions reported (slow_path.hpp's hook), in order.
std::vector<promotion_event> reported;
void note_promotion(const promotion_event& e) { reported.push_back(e); }

class LoopSplit : public ::testing::Test {
 protected:
  void SetUp() override {
    reported.clear();
    set_promotion_hook(&note_promotion);
  }
  void TearDown() override { set_promotion_hook(nullptr); }
};

// The pieces tile the loop's range in serial order: the loop's own [next, end), then its children
// youngest first (lowest indices first), up to `end`.
void expect_tiles(const loop_frame& l, std::uint64_t end) {
  std::uint64_t at = l.rec.end;
  for (loop_child* c = l.rec.children; c != nullptr; c = c->older) {
    EXPECT_EQ(c->begin, at) << "a child starts where the younger piece ends";
    EXPECT_LT(c->begin, c->end);
    at = c->end;
  }
  EXPECT_EQ(at, end);
}

// The owner joins its children youngest first (adaptive_loop::join_children) and returns them to
// its pool; returns how many were stolen.
std::size_t join_children(wt::manual_runtime& m, unsigned i, loop_frame& l) {
  std::size_t stolen = 0;
  for (loop_child* c = l.rec.children; c != nullptr;) {
    loop_child* older = c->older;
    stolen += m.sched().reclaim(m.w(i), m.h(i), &c->fr) == reclaimed::stolen;
    free_loop_child(m.h(i), c);
    c = older;
  }
  l.rec.children = nullptr;
  return stolen;
}

TEST_F(LoopSplit, TheThiefGetsTheUpperHalfAndSerialOrderIsKept) {
  wt::manual_runtime m(weft::policy::ws, 2, 64);
  worker& w = m.w(0);
  loop_frame l(m.h(0), 0, 100, 1);
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.end, 50u);
  ASSERT_NE(l.rec.children, nullptr);
  EXPECT_EQ(l.rec.children->begin, 50u);
  EXPECT_EQ(l.rec.children->end, 100u);
  EXPECT_EQ(l.rec.children->fr.state.load(), ts::task(&run_child_range));
  EXPECT_TRUE(l.rec.children->fr.marks & frame_mark::on_deque);
  EXPECT_EQ(w.ledger.promotions, 1u);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0].worker, 0u);
  EXPECT_EQ(reported[0].depth, 0u) << "reported at the loop frame's slot";
  EXPECT_EQ(reported[0].kind, promotion_kind::loop_half);

  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.end, 25u);
  // Chunks already run are never given away (LS Alg. 3 lines 3-4): the cut is in [next, end).
  // An odd remainder leaves the thief the smaller half, the upper one.
  l.rec.next = 10;
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.next, 10u);
  EXPECT_EQ(l.rec.end, 18u);
  EXPECT_EQ(l.rec.children->begin, 18u);
  EXPECT_EQ(l.rec.children->end, 25u);
  expect_tiles(l, 100);

  // Thieves take the oldest child first: the highest indices, the biggest range.
  ASSERT_TRUE(m.sched().steal(m.w(1), w));
  ASSERT_TRUE(m.sched().steal(m.w(1), w));
  ASSERT_EQ(l.log.ran.size(), 2u);
  EXPECT_EQ(l.log.ran[0].begin, 50u);
  EXPECT_EQ(l.log.ran[0].end, 100u);
  EXPECT_EQ(l.log.ran[0].state, ts::stolen(1));
  EXPECT_EQ(l.log.ran[1].begin, 25u);
  EXPECT_EQ(l.log.ran[1].end, 50u);
  // The owner's join, youngest first: the one not stolen comes back (run inline), the others are DONE.
  EXPECT_EQ(l.rec.children->fr.state.load(), ts::task(&run_child_range));
  EXPECT_EQ(join_children(m, 0, l), 2u);
  EXPECT_EQ(w.free_children.size(), 64u) << "all three children back in the pool";
}

TEST_F(LoopSplit, NoSplitAtOrBelowTheGrain) {
  wt::manual_runtime m(weft::policy::ws, 2, 64);
  worker& w = m.w(0);
  {
    loop_frame l(m.h(0), 0, 8, 8);
    EXPECT_FALSE(loop_can_split(l.fr, false));
    EXPECT_FALSE(split_loop(w, l.fr, false, 0));
    EXPECT_EQ(l.rec.end, 8u);
    EXPECT_EQ(l.rec.children, nullptr);
    EXPECT_TRUE(reported.empty());
    EXPECT_EQ(w.ledger.promotions, 0u);
    EXPECT_FALSE(m.sched().has_stealable(w));
    m.h(0).top = l.fr;
  }
  {
    loop_frame l(m.h(0), 0, 9, 8);  // one more than the grain: split
    EXPECT_TRUE(loop_can_split(l.fr, false));
    ASSERT_TRUE(split_loop(w, l.fr, false, 0));
    EXPECT_EQ(l.rec.end, 5u);
    EXPECT_EQ(join_children(m, 0, l), 0u);
    m.h(0).top = l.fr;
  }
  {
    loop_frame l(m.h(0), 0, 1, 0);  // one iteration cannot be halved, whatever the grain
    EXPECT_FALSE(loop_can_split(l.fr, false));
    m.h(0).top = l.fr;
  }
  // Eager splitting (as ws does) stops exactly when the remainder reaches the grain: 1000 -> 496
  // -> 240 (ranges of 256 or more are cut at a multiple of loop_align) -> 120 -> 60 -> 30 -> 15.
  loop_frame l(m.h(0), 0, 1000, 16);
  std::size_t splits = 0;
  while (loop_can_split(l.fr, false)) {
    ASSERT_GT(l.remaining(), 16u) << "a split only of a range above the grain";
    ASSERT_TRUE(split_loop(w, l.fr, false, 0));
    ++splits;
  }
  EXPECT_EQ(splits, 6u);
  EXPECT_EQ(l.remaining(), 15u);
  EXPECT_FALSE(split_loop(w, l.fr, false, 0));
  expect_tiles(l, 1000);
  EXPECT_EQ(join_children(m, 0, l), 0u);
}

// aligned_cut (loop.hpp): the highest cut in (k, stop] where lo + cut + peel is a multiple of
// loop_align, else stop; checked against the definition for every small case.
TEST(LoopAlign, AlignedCutIsTheHighestAlignedPointAboveK) {
  for (std::uint64_t phase = 0; phase < loop_align; ++phase)
    for (std::uint64_t peel = 0; peel < 2; ++peel)
      for (std::uint64_t k = 0; k < 40; ++k)
        for (std::uint64_t stop = k + 1; stop < k + 80; ++stop) {
          std::uint64_t want = stop;
          for (std::uint64_t c = stop; c > k; --c)
            if ((phase + c + peel) % loop_align == 0) {
              want = c;
              break;
            }
          ASSERT_EQ(aligned_cut(k, stop, phase, peel), want)
              << "k " << k << " stop " << stop << " phase " << phase << " peel " << peel;
        }
}

// A long range is cut where lo + k is a multiple of loop_align (the record's shape carries lo's
// phase), so the thief's vectorized chunks start aligned; a shorter one is halved exactly.
TEST_F(LoopSplit, LongRangesAreCutAtAlignedPointsShortOnesInHalf) {
  wt::manual_runtime m(weft::policy::lazy_bf, 2, 64);
  worker& w = m.w(0);
  loop_frame l(m.h(0), 0, 1000, 1);
  l.log.phase = 5;  // the loop's lo is 5 mod 16
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  ASSERT_NE(l.rec.children, nullptr);
  EXPECT_EQ(l.rec.children->begin, 491u) << "500 moved down to the aligned point 491 (5 + 491 = 31 * 16)";
  EXPECT_EQ(l.rec.end, 491u);
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.children->begin, 235u) << "491 - 245 = 246, moved down to 235 (5 + 235 = 15 * 16)";
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.children->begin, 118u) << "235 < 256 iterations: cut in half exactly";
  expect_tiles(l, 1000);
  EXPECT_EQ(join_children(m, 0, l), 0u);
}

// A timed piece gives no part smaller than its chunk: it keeps a remainder of fewer than
// min_split_chunks chunks, for good (loops.cpp, keeps_rest; a smaller part costs its victim more
// than it moves).  A chunk of one iteration (each iteration a few us or more) halves down to one
// iteration.
TEST_F(LoopSplit, ATimedPieceGivesAwayNoPartSmallerThanItsChunk) {
  static_assert(min_split_chunks == 2);
  wt::manual_runtime m(weft::policy::lazy_bf, 2, 64);
  worker& w = m.w(0);
  {
    loop_frame l(m.h(0), 0, 1000, 1);
    l.rec.chunk = 501;
    EXPECT_FALSE(loop_can_split(l.fr, true)) << "1000 iterations are less than two chunks of 501";
    EXPECT_FALSE(split_loop(w, l.fr, true, 0));
    EXPECT_EQ(l.rec.children, nullptr);
    // For good: the oldest-first check passes over a piece that is no candidate and must never
    // find it one later (sched_deque.cpp, promote_one), though its chunk shrinks.
    l.rec.chunk = (l.rec.chunk & chunk_kept) | 1;
    EXPECT_EQ(chunk_of(l.rec), 1u);
    EXPECT_FALSE(loop_can_split(l.fr, true)) << "a piece that kept its rest keeps it";
    EXPECT_FALSE(split_loop(w, l.fr, true, 0));
    EXPECT_TRUE(reported.empty());
    m.h(0).top = l.fr;
  }
  {
    loop_frame l(m.h(0), 0, 1000, 1);
    l.rec.chunk = 500;
    ASSERT_TRUE(loop_can_split(l.fr, false)) << "1000 iterations: two chunks of 500";
    ASSERT_TRUE(split_loop(w, l.fr, false, 0));
    ASSERT_NE(l.rec.children, nullptr);
    EXPECT_GE(l.rec.children->end - l.rec.children->begin, 500u) << "the thief's part is a chunk or more";
    EXPECT_EQ(l.rec.children->begin, 496u) << "the half, at its aligned cut";
    EXPECT_EQ(l.rec.children->chunk, 500u) << "the part starts with the piece's chunk";
    EXPECT_FALSE(loop_can_split(l.fr, true)) << "496 left: less than two chunks";
    EXPECT_FALSE(split_loop(w, l.fr, true, 0));
    EXPECT_EQ(reported.size(), 1u);
    expect_tiles(l, 1000);
    EXPECT_EQ(join_children(m, 0, l), 0u);
    m.h(0).top = l.fr;
  }
  {
    // A chunk of one iteration (each a few us or more) halves down to one iteration, given whole.
    loop_frame l(m.h(0), 0, 8, 1);
    l.rec.chunk = 1;
    std::size_t splits = 0;
    while (split_loop(w, l.fr, true, 0)) ++splits;
    EXPECT_EQ(l.rec.next, l.rec.end) << "the last iteration is given whole too";
    EXPECT_EQ(splits, 4u) << "8 -> 4 -> 2 -> 1 -> 0";
    expect_tiles(l, 8);
    EXPECT_EQ(join_children(m, 0, l), 0u);
    m.h(0).top = l.fr;
  }
}

// A part split off a piece starts with that piece's timed chunk (none while the piece is untimed),
// so a promotion does not restart the chunk ramp (loop.hpp, run_chunks).
TEST_F(LoopSplit, AChildTakesTheChunkOfThePieceItWasSplitFrom) {
  wt::manual_runtime m(weft::policy::lazy_bf, 2, 64);
  worker& w = m.w(0);
  loop_frame l(m.h(0), 0, 1 << 12, 1);
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.children->chunk, 0u) << "an untimed piece gives no chunk";
  l.rec.chunk = 512;
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.children->chunk, 512u);
  EXPECT_EQ(join_children(m, 0, l), 0u);
}

TEST_F(LoopSplit, AnUnsplittableRangeIsGivenWholeOnlyWithAllowWhole) {
  wt::manual_runtime m(weft::policy::lazy_bf, 2, 64);
  worker& w = m.w(0);
  loop_frame l(m.h(0), 5, 6, 1);
  EXPECT_FALSE(loop_can_split(l.fr, false));
  EXPECT_TRUE(loop_can_split(l.fr, true));
  ASSERT_TRUE(split_loop(w, l.fr, true, 0));
  EXPECT_EQ(l.rec.next, 5u);
  EXPECT_EQ(l.rec.end, 5u) << "the loop keeps nothing";
  EXPECT_EQ(l.rec.children->begin, 5u);
  EXPECT_EQ(l.rec.children->end, 6u);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0].kind, promotion_kind::loop_whole);
  EXPECT_FALSE(loop_can_split(l.fr, true)) << "nothing left to give";
  EXPECT_FALSE(split_loop(w, l.fr, true, 0));
  EXPECT_EQ(join_children(m, 0, l), 0u);
  m.h(0).top = l.fr;

  // Under a grain above 1, never: [0, 4) with grain 8 is (part of) the piece the owner runs, which
  // the grain keeps on one thread (LS Alg. 3 pops a TD of at most `grain` tasks off the private deque
  // before running it as one call; loops.cpp, split_point).  Before stop 43 it was given whole.
  loop_frame small(m.h(0), 0, 4, 8);
  const std::size_t reports = reported.size();
  EXPECT_FALSE(loop_can_split(small.fr, true));
  EXPECT_FALSE(split_loop(w, small.fr, true, 0));
  EXPECT_EQ(small.rec.end, 4u);
  EXPECT_EQ(small.rec.children, nullptr);
  EXPECT_EQ(reported.size(), reports);
  m.h(0).top = small.fr;

  // A splittable range is still halved when whole would be allowed.
  loop_frame big(m.h(0), 0, 100, 1);
  ASSERT_TRUE(split_loop(w, big.fr, true, 0));
  EXPECT_EQ(big.rec.end, 50u);
  EXPECT_EQ(reported.back().kind, promotion_kind::loop_half);
  EXPECT_EQ(join_children(m, 0, big), 0u);
}

TEST_F(LoopSplit, AFailedPushLeavesTheRangeWithTheLoop) {
  // A task stack of 8 frames: its deque (as big as the stack) fills after a few pushes.
  wt::manual_runtime m(weft::policy::ws, 2, 8);
  worker& w = m.w(0);
  std::vector<frame> filler(1024);
  std::size_t pushed = 0;
  for (frame& f : filler) {
    f.state.store(ts::task(&run_nothing), std::memory_order_relaxed);
    if (!m.sched().promote_frame(w, &f)) break;
    ++pushed;
  }
  ASSERT_GE(pushed, 8u);
  ASSERT_LT(pushed, filler.size()) << "the deque must fill";
  loop_frame l(m.h(0), 0, 100, 1);
  EXPECT_TRUE(loop_can_split(l.fr, false)) << "the range could be split...";
  EXPECT_FALSE(split_loop(w, l.fr, false, 0)) << "...but the push fails";
  EXPECT_EQ(l.rec.next, 0u);
  EXPECT_EQ(l.rec.end, 100u);
  EXPECT_EQ(l.rec.children, nullptr);
  EXPECT_TRUE(reported.empty());
  EXPECT_EQ(w.child_blocks.size(), 1u);
  EXPECT_EQ(w.free_children.size(), 64u) << "the child went back to the pool";
  // Room again after a steal: the same split now succeeds.
  ASSERT_TRUE(m.sched().steal(m.w(1), w));
  ASSERT_TRUE(split_loop(w, l.fr, false, 0));
  EXPECT_EQ(l.rec.end, 50u);
  EXPECT_EQ(reported.size(), 1u);
}

// LS l.136-153 (TBB's auto partitioner, K = V = 4): a loop starts with K*P chunks; each split
// halves the counter, and the child takes the halved counter with it.
TEST_F(LoopSplit, AutoPartitionerMakesKTimesPChunksHalvedPerSplit) {
  for (unsigned p : {1u, 2u, 4u, 8u}) {
    SCOPED_TRACE(::testing::Message() << p << " workers");
    reported.clear();
    wt::manual_runtime m(weft::policy::ws_ap, p, 64);
    ASSERT_EQ(m.h(0).loops_run_as, loop_style::auto_partitioned);
    loop_frame l(m.h(0), 0, 1 << 12, 1);
    loop_begin(m.h(0), l.fr);
    const std::vector<loop_child*> kids = l.children_oldest_first();
    std::uint64_t expect_chunks = 4 * p, expect_end = 1 << 12;
    ASSERT_EQ(1u << kids.size(), 4 * p) << "log2(K*P) splits";
    for (loop_child* c : kids) {
      expect_chunks /= 2;
      EXPECT_EQ(c->chunks, expect_chunks);
      EXPECT_EQ(c->end, expect_end);
      EXPECT_EQ(c->begin, expect_end / 2) << "each split halves the range";
      expect_end /= 2;
    }
    EXPECT_EQ(l.rec.chunks, 1u);
    EXPECT_EQ(l.rec.end, expect_end);
    EXPECT_EQ(reported.size(), kids.size());
    expect_tiles(l, 1 << 12);
    // A stolen child gets at least V = 4 chunks; one the owner runs itself keeps its counter.
    for (loop_child* c : kids) {
      EXPECT_EQ(loop_child_chunks(m.h(0), *c, true), std::max<std::uint64_t>(c->chunks, 4));
      EXPECT_EQ(loop_child_chunks(m.h(0), *c, false), c->chunks);
    }
    EXPECT_EQ(join_children(m, 0, l), 0u);
  }
}

TEST_F(LoopSplit, AutoPartitionerStopsAtTheGrainOrAnIndivisibleRange) {
  wt::manual_runtime m(weft::policy::ws_ap, 4, 64);
  {
    loop_frame l(m.h(0), 0, 3, 1);  // 16 chunks asked for, 3 iterations
    loop_begin(m.h(0), l.fr);
    const auto kids = l.children_oldest_first();
    ASSERT_EQ(kids.size(), 2u);
    EXPECT_EQ(kids[0]->begin, 2u);
    EXPECT_EQ(kids[0]->chunks, 8u);
    EXPECT_EQ(kids[1]->begin, 1u);
    EXPECT_EQ(kids[1]->chunks, 4u);
    EXPECT_EQ(l.rec.end, 1u);
    EXPECT_EQ(l.rec.chunks, 4u) << "the counter stops halving with the splits";
    join_children(m, 0, l);
    m.h(0).top = l.fr;
  }
  {
    loop_frame l(m.h(0), 0, 64, 16);  // 64 -> 32 -> 16 = grain
    loop_begin(m.h(0), l.fr);
    const auto kids = l.children_oldest_first();
    ASSERT_EQ(kids.size(), 2u);
    EXPECT_EQ(kids[1]->begin, 16u);
    EXPECT_EQ(l.remaining(), 16u);
    EXPECT_EQ(l.rec.chunks, 4u);
    join_children(m, 0, l);
    m.h(0).top = l.fr;
  }
  {
    loop_frame l(m.h(0), 0, 1 << 10, 1, 4);  // a child's piece, run with its own counter (4)
    loop_begin(m.h(0), l.fr);
    const auto kids = l.children_oldest_first();
    ASSERT_EQ(kids.size(), 2u);
    EXPECT_EQ(kids[0]->chunks, 2u);
    EXPECT_EQ(kids[1]->chunks, 1u);
    join_children(m, 0, l);
  }
}

TEST_F(LoopSplit, OnlyTheAutoPartitionerGivesChildrenChunks) {
  wt::manual_runtime m(weft::policy::ws, 1, 64);
  loop_child c;
  c.chunks = 8;
  EXPECT_EQ(loop_child_chunks(m.h(0), c, true), 0u);
  EXPECT_EQ(loop_child_chunks(m.h(0), c, false), 0u);
}

TEST_F(LoopSplit, ChildrenComeFromThePerWorkerPool) {
  wt::manual_runtime m(weft::policy::ws, 2, 64);
  worker& w = m.w(0);
  std::vector<loop_child*> got;
  for (int i = 0; i < 64; ++i) got.push_back(alloc_loop_child(w));
  EXPECT_EQ(w.child_blocks.size(), 1u);
  EXPECT_TRUE(w.free_children.empty());
  got.push_back(alloc_loop_child(w));
  EXPECT_EQ(w.child_blocks.size(), 2u) << "the 65th child takes a second block";
  const std::set<loop_child*> first(got.begin(), got.end());
  EXPECT_EQ(first.size(), got.size()) << "no child handed out twice";
  for (loop_child* c : got) free_loop_child(m.h(0), c);
  EXPECT_GE(w.free_children.capacity(), 128u) << "room for every child: freeing never reallocates";
  std::vector<loop_child*> again;
  for (int i = 0; i < 128; ++i) again.push_back(alloc_loop_child(w));
  EXPECT_EQ(w.child_blocks.size(), 2u);
  std::size_t reused = 0;
  for (loop_child* c : again) reused += first.count(c);
  EXPECT_EQ(reused, first.size()) << "every freed child is handed out again";
  for (loop_child* c : again) free_loop_child(m.h(0), c);

  // Split and join, many times over: the children come back, no block after the first.
  wt::manual_runtime fresh(weft::policy::ws, 2, 64);
  for (int round = 0; round < 1000; ++round) {
    loop_frame l(fresh.h(0), 0, 1 << 10, 1);
    for (int s = 0; s < 5; ++s) ASSERT_TRUE(split_loop(fresh.w(0), l.fr, false, 0));
    if (round % 3 == 0) ASSERT_TRUE(fresh.sched().steal(fresh.w(1), fresh.w(0)));
    join_children(fresh, 0, l);
    fresh.h(0).top = l.fr;
  }
  EXPECT_EQ(fresh.w(0).child_blocks.size(), 1u);
  EXPECT_EQ(fresh.w(0).free_children.size(), 64u);
}

}  // namespace
