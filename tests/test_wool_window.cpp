// Component tests of `wool`'s public window (src/sched_wool.cpp; docs/PROTOCOLS.md section 7; WOOL
// §III.A-B): the public tag in the state word, the trip wire and growth, privatization, `bot`, and
// a stolen slot's EMPTY -> STOLEN(i) -> DONE.  The scheduler is driven directly on workers built by
// hand (component_rig.hpp): one test thread plays the owner (push and join as join.hpp does them)
// and the thieves in a chosen order; the last tests race 1-3 thief threads against the owner,
// bounded by the owner's number of tasks.
#include <cstdio>
#include <latch>
#include <random>
#include <thread>
#include <vector>

#include "common.hpp"
#include "component_rig.hpp"
#include "sched_wool.hpp"

namespace {

using namespace weft::detail;
namespace ts = task_state;

// A task: counts its runs and notes the state word it saw when it ran (a thief sees STOLEN(i), the
// owner's inline join sees EMPTY, a private pop sees the untagged TASK).
struct probe {
  std::atomic<int> runs{0};
  std::atomic<std::uintptr_t> state_seen{ts::none};
};

WEFT_TASK_FN void run_probe(frame* f) {
  probe& p = **std::launder(reinterpret_cast<probe**>(f->payload));
  p.state_seen.store(f->state.load(std::memory_order_relaxed), std::memory_order_relaxed);
  p.runs.fetch_add(1, std::memory_order_relaxed);
}

enum class joined { private_pop, inline_public, stolen };

// The owner's side, as join.hpp does it: a push is plain stores, and the slow path (the policy's
// promote_at_poll) runs only when a poll bit is set; the join pops and synchronizes (reclaim) only
// when the frame carries a mark.
struct owner {
  owner(wt::manual_runtime& m, unsigned i) : w(m.w(i)), h(m.h(i)), s(m.sched()) {}
  worker& w;
  hot_state& h;
  scheduler& s;

  frame* push(probe& p) {
    frame* fr = h.top;
    ::new (fr->payload) probe*(&p);
    fr->state.store(ts::task(&run_probe), std::memory_order_relaxed);
    h.top = fr + 1;
    if (h.poll.load(std::memory_order_relaxed)) s.promote_at_poll(w, h, fr);
    return fr;
  }
  joined join_top() {
    frame* fr = h.top - 1;
    h.top = fr;
    if (!must_reclaim(fr)) {
      run_probe(fr);
      return joined::private_pop;
    }
    if (s.reclaim(w, h, fr) == reclaimed::run_inline) {
      run_probe(fr);
      return joined::inline_public;
    }
    return joined::stolen;
  }
  wool_window& win() const { return static_cast<wool_window&>(*w.mechanism); }
  std::size_t slot(const frame* f) const { return std::size_t(f - w.stack.begin()); }
  std::size_t top() const { return slot(h.top); }
  std::size_t bot() const { return slot(win().bot.load()); }
  std::uintptr_t state(std::size_t k) const { return w.stack.begin()[k].state.load(); }
  bool poll_has(std::uint32_t bit) const { return (h.poll.load() & bit) != 0; }
};

constexpr std::size_t capacity = 64;

std::size_t expected_trip(std::size_t pub) { return pub > trip_distance ? pub - trip_distance : 0; }

// What must hold between any two operations when owner and thieves take turns on one thread
// (a steal runs its task to DONE before it returns).
void expect_window_invariants(const owner& o) {
  const wool_window& win = o.win();
  const std::size_t bot = o.bot(), top = o.top(), pub = win.pub;
  ASSERT_LE(bot, top) << "bot never passes top";
  ASSERT_GE(pub, 1u) << "privatization keeps one public slot";
  EXPECT_EQ(win.trip.load(), expected_trip(pub));
  EXPECT_EQ(o.poll_has(poll_bit::public_next), top < pub) << "public_next must equal top < pub";
  for (std::size_t k = 0; k < capacity; ++k)
    ASSERT_EQ((o.w.stack.begin()[k].marks & frame_mark::public_slot) != 0, k < pub) << "slot " << k;
  for (std::size_t k = 0; k < bot; ++k) ASSERT_EQ(o.state(k), ts::done) << "stolen slot " << k;
  for (std::size_t k = bot; k < top; ++k) {
    ASSERT_TRUE(ts::is_task(o.state(k))) << "live slot " << k;
    ASSERT_EQ(ts::is_public_task(o.state(k)), k < pub) << "a live task is tagged iff its slot is public: " << k;
  }
}

// ---------------------------------------------------------------------------------------------
// One thread: owner and thief take turns

TEST(WoolWindow, StartsWithInitialPublicSlotsAndTheTripWireBelowTheTop) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  EXPECT_EQ(o.win().pub, initial_public);
  EXPECT_EQ(o.win().trip.load(), initial_public - trip_distance);
  EXPECT_EQ(o.bot(), 0u);
  EXPECT_EQ(o.h.poll.load(), poll_bit::public_next) << "the first push lands in a public slot";
  EXPECT_FALSE(m.sched().has_stealable(o.w));
  expect_window_invariants(o);
}

