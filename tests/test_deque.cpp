// Component tests of the Chase-Lev deque (include/weft/detail/deque.hpp): the owner's LIFO end, the thieves' FIFO
// end, the fixed capacity, index wrap-around, and the races of docs/PROTOCOLS.md "The Chase-Lev
// deque" — every pushed item is taken exactly once (no loss, no duplicate), including the race of
// the owner's pop against thieves for the last item.  The concurrent tests are bounded in items
// (both races, on a loaded machine, also in time past a tenth of their rounds: wt::round_budget);
// under the sanitizers they run with fewer items (WEFT_TEST_SCALE).
#include <algorithm>
#include <cstring>
#include <latch>
#include <thread>
#include <vector>

#include "common.hpp"
#include "weft/detail/deque.hpp"

namespace {

using weft::detail::chase_lev_deque;
using weft::detail::frame;

// Items are frames of an array; a frame's index is what the tests compare.
struct items {
  explicit items(std::size_t n) : frames(n) {}
  frame* at(std::size_t i) { return &frames[i]; }
  std::size_t index_of(const frame* f) const { return std::size_t(f - frames.data()); }
  std::vector<frame> frames;
};

// ---------------------------------------------------------------------------------------------
// One thread

TEST(DequeSingle, EmptyDequeGivesNothingAndStaysUsable) {
  chase_lev_deque d(8);
  items it(1);
  EXPECT_EQ(d.size(), 0);
  EXPECT_EQ(d.pop(), nullptr);
  EXPECT_EQ(d.steal(), nullptr);
  // A pop of an empty deque decrements, then restores, the bottom index: the deque must be as before.
  EXPECT_EQ(d.size(), 0);
  ASSERT_TRUE(d.push(it.at(0)));
  EXPECT_EQ(d.size(), 1);
  EXPECT_EQ(d.pop(), it.at(0));
  EXPECT_EQ(d.pop(), nullptr);
  EXPECT_EQ(d.size(), 0);
}

TEST(DequeSingle, OwnerPopsYoungestFirst) {
  chase_lev_deque d(16);
  items it(10);
  for (std::size_t i = 0; i < 10; ++i) ASSERT_TRUE(d.push(it.at(i)));
  EXPECT_EQ(d.size(), 10);
  for (std::size_t i = 10; i-- > 0;) EXPECT_EQ(d.pop(), it.at(i)) << "pop " << 10 - i;
  EXPECT_EQ(d.pop(), nullptr);
}

// The eager join (eager.hpp) wakes a sleeper only when its push found the deque empty.
TEST(DequeSingle, PushSaysWhetherTheDequeWasEmpty) {
  chase_lev_deque d(4);
  items it(6);
  bool was_empty = false;
  ASSERT_TRUE(d.push(it.at(0), was_empty));
  EXPECT_TRUE(was_empty);
  ASSERT_TRUE(d.push(it.at(1), was_empty));
  EXPECT_FALSE(was_empty);
  EXPECT_EQ(d.steal(), it.at(0));
  EXPECT_EQ(d.pop(), it.at(1));
  ASSERT_TRUE(d.push(it.at(2), was_empty));
  EXPECT_TRUE(was_empty) << "emptied by a steal and a pop";
  for (std::size_t i = 3; i < 6; ++i) ASSERT_TRUE(d.push(it.at(i), was_empty));
  was_empty = true;
  EXPECT_FALSE(d.push(it.at(0), was_empty)) << "full at 4";
  EXPECT_TRUE(was_empty) << "a failed push reports nothing";
}

// The eager join's pop (eager.hpp): the owner takes back the item it knows to be the youngest, and
// learns whether a thief took it first — the last item included, whose race is decided by the CAS.
TEST(DequeSingle, PopOwnTakesBackTheYoungestOrSaysAThiefHasIt) {
  chase_lev_deque d(8);
  items it(3);
  ASSERT_TRUE(d.push(it.at(0)));
  ASSERT_TRUE(d.push(it.at(1)));
  EXPECT_TRUE(d.pop_own(it.at(1)));
  EXPECT_EQ(d.size(), 1);
  EXPECT_TRUE(d.pop_own(it.at(0))) << "the last item, no thief";
  EXPECT_EQ(d.size(), 0);
  ASSERT_TRUE(d.push(it.at(0)));
  ASSERT_TRUE(d.push(it.at(1)));
  EXPECT_EQ(d.steal(), it.at(0));
  EXPECT_TRUE(d.pop_own(it.at(1)));
  EXPECT_FALSE(d.pop_own(it.at(0))) << "stolen before the pop";
  EXPECT_EQ(d.size(), 0) << "a pop that finds the deque empty leaves it consistent";
  ASSERT_TRUE(d.push(it.at(2)));
  EXPECT_EQ(d.steal(), it.at(2)) << "usable after a failed pop_own";
  EXPECT_EQ(d.pop(), nullptr);
}

TEST(DequeSingle, ThiefStealsOldestFirst) {
  chase_lev_deque d(16);
  items it(10);
  for (std::size_t i = 0; i < 10; ++i) ASSERT_TRUE(d.push(it.at(i)));
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(d.steal(), it.at(i)) << "steal " << i;
  EXPECT_EQ(d.steal(), nullptr);
  EXPECT_EQ(d.pop(), nullptr);
  EXPECT_EQ(d.size(), 0);
}

TEST(DequeSingle, BothEndsMeetInTheMiddle) {
  chase_lev_deque d(8);
  items it(4);
  for (std::size_t i = 0; i < 4; ++i) ASSERT_TRUE(d.push(it.at(i)));
  EXPECT_EQ(d.steal(), it.at(0));
  EXPECT_EQ(d.pop(), it.at(3));
  EXPECT_EQ(d.steal(), it.at(1));
  EXPECT_EQ(d.size(), 1);
  EXPECT_EQ(d.pop(), it.at(2));  // the last item, taken by the owner through the CAS on top
  EXPECT_EQ(d.pop(), nullptr);
  EXPECT_EQ(d.steal(), nullptr);
  // After the last-item path, bottom == top again: the next push and steal work.
  ASSERT_TRUE(d.push(it.at(0)));
  EXPECT_EQ(d.steal(), it.at(0));
  EXPECT_EQ(d.steal(), nullptr);
}

// The deque does not grow: the capacity is rounded up to a power of two, and a push beyond it
// fails, leaving the contents as they were (the runtime then leaves the item latent).
TEST(DequeSingle, FixedCapacityRoundedToPowerOfTwo) {
  for (std::size_t asked : {1u, 2u, 5u, 8u, 100u}) {
    std::size_t cap = 1;
    while (cap < asked) cap <<= 1;
    chase_lev_deque d(asked);
    items it(cap + 1);
    for (std::size_t i = 0; i < cap; ++i) ASSERT_TRUE(d.push(it.at(i))) << "asked " << asked << ", push " << i;
    EXPECT_FALSE(d.push(it.at(cap))) << "asked " << asked << ": a push beyond " << cap << " must fail";
    EXPECT_EQ(d.size(), std::int64_t(cap));
    // A steal frees one slot (the oldest); the push fits again, in the slot just freed.
    EXPECT_EQ(d.steal(), it.at(0));
    ASSERT_TRUE(d.push(it.at(cap)));
    EXPECT_FALSE(d.push(it.at(0)));
    // The failed pushes changed nothing: LIFO from cap down to 1.
    for (std::size_t i = cap + 1; i-- > 1;) EXPECT_EQ(d.pop(), it.at(i)) << "asked " << asked;
    EXPECT_EQ(d.pop(), nullptr);
  }
}

// Indices grow without bound and wrap around the slot array: order holds across many laps.
TEST(DequeSingle, OrderHoldsAcrossManyLapsOfTheSlotArray) {
  chase_lev_deque d(4);
  items it(3);
  for (int lap = 0; lap < 1000; ++lap) {
    for (std::size_t i = 0; i < 3; ++i) ASSERT_TRUE(d.push(it.at(i)));
    ASSERT_EQ(d.steal(), it.at(0)) << "lap " << lap;
    ASSERT_EQ(d.pop(), it.at(2)) << "lap " << lap;
    ASSERT_EQ(d.steal(), it.at(1)) << "lap " << lap;
    ASSERT_EQ(d.size(), 0) << "lap " << lap;
  }
}

// ---------------------------------------------------------------------------------------------
// Races: one owner, 1-3 thieves

struct race_param {
  unsigned thieves;
  std::size_t capacity;  // small: pushes fail on a full deque and indices lap the slot array often
};

void PrintTo(const race_param& p, std::ostream* os) { *os << p.thieves << " thieves, capacity " << p.capacity; }

std::string race_name(const testing::TestParamInfo<race_param>& info) {
  return std::to_string(info.param.thieves) + "thieves_cap" + std::to_string(info.param.capacity);
}

void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Waits for another thread's progress (not for a timing event): spins briefly, then yields, so a
// descheduled thread on a loaded machine gets the core.  Bounded by the test's ctest timeout.
template <class P>
void await(P pred) {
  for (unsigned spins = 0; !pred(); ++spins) {
    if (spins < 64)
      pause();
    else
      std::this_thread::yield();
  }
}

// The owner writes each item's index into its payload with a plain store before pushing it; a thief
// reads it after stealing.  Seeing the right value (and, under TSan, no data race) checks that
// push's release of `bottom` and steal's acquire of it carry the item's contents.
void stamp(frame* f, std::uint64_t i) { std::memcpy(f->payload, &i, sizeof i); }
std::uint64_t stamp_of(const frame* f) {
  std::uint64_t i;
  std::memcpy(&i, f->payload, sizeof i);
  return i;
}

// One owner (the test's thread) and 1-3 thief threads around one deque.  Every few rounds the
// owner waits until every thief has made a steal attempt that began after the round's items were
// pushed, so that thieves take part even on a loaded 2-core machine, where a free-running owner
// would finish before a thief is ever scheduled.  Thieves steal all the time, so the owner's pops
// race them.  Every check is counted and asserted after the
// joins: a fatal assertion must not return past running threads.
struct race {
  race(std::size_t capacity, std::size_t n, unsigned thieves)
      : d(capacity), it(n), taken(n), stolen_by(n, 0), acked(thieves), seen(thieves) {
    for (std::size_t i = 0; i < n; ++i) stamp(it.at(i), i);
    for (unsigned k = 0; k < thieves; ++k) threads.emplace_back([this, k] { thief(k); });
  }
  ~race() { finish(); }

