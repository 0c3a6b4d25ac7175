// The engines' indices (sim/src/ready_index.hpp, backoff_index.hpp, deque_order.hpp) against the
// scans they replace, on random sequences of operations: each must answer exactly what the scan
// answered, or a run's figures change (sim/identical_check.sh checks whole runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <list>
#include <vector>

#include "backoff_index.hpp"
#include "deque_order.hpp"
#include "ready_index.hpp"
#include "rng.hpp"

using namespace weft_sim;
using namespace weft_sim::detail;

TEST(SimIndex, ReadyIndexIsTheScansAnswer) {
  // Sizes around powers of two; few distinct values, so that ties and "none" are common.
  for (const unsigned n : {1u, 2u, 3u, 63u, 64u, 65u, 1000u}) {
    Rng rng(n);
    ReadyIndex index(n);
    std::vector<Time> value(n, ReadyIndex::none);
    for (int op = 0; op < 4000; ++op) {
      const unsigned i = unsigned(rng.below(n));
      value[i] = rng.below(3) == 0 ? ReadyIndex::none : rng.below(20);
      index.set(i, value[i]);
      const unsigned lo = unsigned(rng.below(n + 1)), hi = lo + unsigned(rng.below(n + 1 - lo));
      const Time t = rng.below(22);
      unsigned first = ReadyIndex::npos;
      Time least = ReadyIndex::none;
      for (unsigned j = lo; j < hi; ++j) {
        if (first == ReadyIndex::npos && value[j] <= t) first = j;
        least = std::min(least, value[j]);
      }
      ASSERT_EQ(index.first_at_most(lo, hi, t), first) << "n " << n << " op " << op;
      ASSERT_EQ(index.min(lo, hi), least) << "n " << n << " op " << op;
      ASSERT_EQ(index.all(), *std::min_element(value.begin(), value.end())) << "n " << n << " op " << op;
      ASSERT_EQ(index.at(i), value[i]) << "n " << n << " op " << op;
    }
  }
}

TEST(SimIndex, BackoffHoldIsTheScansAnswer) {
  // The scan of Simulator::no_thief_looking before the index: w's own entry left out.
  struct W {
    Time until = 0;
    bool parked = false, dormant = false;
  };
  const unsigned n = 9;
  Rng rng(7);
  std::vector<W> ws(n);
  BackoffIndex index;
  index.reset(n);
  auto quiet = [](const W& k) { return k.parked && !k.dormant; };
  for (int op = 0; op < 20000; ++op) {
    const unsigned u = unsigned(rng.below(n));
    W& k = ws[u];
    switch (rng.below(3)) {
      case 0: {  // a new backoff end (small values: ties and equal ends are common)
        const Time until = rng.below(12);
        index.moved(k.until, until, !quiet(k));
        k.until = until;
        break;
      }
      case 1:  // park, searching (dormant) or not
        if (!k.parked) {
          k.dormant = rng.below(2) == 0;
          k.parked = true;
          if (quiet(k)) index.quiet(k.until);
        }
        break;
      default:  // unpark
        if (k.parked) {
          if (quiet(k)) index.loud(k.until);
          k.parked = k.dormant = false;
        }
    }
    // Ask for every loud worker at a few clocks.
    for (unsigned w = 0; w < n; ++w) {
      if (quiet(ws[w])) continue;
      const Time now = rng.below(12);
      unsigned waiting = 0;
      bool expect = true;
      for (unsigned v = 0; v < n && expect; ++v) {
        if (v == w) continue;
        if (ws[v].until > now) ++waiting;
        else if (!quiet(ws[v])) expect = false;
      }
      expect = expect && waiting != 0;
      ASSERT_EQ(index.hold(now, ws[w].until), expect) << "op " << op << " w " << w << " now " << now;
    }
  }
}

TEST(SimIndex, DequeOrderIsTheListsOrder) {
  // A std::list of element numbers with a non-empty mark, as engine_threads.cpp kept before.
  struct E {
    std::int32_t id;
    bool stocked;
  };
  Rng rng(3);
  DequeOrder order;
  std::list<E> list;
  list.push_back({order.push_back(), false});
  for (int op = 0; op < 30000; ++op) {
    const std::size_t size = list.size();
    auto pick = std::next(list.begin(), std::ptrdiff_t(rng.below(size)));
    const std::uint64_t what = rng.below(10);
    if (what < 3 || size < 3) {  // insert just right of one, or at the end
      if (rng.below(8) == 0) list.push_back({order.push_back(), false});
      else list.insert(std::next(pick), {order.insert_after(pick->id), false});
    } else if (what < 5 && size > 1) {
      order.erase(pick->id);
      list.erase(pick);
    } else {
      pick->stocked = rng.below(2) == 0;
      order.set_stocked(pick->id, pick->stocked);
    }
    std::vector<std::int32_t> stocked;
    for (const E& e : list)
      if (e.stocked) stocked.push_back(e.id);
    ASSERT_EQ(order.stocked_count(), stocked.size()) << "op " << op;
    for (std::size_t k = 0; k < stocked.size(); k += 1 + stocked.size() / 8)
      ASSERT_EQ(order.kth_stocked(k), stocked[k]) << "op " << op << " k " << k;
    if (!stocked.empty()) ASSERT_EQ(order.kth_stocked(stocked.size() - 1), stocked.back());
  }
}