TEST(WoolWindow, PushIntoPublicSlotTagsTheStateWordAndPrivatePushesStayPlain) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  std::vector<probe> p(initial_public + 2);
  for (std::size_t k = 0; k < p.size(); ++k) {
    o.push(p[k]);
    expect_window_invariants(o);
  }
  for (std::size_t k = 0; k < initial_public; ++k)
    EXPECT_EQ(o.state(k), ts::task(&run_probe) | ts::public_tag) << "slot " << k;
  for (std::size_t k = initial_public; k < p.size(); ++k) EXPECT_EQ(o.state(k), ts::task(&run_probe)) << "slot " << k;
  EXPECT_EQ(o.h.poll.load(), 0u) << "above the window a push takes the fast path";
  EXPECT_EQ(o.w.ledger.promotions, initial_public) << "each tag is one promotion";
  EXPECT_EQ(o.w.ledger.unjoined, initial_public);
  EXPECT_TRUE(m.sched().has_stealable(o.w));
  // Joined in LIFO order: the private ones pop without synchronizing, the public ones through the
  // exchange, which leaves EMPTY in the slot (the owner holds the task).
  for (std::size_t k = p.size(); k-- > 0;) {
    const joined how = o.join_top();
    EXPECT_EQ(how, k < initial_public ? joined::inline_public : joined::private_pop) << "slot " << k;
    EXPECT_EQ(p[k].state_seen.load(), k < initial_public ? ts::empty : ts::task(&run_probe)) << "slot " << k;
    expect_window_invariants(o);
  }
  for (auto& x : p) EXPECT_EQ(x.runs.load(), 1);
  EXPECT_EQ(o.w.ledger.unjoined, 0u);
  EXPECT_FALSE(m.sched().has_stealable(o.w));
}

TEST(WoolWindow, OnlyTaggedTasksAreStolenBottomFirst) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  worker& thief = m.w(1);
  std::vector<probe> p(initial_public + 2);
  for (auto& x : p) o.push(x);
  for (std::size_t k = 0; k < initial_public; ++k) {
    ASSERT_TRUE(m.sched().steal(thief, o.w)) << "slot " << k;
    EXPECT_EQ(p[k].runs.load(), 1);
    EXPECT_EQ(o.bot(), k + 1);
    expect_window_invariants(o);
  }
  // Slot 4 holds a live task, but untagged: a private task is never stolen, however often asked.
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(m.sched().steal(thief, o.w));
  EXPECT_EQ(p[initial_public].runs.load(), 0);
  EXPECT_EQ(o.state(initial_public), ts::task(&run_probe));
  EXPECT_EQ(thief.steals, initial_public);
}

