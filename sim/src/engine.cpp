// The event loop and the life cycle of a frame (start, work, finish, notify the join).
#include <algorithm>
#include <queue>
#include <stdexcept>

#include "engine_state.hpp"

namespace weft_sim {
namespace detail {

RunResult simulate_threads(const RunConfig& c);  // engine_threads.cpp
double least_thread_run_bytes(std::uint64_t nesting, unsigned workers);  // engine_threads.cpp

Simulator::Simulator(const RunConfig& c)
    : cfg_(c), dag_(*c.dag), pol_(*c.policy), costs_(c.costs), P_(c.workers),
      chunked_(costs_.chunk_low > 0 &&
               (pol_.loops == LoopSplit::on_promotion || pol_.loops == LoopSplit::auto_partitioner)),
      rng_(c.seed), jitter_rng_(jitter_stream(c.seed)), ws_(c.workers) {
  if (c.workers == 0) throw std::invalid_argument("P: the number of workers must be at least 1");
  if (dag_.root() == kNoNode) throw std::invalid_argument("dag: empty");
  for (auto& k : ws_) {
    k.next_beat = costs_.heartbeat;
    k.public_limit = costs_.wool_public;
    if (costs_.slice_on > 0) k.next_off = rng_.below(costs_.slice_on + costs_.slice_off);
    k.speed = speed_factor(costs_, jitter_rng_);
  }
  // The spread is between the processors: their mean speed is the costs' (a lone processor runs at
  // exactly 1, so T1 stays what the fit measured).
  if (costs_.speed_spread > 0) {
    double mean = 0;
    for (const auto& k : ws_) mean += k.speed / double(ws_.size());
    for (auto& k : ws_) k.speed /= mean;
  }
}

namespace {
using Event = std::pair<Time, unsigned>;
using EventQueue = std::priority_queue<Event, std::vector<Event>, std::greater<>>;
}  // namespace

RunResult Simulator::run() {
  push_frame(0, dag_.root(), 0);
  index_start();
  EventQueue events;
  for (unsigned w = 0; w < P_; ++w) events.push({0, w});
  while (!done_) {
    if (events.empty()) throw std::logic_error("simulator: every worker parked before the root finished");
    const unsigned w = events.top().second;
    events.pop();
    // Keep stepping the same worker while it is still the earliest: no queue traffic.
    for (;;) {
      step(w);
      if (done_ || ws_[w].parked || woke_) break;
      if (!events.empty() && ws_[w].clock > events.top().first) break;
    }
    refresh_spare(w);  // only w's own steps change its depth, join or parking
    if (!done_ && !ws_[w].parked) events.push({ws_[w].clock, w});
    woke_ = false;
    // The workers wake_all woke, back into the queue.  The order they go in does not matter: the
    // queue's entries (clock, worker) are distinct and totally ordered.
    for (const unsigned v : woken_) {
      Worker& k = ws_[v];
      unpark(v);
      k.clock = k.parked_since;
      if (k.dormant) {
        // The attempts it skipped, every failed_attempt_cost from dormant_at, all failed (no item
        // was on any deque); it resumes at its last attempt before the wake, as a worker that had
        // kept stepping would be there, and acts before the waker at the wake's time (ties go to
        // the worker that is stepping).
        k.dormant = false;
        const Time cost = failed_attempt_cost(costs_);
        const Time skipped = std::max<Time>(attempts_before(k.dormant_at, k.clock, cost), 1) - 1;
        k.clock = k.dormant_at + skipped * cost;
        r_.steal_attempts += skipped;
        if (k.depth > 0) k.waited += skipped * cost;  // a blocked join's wait (the backoff's count)
      }
      events.push({k.clock, v});
    }
    woken_.clear();
  }
  // A worker taken off its processor shortly before the root finished may be "off" past the end: only
  // the part within the run counts (its last time off: a worker whose clock passed the end steps no
  // more).  Every other kind of busy time ends before the root does (a join waits for its parts'
  // signals, Frame::done_at), so idle time is never negative.
  for (const Worker& k : ws_) {
    if (k.off_end > r_.makespan) r_.descheduled -= double(k.off_end - std::max(k.off_begin, r_.makespan));
    if (k.dormant)  // its attempts until the end, as if it had stepped
      r_.steal_attempts += attempts_before(k.dormant_at, r_.makespan, failed_attempt_cost(costs_));
  }
  const double busy = r_.raw_work + work_stretch_ + r_.overhead + r_.steal_time + r_.descheduled;
  r_.idle = double(P_) * double(r_.makespan) - busy;
  return r_;
}

// Time-sharing (slice_on/slice_off): at the end of its slice a worker loses slice_off units in
// one step, frames and deque untouched, so the others may steal what it published meanwhile.  A
// step that ran across several slice ends (a long strand) pays for each of them.
bool Simulator::descheduled(unsigned w) {
  Worker& k = ws_[w];
  if (costs_.slice_on == 0 || k.clock < k.next_off) return false;
  k.off_begin = k.clock;
  // Each slice end passed costs slice_off and moves the next one slice_off + slice_on later, so the
  // clock gains on it by slice_on per end: (clock - next_off) / slice_on + 1 ends in all (counted,
  // not looped over: a 2^40-unit strand with slice_on=1 looped 2^40 times).
  const Time ends = (k.clock - k.next_off) / costs_.slice_on + 1;
  advance(k.clock, times(ends, costs_.slice_off));
  r_.descheduled += double(ends) * double(costs_.slice_off);
  advance(k.next_off, times(ends, costs_.slice_off + costs_.slice_on));
  k.off_end = k.clock;
  return true;
}

void Simulator::step(unsigned w) {
  Worker& k = ws_[w];
  if (descheduled(w)) return;
  if (k.check_open) {  // a deque check still going on: nothing else before it ends
    promote_while_short(w);
    return;
  }
  if (k.depth == 0) {
    idle_steal(w);
    return;
  }
  Frame& f = k.top();
  switch (f.stage) {
    case Stage::enter: start_frame(w, f); return;
    case Stage::work_before: run_work(w, f, Stage::children); return;
    case Stage::children: {
      const NodeKind kind = dag_.node(f.node).kind;
      if (kind == NodeKind::pair) pair_step(w, f);
      else if (kind == NodeKind::loop) loop_step(w, f);
      else enter_after(f);
      return;
    }
    case Stage::work_after: run_work(w, f, Stage::finish); return;
    case Stage::finish: finish_frame(w); return;
  }
}

Frame& Simulator::push_frame(unsigned w, std::uint32_t node, Time span) {
  Worker& k = ws_[w];
  if (k.depth == k.frames.size()) k.frames.emplace_back();
  Frame& f = k.frames[k.depth++];
  auto keep = std::move(f.thieves);  // reuse the vector's storage
  keep.clear();
  f = Frame{};
  f.thieves = std::move(keep);
  f.node = node;
  f.gen = ++frame_gen_;
  f.span = span;
  r_.max_stack = std::max<std::uint64_t>(r_.max_stack, k.depth);
  return f;
}

bool Simulator::polls_inside_work() const {
  return costs_.poll > 0 && pol_.trigger != Trigger::eager;
}

void Simulator::push_child(unsigned w, std::uint32_t node) {
  Frame& parent = ws_[w].top();
  const Node& n = dag_.node(node);
  // A leaf without allocation or inner polls needs no frame: run it in place.
  if (n.kind == NodeKind::leaf && n.alloc == 0 && !(polls_inside_work() && n.work > costs_.poll)) {
    advance(ws_[w].clock, work_time(w, n.work));
    r_.raw_work += double(n.work);
    parent.span += n.work;
    ++r_.instances;
    if (cfg_.node_starts) ++(*cfg_.node_starts)[node];
    child_returned(parent);
    return;
  }
  push_frame(w, node, parent.span);
}

void Simulator::child_returned(Frame& p) {
  if (dag_.node(p.node).kind == NodeKind::pair) p.sub = p.sub == pair_left ? pair_left_done : pair_joined;
  else p.sub = loop_next;
}

void Simulator::start_frame(unsigned, Frame& f) {
  if (f.is_range) {
    f.stage = Stage::children;
    return;
  }
  const Node& n = dag_.node(f.node);
  ++r_.instances;
  if (cfg_.node_starts) ++(*cfg_.node_starts)[f.node];
  live_mem_ += n.alloc;
  r_.memory_peak = std::max(r_.memory_peak, live_mem_);
  f.remaining = n.work;
  f.stage = Stage::work_before;
}

void Simulator::enter_after(Frame& f) {
  f.stage = Stage::work_after;
  f.remaining = f.is_range ? 0 : dag_.node(f.node).work_after;
}

void Simulator::run_work(unsigned w, Frame& f, Stage next) {
  if (f.remaining > 0) {
    Time amount = f.remaining;
    if (polls_inside_work()) amount = std::min(amount, costs_.poll);
    advance(ws_[w].clock, work_time(w, amount));
    r_.raw_work += double(amount);
    f.span += amount;
    f.remaining -= amount;
    if (f.remaining > 0) {
      poll(w);  // promotes from frames below; pushes no frame, so `f` stays valid
      return;
    }
  }
  f.stage = next;
}

void Simulator::finish_frame(unsigned w) {
  Worker& k = ws_[w];
  Frame& f = k.top();
  const Node& n = dag_.node(f.node);
  std::uint64_t retained = 0;
  if (f.is_range) {
    retained = f.held;  // a sub-range's children's holdings belong to the loop node
  } else {
    retained = n.free_at_parent_end ? n.alloc : 0;
    live_mem_ -= f.held + (n.free_at_parent_end ? 0 : n.alloc);
  }
  const Time span = f.span;
  const bool is_item = f.is_item;
  const JoinRef parent = f.parent;
  if (f.stolen) k.base = f.saved_base;
  --k.depth;
  if (is_item) {
    if (costs_.hb_thread_credit) k.next_beat = k.clock + k.frames[k.depth].saved_beat;
    notify(parent, span, w, retained);
  } else if (k.depth == 0) {
    done_ = true;
    r_.makespan = k.clock;
    r_.exec_span = double(span);
    r_.memory_at_end = live_mem_;
  } else {
    Frame& p = k.top();
    p.span = span;
    p.held += retained;
    child_returned(p);
  }
}

void Simulator::notify(const JoinRef& ref, Time span_end, unsigned completer, std::uint64_t retained) {
  if (!detached_.empty()) {
    const auto d = detached_.find(ref.gen);
    if (d != detached_.end()) return notify_detached(d->second, ref, span_end, completer, retained);
  }
  Frame& p = ws_[unsigned(ref.worker)].frames[ref.frame];
  if (p.gen != ref.gen) throw std::logic_error("simulator: a finished item's join is gone");
  // The signal is paid before the join can see it: the owner goes on no earlier than the
  // completer's clock after it (wait_for_join).
  if (std::int32_t(completer) != ref.worker) charge_overhead(completer, costs_.sync);
  p.done_at = std::max(p.done_at, ws_[completer].clock);
  p.held += retained;
  p.span_join = std::max(p.span_join, span_end);
  if (dag_.node(p.node).kind == NodeKind::pair) {
    p.right = Right::done;
  } else {
    --p.pending;
    auto it = std::find(p.thieves.begin(), p.thieves.end(), std::int32_t(completer));
    if (it != p.thieves.end()) p.thieves.erase(it);
  }
  --live_items_;
  wake_all(ws_[completer].clock);
}

// Costs::detach: the piece on top of w's stack, its own part done and sub-ranges still running
// elsewhere (none is left in the deque: take_own_item found none), leaves the stack; its join lives
// on in a record, found by the frame's incarnation from the JoinRefs its sub-ranges hold.
void Simulator::detach(unsigned w) {
  Worker& k = ws_[w];
  Frame& f = k.frames[k.depth - 1];
  detached_.emplace(f.gen, Detached{f.pending, f.parent, std::max(f.span, f.span_join), f.held});
  ++r_.detached;
  if (f.stolen) k.base = f.saved_base;
  k.blocked_on = -1;
  --k.depth;
  if (costs_.hb_thread_credit) k.next_beat = k.clock + k.frames[k.depth].saved_beat;  // as finish_frame
}

// A sub-range of a detached piece finished; the last one completes the piece as finish_frame would
// have: its completer notifies the join below.
void Simulator::notify_detached(Detached& d, const JoinRef& ref, Time span_end, unsigned completer,
                                std::uint64_t retained) {
  d.held += retained;
  d.span = std::max(d.span, span_end);
  charge_overhead(completer, costs_.sync);
  --live_items_;
  if (--d.pending > 0) {
    wake_all(ws_[completer].clock);
    return;
  }
  const Detached done = d;
  detached_.erase(ref.gen);
  notify(done.parent, done.span, completer, done.held);
}

}  // namespace detail

double least_run_bytes(const PolicyTraits& policy, std::uint64_t nesting, unsigned workers) {
  if (policy.trigger == Trigger::space_efficient) return detail::least_thread_run_bytes(nesting, workers);
  // The innermost node may be a leaf run in place (Simulator::push_child): one frame fewer.
  return double(nesting > 0 ? nesting - 1 : 0) * double(sizeof(detail::Frame)) +
         double(workers) * double(sizeof(detail::Worker));
}

RunResult simulate(const RunConfig& config) {
  if (config.dag == nullptr || config.policy == nullptr)
    throw std::invalid_argument("simulate: dag and policy are required");
  // Both engines (the thread engine had no check: a pair of costs out of order ran under adf).
  check_costs(config.costs, config.policy->name);
  if (config.policy->trigger == Trigger::space_efficient) return detail::simulate_threads(config);
  detail::Simulator s(config);
  return s.run();
}

}  // namespace weft_sim