  // Round r's items are pushed: thieves, go.
  void announce(std::size_t r) { round.store(r, std::memory_order_release); }
  // Waits until thief 0 is about to make a steal attempt in round r (it has seen the announcement).
  void await_thief_started(std::size_t r) {
    await([&] { return seen[0].value.load(std::memory_order_acquire) >= r; });
  }
  // Waits until every thief has made a steal attempt that began after round r was announced.
  void await_attempts(std::size_t r) {
    for (auto& a : acked) await([&] { return a.value.load(std::memory_order_acquire) >= r; });
  }
  void take(frame* f) { taken[it.index_of(f)].fetch_add(1, std::memory_order_relaxed); }
  void finish() {
    done.store(true, std::memory_order_release);
    for (auto& t : threads)
      if (t.joinable()) t.join();
  }

  // After finish(): the counts of items 0..upto-1 (default: all).
  std::size_t count_if(bool (*pred)(std::uint32_t), std::size_t upto = SIZE_MAX) const {
    std::size_t c = 0;
    for (std::size_t i = 0; i < std::min(upto, taken.size()); ++i) c += pred(taken[i].load(std::memory_order_relaxed));
    return c;
  }
  std::size_t stolen() const {
    std::size_t c = 0;
    for (unsigned k : stolen_by) c += k != 0;
    return c;
  }