TEST(WoolWindow, StolenSlotGoesStolenThenDoneAndTheOwnersJoinReturnsStolen) {
  wt::manual_runtime m(weft::policy::wool, 3, capacity);
  owner o(m, 0);
  worker& thief = m.w(2);
  probe a, b;
  o.push(a);
  o.push(b);
  ASSERT_TRUE(m.sched().steal(thief, o.w));
  EXPECT_EQ(a.state_seen.load(), ts::stolen(2)) << "the thief runs the task under STOLEN(its index)";
  EXPECT_EQ(o.state(0), ts::done);
  EXPECT_EQ(o.bot(), 1u);
  // The task not taken: its join is an inline run.
  EXPECT_EQ(o.join_top(), joined::inline_public);
  EXPECT_EQ(b.state_seen.load(), ts::empty);
  EXPECT_EQ(o.bot(), 1u);
  expect_window_invariants(o);
  // The stolen one: reclaim says `stolen`, and the slot is the bottom again, owned by the owner.
  EXPECT_EQ(o.join_top(), joined::stolen);
  EXPECT_EQ(o.bot(), 0u);
  EXPECT_EQ(a.runs.load(), 1);
  EXPECT_EQ(b.runs.load(), 1);
  expect_window_invariants(o);
  // The slot is usable again: pushed, tagged, stolen by the other thief.
  probe c;
  o.push(c);
  EXPECT_EQ(o.state(0), ts::task(&run_probe) | ts::public_tag);
  ASSERT_TRUE(m.sched().steal(m.w(1), o.w));
  EXPECT_EQ(c.state_seen.load(), ts::stolen(1));
  EXPECT_EQ(o.join_top(), joined::stolen);
}

TEST(WoolWindow, StealAtOrAboveTheTripWireNotifiesAndTheOwnerGrowsTheWindow) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  worker& thief = m.w(1);
  std::vector<probe> p(initial_public + 3);
  for (std::size_t k = 0; k < initial_public + 2; ++k) o.push(p[k]);  // slots 4, 5: private
  const std::size_t trip = o.win().trip.load();
  for (std::size_t k = 0; k <= trip; ++k) {
    EXPECT_FALSE(o.poll_has(poll_bit::notify)) << "no request before a steal at or above the wire";
    ASSERT_TRUE(m.sched().steal(thief, o.w));
  }
  EXPECT_TRUE(o.poll_has(poll_bit::notify)) << "the steal of slot " << trip << " trips the wire";
  EXPECT_EQ(o.win().pub, initial_public) << "the thief only asks; the owner grows";
  // The owner's next push polls: the window grows by grow_by, the live private tasks in the new
  // public slots are tagged at once (oldest first), and so is the pushed one.
  const std::uint64_t promotions_before = o.w.ledger.promotions;
  o.push(p[initial_public + 2]);
  EXPECT_FALSE(o.poll_has(poll_bit::notify));
  EXPECT_EQ(o.win().pub, initial_public + grow_by);
  EXPECT_EQ(o.win().trip.load(), expected_trip(initial_public + grow_by));
  for (std::size_t k = initial_public; k < initial_public + 3; ++k) EXPECT_TRUE(ts::is_public_task(o.state(k))) << k;
  EXPECT_EQ(o.w.ledger.promotions, promotions_before + 3);
  expect_window_invariants(o);
  // Now they can be stolen.
  while (o.bot() < o.top()) ASSERT_TRUE(m.sched().steal(thief, o.w));
  for (auto& x : p) EXPECT_EQ(x.runs.load(), 1);
  while (o.top() > 0) EXPECT_EQ(o.join_top(), joined::stolen);
  expect_window_invariants(o);
}

TEST(WoolWindow, StealsBelowTheTripWireDoNotNotify) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  std::vector<probe> p(initial_public);
  for (auto& x : p) o.push(x);
  for (std::size_t k = 0; k < o.win().trip.load(); ++k) ASSERT_TRUE(m.sched().steal(m.w(1), o.w));
  EXPECT_FALSE(o.poll_has(poll_bit::notify));
  while (o.top() > 0) o.join_top();
  EXPECT_EQ(o.win().pub, initial_public);
}

// Joins the task in the highest public slot inline `n` times (push, then join), one after the other.
void inline_joins_at_top_public(owner& o, std::size_t n) {
  probe p;
  for (std::size_t i = 0; i < n; ++i) {
    o.push(p);
    ASSERT_EQ(o.join_top(), joined::inline_public);
  }
}

