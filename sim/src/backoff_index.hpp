// What the lazy trigger's hold (Simulator::no_thief_looking) asks of the other workers, kept as
// the workers change instead of scanning all P of them at every poll: the ends of their steal
// backoffs (Worker::backoff_until), of all workers and of the "loud" ones — those not parked
// without searching (a dormant thief searches).  The hold is "every loud worker other than w waits
// past w's clock, and some worker other than w does": the smallest loud end and the largest end,
// each leaving w's own end out once, answer it in O(log P).
#pragma once

#include <iterator>
#include <set>

#include "dag.hpp"

namespace weft_sim::detail {

class BackoffIndex {
 public:
  // n workers, every backoff ended at 0, every worker loud (none parked).
  void reset(unsigned n) {
    all_.clear();
    loud_.clear();
    for (unsigned i = 0; i < n; ++i) {
      all_.insert(0);
      loud_.insert(0);
    }
  }
  // A worker's backoff end moved from `old_until` to `until`.
  void moved(Time old_until, Time until, bool loud) {
    replace(all_, old_until, until);
    if (loud) replace(loud_, old_until, until);
  }
  // A worker with backoff end `until` became quiet (parked, not searching) or loud again.
  void quiet(Time until) { loud_.erase(loud_.find(until)); }
  void loud(Time until) { loud_.insert(until); }

  // The hold for a loud worker whose clock is `now` and backoff end `own`.
  bool hold(Time now, Time own) const {
    auto first = loud_.begin();  // own is among the loud: leave it out
    if (*first == own) ++first;
    if (first != loud_.end() && *first <= now) return false;  // a loud one not waiting looks
    auto last = all_.rbegin();
    if (*last == own) ++last;
    return last != all_.rend() && *last > now;  // at least one waits
  }

 private:
  static void replace(std::multiset<Time>& s, Time old_value, Time value) {
    s.erase(s.find(old_value));
    s.insert(value);
  }
  std::multiset<Time> all_, loud_;
};

}  // namespace weft_sim::detail