  chase_lev_deque d;
  items it;
  std::vector<std::atomic<std::uint32_t>> taken;
  std::vector<unsigned> stolen_by;  // 0: not stolen; k: thief k - 1 (written by that thief only)
  std::atomic<std::uint64_t> bad_stamps{0}, out_of_order{0};

 private:
  struct alignas(64) ack {
    std::atomic<std::size_t> value{0};
  };
  // Each thief's steals must come in push order (the deque is FIFO at the top).
  void thief(unsigned k) {
    std::size_t last = 0;
    bool any = false;
    unsigned fails = 0;
    wt::rng jitter(k + 1);
    while (!done.load(std::memory_order_acquire)) {
      const std::size_t r = round.load(std::memory_order_acquire);
      if (seen[k].value.load(std::memory_order_relaxed) < r) {
        seen[k].value.store(r, std::memory_order_release);
        // A varying head start for the owner's pop, which may be waiting for this store.
        for (unsigned p = unsigned(jitter.next() % 48); p > 0; --p) pause();
      }
      if (frame* f = d.steal()) {
        const std::size_t i = it.index_of(f);
        if (stamp_of(f) != i) bad_stamps.fetch_add(1, std::memory_order_relaxed);
        if (any && i <= last) out_of_order.fetch_add(1, std::memory_order_relaxed);
        any = true;
        last = i;
        take(f);
        stolen_by[i] = k + 1;
        fails = 0;
      } else if (++fails < 256) {
        pause();
      } else {
        std::this_thread::yield();  // a loaded machine: let the owner (or a build) have the core
        fails = 0;
      }
      if (acked[k].value.load(std::memory_order_relaxed) < r) acked[k].value.store(r, std::memory_order_release);
    }
  }