TEST(WoolWindow, PrivatizationShrinksTheWindowAfterManyPublicInlines) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  std::vector<probe> below(initial_public - 1);
  for (auto& x : below) o.push(x);  // slots 0..2; slot 3 is the highest public slot
  inline_joins_at_top_public(o, privatize_after - 1);
  EXPECT_EQ(o.win().pub, initial_public) << "not yet: " << privatize_after - 1 << " inlines";
  inline_joins_at_top_public(o, 1);
  EXPECT_EQ(o.win().pub, initial_public - 1) << "the " << privatize_after << "th inline privatizes";
  EXPECT_EQ(o.win().inlined_public, 0u);
  expect_window_invariants(o);
  // Slot 3 is private now: a push there is plain, never stolen, popped without synchronizing.
  probe q;
  o.push(q);
  EXPECT_EQ(o.state(3), ts::task(&run_probe));
  EXPECT_EQ(o.join_top(), joined::private_pop);
  // Down to one public slot, never below.  The count is of consecutive public inlines at any slot
  // (the joins of the slots below count too), so each step tops it up to privatize_after.
  while (o.top() > 0) o.join_top();
  for (std::size_t pub = initial_public - 1; pub > 1; --pub) {
    std::vector<probe> lower(pub - 1);
    for (auto& x : lower) o.push(x);
    inline_joins_at_top_public(o, privatize_after - 1 - o.win().inlined_public);
    EXPECT_EQ(o.win().pub, pub);
    inline_joins_at_top_public(o, 1);
    EXPECT_EQ(o.win().pub, pub - 1);
    while (o.top() > 0) o.join_top();
    expect_window_invariants(o);
  }
  inline_joins_at_top_public(o, 3 * privatize_after);
  EXPECT_EQ(o.win().pub, 1u);
  EXPECT_EQ(o.win().trip.load(), 0u);
  expect_window_invariants(o);
}

// Inlines at a lower public slot count too: when the count is reached, the top public slot, which
// then lies above the task stack's top (a dead slot), is made private.  Otherwise a window grown
// above the depth a program reaches would never shrink (issue 9 item 2).
TEST(WoolWindow, PrivatizationAtALowerSlotDropsTheDeadTopSlot) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  inline_joins_at_top_public(o, privatize_after - 1);  // all at slot 0, with pub = 4
  EXPECT_EQ(o.win().pub, initial_public);
  inline_joins_at_top_public(o, 1);
  EXPECT_EQ(o.win().pub, initial_public - 1);
  EXPECT_EQ(o.win().inlined_public, 0u);
  expect_window_invariants(o);
  // The dropped slot is private: a push there is plain and popped without synchronizing.
  std::vector<probe> p(initial_public);
  for (auto& x : p) o.push(x);
  EXPECT_EQ(o.state(initial_public - 1), ts::task(&run_probe));
  EXPECT_EQ(o.join_top(), joined::private_pop);
  while (o.top() > 0) EXPECT_EQ(o.join_top(), joined::inline_public);
  expect_window_invariants(o);
}

TEST(WoolWindow, AStolenJoinRestartsThePrivatizationCount) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  owner o(m, 0);
  // A stolen join restarts the count: 63 inlines at slot 3, then a stolen join there.
  std::vector<probe> below(initial_public - 1);
  for (auto& x : below) o.push(x);
  inline_joins_at_top_public(o, privatize_after - 1);
  EXPECT_EQ(o.win().inlined_public, privatize_after - 1);
  probe s;
  o.push(s);
  while (o.bot() < o.top()) ASSERT_TRUE(m.sched().steal(m.w(1), o.w));  // from the bottom up to slot 3
  EXPECT_EQ(o.join_top(), joined::stolen);
  EXPECT_EQ(o.win().inlined_public, 0u);
  EXPECT_EQ(o.win().pub, initial_public);
  while (o.top() > 0) EXPECT_EQ(o.join_top(), joined::stolen);
  // The thief tripped the wire on its way up: the next push grows the window instead.
  probe g;
  o.push(g);
  EXPECT_EQ(o.win().pub, initial_public + grow_by);
  EXPECT_EQ(o.join_top(), joined::inline_public);
  EXPECT_EQ(o.win().inlined_public, 1u);
  expect_window_invariants(o);
}

