// What the stack engine keeps of its workers' states so that a step asks about "every other
// worker" in O(1) or O(log P) instead of scanning all P of them (issue 13: P = 256 on fib:30 in
// seconds; P = 16,384 on fib:25 took 8-72 s per policy with the scans, 0.3-4 s without).  Each index answers exactly
// what its scan answered (sim/identical_check.sh compares a run's every figure with main's).
#include <algorithm>

#include "engine_state.hpp"

namespace weft_sim::detail {

// Once the root's frame is pushed: every worker's state as the indices start from.
void Simulator::index_start() {
  if (costs_.steal == 0) ready_ = ReadyIndex(P_);
  if (costs_.backoff > 0) backoffs_.reset(P_);
  for (unsigned w = 0; w < P_; ++w) refresh_spare(w);
}

// Parked (zero steal latency, or dormant while no deque holds an item): out of the event queue
// until wake_all, which wakes the parked workers only, found in `parked_`.
void Simulator::park(unsigned w) {
  Worker& k = ws_[w];
  k.parked = true;
  k.parked_since = k.clock;
  parked_.push_back(w);
  // Parked without searching, it no longer counts as a thief that may look (no_thief_looking).
  if (costs_.backoff > 0 && !k.dormant) backoffs_.quiet(k.backoff_until);
}

// Back into the event queue (run()).
void Simulator::unpark(unsigned w) {
  Worker& k = ws_[w];
  if (costs_.backoff > 0 && !k.dormant) backoffs_.loud(k.backoff_until);
  k.parked = false;
  refresh_spare(w);
}

// Zero steal latency only: a parked worker retries when something changes (a push or a finished
// item). It is marked here and re-queued by the event loop at time `now`.
void Simulator::wake_all(Time now) {
  if (parked_.empty()) return;
  for (const unsigned w : parked_) {
    Worker& k = ws_[w];
    k.parked_since = std::max(k.parked_since, now);
    k.clock = ~Time(0);
    woken_.push_back(w);
  }
  parked_.clear();
  woke_ = true;  // end the current worker's batch: the woken act at `now`, before its later steps
}

// hb_spare's question (some_processor_spare) per worker: not running a task — looking for work (no
// frame), blocked at a join, or parked.  Only a worker's own steps change these, so the event loop
// recounts a worker after its batch of steps and when it is unparked; a worker asking leaves its own
// (possibly stale) count out.
void Simulator::refresh_spare(unsigned w) {
  Worker& k = ws_[w];
  const bool spare = k.depth == 0 || k.blocked_on >= 0 || k.parked;
  if (spare == k.spare) return;
  k.spare = spare;
  if (spare) ++spare_count_;
  else --spare_count_;
}

// hb_spare: is some processor other than w not running a task — looking for work (no frame),
// blocked at a join, or parked?  The runtime's spare delivery sends beats only then.
bool Simulator::some_processor_spare(unsigned w) const {
  return spare_count_ - (ws_[w].spare ? 1 : 0) > 0;
}

// The runtime's hold on the lazy trigger (src/pool_runtime.hpp no_thief_looking): at least one
// other processor waits out a steal backoff and every other one waits or is parked, so no thief
// will look at a promoted item before a wait ends.  A processor's clock is never behind the one
// polling (the earliest acts first), so "waiting at w's time" is backoff_until > w's clock; a wait's
// end needs no re-arm here, the trigger being re-evaluated at every poll.  A dormant thief is
// searching: it counts as looking.  Without backoff no worker ever waits, and nothing holds.
bool Simulator::no_thief_looking(unsigned w) const {
  if (costs_.backoff == 0) return false;
  return backoffs_.hold(ws_[w].clock, ws_[w].backoff_until);
}

// The deque of w was pushed to or taken from: its oldest item may have changed.  Only the
// zero-latency thieves ask (steal_around).
void Simulator::deque_changed(unsigned w) {
  if (costs_.steal != 0) return;
  const Worker& k = ws_[w];
  ready_.set(w, k.deque.empty() ? ReadyIndex::none : k.deque.front().ready);
}

}  // namespace weft_sim::detail