  std::atomic<bool> done{false};
  std::atomic<std::size_t> round{0};
  std::vector<ack> acked, seen;
  std::vector<std::thread> threads;
};

bool never(std::uint32_t c) { return c == 0; }
bool twice_or_more(std::uint32_t c) { return c > 1; }

class DequeRace : public testing::TestWithParam<race_param> {};
INSTANTIATE_TEST_SUITE_P(All, DequeRace,
                         testing::Values(race_param{1, 8}, race_param{2, 8}, race_param{3, 8}, race_param{1, 1024},
                                         race_param{3, 1024}),
                         race_name);

// The owner pushes bursts and pops some of them back, as joins do; thieves steal throughout.  Every
// item must be taken exactly once; the owner's pops must return its youngest item not yet popped,
// or nothing once thieves took all it had; a failed push (full deque) leaves the item to the owner.
TEST_P(DequeRace, EveryItemTakenExactlyOnce) {
  const std::size_t n = wt::pick<std::size_t>(100'000, 20'000);
  race rc(GetParam().capacity, n, GetParam().thieves);
  // Every 16th round waits for the thieves' attempts: past a tenth of n rounds (each pushes one
  // item or more), a loaded machine stops after 10 s (27-29 s under two busy loops in stop 57's
  // flaky hunt, against ctest's 120 s).
  const wt::round_budget budget(n, n / 10, std::chrono::seconds(10));
  wt::rng r(GetParam().thieves * 7919 + GetParam().capacity);
  std::vector<std::size_t> mine;  // pushed and not yet popped by the owner, oldest first
  std::size_t next = 0, rounds = 0, full = 0, lifo_errors = 0;
  auto owner_pop = [&] {
    frame* f = rc.d.pop();
    if (f == nullptr) {
      mine.clear();  // nothing left: thieves took every item the owner had not popped
      return false;
    }
    const std::size_t i = rc.it.index_of(f);
    if (mine.empty() || mine.back() != i) ++lifo_errors;
    while (!mine.empty() && mine.back() != i) mine.pop_back();
    if (!mine.empty()) mine.pop_back();
    rc.take(f);
    return true;
  };
  while (next < n && budget.more(rounds)) {
    const std::size_t burst = 1 + r.below(12);
    for (std::size_t b = 0; b < burst && next < n; ++b, ++next) {
      if (rc.d.push(rc.it.at(next))) {
        mine.push_back(next);
      } else {
        ++full;  // the item stays latent: its owner runs it
        rc.take(rc.it.at(next));
      }
    }
    rc.announce(++rounds);
    if (rounds % 16 == 0) rc.await_attempts(rounds);  // items are in the deque: thieves will steal
    for (std::size_t p = r.below(unsigned(burst) + 1); p > 0 && owner_pop(); --p) {
    }
  }
  while (owner_pop()) {
  }
  const std::int64_t size_after = rc.d.size();
  // The deque is empty: a thief still holding an item has counted it, or will before its next load
  // of `done`; the joins in finish() order those counts before the checks.
  rc.finish();

  EXPECT_EQ(size_after, 0);
  EXPECT_GE(next, n / 10);
  EXPECT_EQ(rc.count_if(never, next), 0u) << "items never taken";  // items next.. were never pushed
  EXPECT_EQ(rc.count_if(twice_or_more), 0u) << "items taken more than once";
  EXPECT_EQ(lifo_errors, 0u) << "owner pops that were not its youngest item";
  EXPECT_EQ(rc.bad_stamps.load(), 0u) << "stolen items whose contents the thief did not see";
  EXPECT_EQ(rc.out_of_order.load(), 0u) << "a thief's steals out of push order";
  // Every round gives each thief an attempt while items are in the deque: thieves must have stolen.
  EXPECT_GT(rc.stolen(), 0u);
  if (GetParam().capacity < 12) {  // bursts of up to 12 pushes overflow it
    EXPECT_GT(full, 0u) << "the small deque never filled: the full path went untested";
  }
  RecordProperty("stolen", int(rc.stolen()));
  RecordProperty("full_pushes", int(full));
}

// The last-item race: each round the owner pushes one item, announces it, waits a varying few
// pause instructions (or until a thief starts an attempt) and pops it (pop, or pop_own), while thieves steal.  Exactly one side may get it: pop's seq_cst
// store of bottom and load of top against steal's seq_cst loads of top and bottom, then the CAS on
// top.  A pop that skipped the CAS (or a steal that skipped the bottom check) would let both take it.
// Half the rounds wait for thief 0 to be scheduled: on a loaded machine the rounds past a tenth stop
// after 10 s (wt::round_budget; this group ran past ctest's 120 s under load, stop 50 and stop 57).
TEST_P(DequeRace, LastItemGoesToExactlyOneTaker) {
  const std::size_t full = wt::pick<std::size_t>(50'000, 10'000);
  race rc(GetParam().capacity, full, GetParam().thieves);
  wt::rng r(GetParam().thieves * 104729 + GetParam().capacity);
  const wt::round_budget budget(full, full / 10, std::chrono::seconds(10));
  std::size_t owner_won = 0, failed_pushes = 0, wrong_pops = 0, left_behind = 0, n = 0;
  for (std::size_t i = 0; budget.more(i); n = ++i) {
    if (!rc.d.push(rc.it.at(i))) {  // never full: at most one item is in the deque
      ++failed_pushes;
      rc.take(rc.it.at(i));
      continue;
    }
    rc.announce(i + 1);
    // Half the rounds pop the moment thief 0 starts its attempt (the two race for the item within
    // a few cache-line transfers); the others pop after a varying delay, often before any attempt.
    if (i % 2 == 0)
      rc.await_thief_started(i + 1);
    else
      for (unsigned k = r.below(64); k > 0; --k) pause();
    // Every other pair of rounds pops as the eager join does (pop_own: the owner names the item),
    // so that both forms meet both timings.
    frame* const mine = rc.it.at(i);
    if (frame* f = (i / 2) % 2 == 0 ? rc.d.pop() : rc.d.pop_own(mine) ? mine : nullptr) {
      if (f != mine) ++wrong_pops;
      rc.take(f);
      ++owner_won;
    }
    if (rc.d.size() != 0) ++left_behind;
    if ((i + 1) % 64 == 0) rc.await_attempts(i + 1);
  }
  rc.finish();

  EXPECT_EQ(failed_pushes, 0u);
  EXPECT_EQ(wrong_pops, 0u);
  EXPECT_EQ(left_behind, 0u) << "a pop left bottom != top";
  EXPECT_GE(n, full / 10);
  EXPECT_EQ(rc.count_if(never, n), 0u);  // items n.. were never pushed
  EXPECT_EQ(rc.count_if(twice_or_more), 0u) << "the owner and a thief (or two thieves) both took the last item";
  EXPECT_EQ(rc.bad_stamps.load(), 0u);
  EXPECT_EQ(rc.out_of_order.load(), 0u);
  EXPECT_GT(n - owner_won, 0u) << "no thief ever took the item: the race went untested";
  RecordProperty("owner_won", int(owner_won));
  RecordProperty("thieves_won", int(n - owner_won));
  RecordProperty("rounds", int(n));
}

}  // namespace