// A random but reproducible interleaving of pushes, joins and steals (two thieves), with the
// invariants checked after every step and every task run exactly once.
TEST(WoolWindow, RandomInterleavingKeepsTheInvariants) {
  wt::manual_runtime m(weft::policy::wool, 3, capacity);
  owner o(m, 0);
  std::mt19937 rng(7);
  const std::size_t steps = std::size_t(wt::pick(40000, 8000));
  std::vector<std::unique_ptr<probe>> all;
  std::uint64_t stolen = 0, grown = 0, shrunk = 0;
  for (std::size_t i = 0; i < steps; ++i) {
    const std::size_t pub_before = o.win().pub;
    // Odd phases have no thief and keep the top near the window's edge, where privatization acts.
    const bool quiet = (i / 2000) % 2 == 1;
    unsigned r = rng() % 16;
    if (quiet && r < 10) r = o.top() < o.win().pub ? 0 : 7;
    if (quiet && r >= 13) r = 12;
    if (r < 7 && o.top() < capacity) {
      all.push_back(std::make_unique<probe>());
      o.push(*all.back());
    } else if (r < 13 && o.top() > 0) {
      o.join_top();
    } else if (m.sched().steal(m.w(1 + (r & 1)), o.w)) {
      ++stolen;
    }
    grown += o.win().pub > pub_before;
    shrunk += o.win().pub < pub_before;
    expect_window_invariants(o);
    if (::testing::Test::HasFatalFailure()) return;
  }
  while (o.top() > 0) o.join_top();
  for (std::size_t k = 0; k < all.size(); ++k) ASSERT_EQ(all[k]->runs.load(), 1) << "task " << k;
  // The walk must have exercised what it checks (with seed 7).
  std::printf("[ info ] %llu steals, %llu growths, %llu privatizations\n", (unsigned long long)stolen,
              (unsigned long long)grown, (unsigned long long)shrunk);
  EXPECT_GT(stolen, 0u);
  EXPECT_GT(grown, 0u);
  EXPECT_GT(shrunk, 0u);
}

// The real join (join.hpp) on a wool worker: its fast-path push lands in a public slot only through
// the slow path, which tags it; a thief that steals it mid-join runs the copy, and the join returns
// the thief's result.
TEST(WoolWindow, RealJoinTagsPublicPushesAndTakesAStolenResult) {
  wt::manual_runtime m(weft::policy::wool, 2, capacity);
  hot_state& h = tls_hot;
  ASSERT_EQ(h.self, nullptr) << "the test thread must not be a worker";
  worker& w = m.w(0);
  h.self = &w;
  h.top = w.stack.begin();
  h.loops_run_as = m.h(0).loops_run_as;
  h.poll.store(m.h(0).poll.load());
  w.hot = &h;
  std::uintptr_t seen_depth0 = 0, seen_depth4 = 0;
  int thief_ran = 0;
  auto nest = [&](auto& self, int d) -> int {
    if (d == 5) {
      seen_depth4 = w.stack.begin()[4].state.load();
      seen_depth0 = w.stack.begin()[0].state.load();
      return 0;
    }
    auto [x, y] = weft::join([&] { return self(self, d + 1); }, [d] { return d + 1; });
    return x + y;
  };
  auto [a, b] = weft::join(
      [&] {
        int r = nest(nest, 1);
        thief_ran = m.sched().steal(m.w(1), w) ? 1 : 0;  // takes slot 0: this join's second branch
        return r;
      },
      [] { return 100; });
  h.self = nullptr;
  h.top = nullptr;
  h.poll.store(poll_bit::external);
  EXPECT_TRUE(ts::is_public_task(seen_depth0));
  EXPECT_TRUE(ts::is_task(seen_depth4) && !ts::is_public_task(seen_depth4)) << "slot 4 is private";
  EXPECT_EQ(thief_ran, 1);
  EXPECT_EQ(a, 2 + 3 + 4 + 5);
  EXPECT_EQ(b, 100);
  EXPECT_EQ(m.w(1).steals, 1u);
}

// ---------------------------------------------------------------------------------------------
// Races: the owner pushes and joins `depth` tasks per round for a fixed number of rounds; 1-3
// thieves steal until the owner is done.  Every task runs exactly once (thief or owner, never both,
// never neither), whatever the interleaving; the window invariants that need no quiescence hold at
// the end.  Bounded by the owner's task count; past a tenth of its rounds also by 10 s of wall time
// (wt::round_budget: each round yields to the thieves, a scheduler slice on a loaded machine, where
// the three instances took 55 s of ctest's 120, stop 57).

class WoolRace : public ::testing::TestWithParam<unsigned> {};

TEST_P(WoolRace, EveryTaskRunsExactlyOnce) {
  const unsigned thieves = GetParam();
  wt::manual_runtime m(weft::policy::wool, thieves + 1, capacity);
  owner o(m, 0);
  const std::size_t full = std::size_t(wt::pick(20000, 2000)), depth = 12;
  const wt::round_budget budget(full, full / 10, std::chrono::seconds(10));
  std::vector<probe> p(full * depth);
  std::atomic<bool> done{false};
  std::latch started(thieves + 1);
  std::vector<std::thread> ts;
  for (unsigned t = 1; t <= thieves; ++t)
    ts.emplace_back([&, t] {
      started.arrive_and_wait();
      // Spin between attempts (so that a thief on another core races the owner's joins), and
      // yield now and then (so that one sharing the owner's core lets it go on).
      for (unsigned fails = 0; !done.load(std::memory_order_acquire);)
        if (!m.sched().steal(m.w(t), o.w) && ++fails % 64 == 0) std::this_thread::yield();
    });
  started.arrive_and_wait();
  std::uint64_t stolen_joins = 0;
  std::size_t rounds = 0;
  for (std::size_t r = 0; budget.more(r); rounds = ++r) {
    for (std::size_t k = 0; k < depth; ++k) o.push(p[r * depth + k]);
    // Let the thieves in (they may share our core) before a different join each round, or in no
    // round at all: thieves then find the window in every state of the unwinding.
    const std::size_t yield_before = r % (depth + 2);
    for (std::size_t k = 0; k < depth; ++k) {
      if (k == yield_before) std::this_thread::yield();
      stolen_joins += o.join_top() == joined::stolen;
    }
    // Every slot is joined: a stolen slot 0 set bot back to 0, and no thief wins slot k > 0 unless
    // slot k - 1 was stolen.
    ASSERT_EQ(o.bot(), 0u) << "round " << r;
  }
  done.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();
  std::uint64_t thief_steals = 0;
  for (unsigned t = 1; t <= thieves; ++t) thief_steals += m.w(t).steals;
  ASSERT_GE(rounds, full / 10);
  for (std::size_t i = 0; i < rounds * depth; ++i) ASSERT_EQ(p[i].runs.load(), 1) << "task " << i;
  for (std::size_t i = rounds * depth; i < p.size(); ++i) ASSERT_EQ(p[i].runs.load(), 0) << "task " << i << " (never pushed)";
  EXPECT_EQ(stolen_joins, thief_steals) << "each stolen join matches one steal";
  EXPECT_EQ(o.w.leapfrogs, 0u) << "the thieves never publish anything to leapfrog onto";
  EXPECT_GE(o.win().pub, 1u);
  EXPECT_EQ(o.win().trip.load(), expected_trip(o.win().pub));
  std::printf("[ info ] %u thieves: %llu of %zu tasks stolen (%zu rounds), window now %zu public slots\n", thieves,
              (unsigned long long)stolen_joins, rounds * depth, rounds, o.win().pub);
}

INSTANTIATE_TEST_SUITE_P(Thieves, WoolRace, ::testing::Values(1u, 2u, 3u));

}  // namespace
