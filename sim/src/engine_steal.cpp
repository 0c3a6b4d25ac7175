// Making work stealable (promotion at the policy's trigger) and taking it (steals, leapfrogging).
#include <algorithm>
#include <stdexcept>

#include "engine_state.hpp"

namespace weft_sim::detail {

bool Simulator::latent(const Frame& f) const {
  if (f.stage != Stage::children) return false;
  const NodeKind kind = dag_.node(f.node).kind;
  if (kind == NodeKind::pair) return f.sub == pair_left && f.right == Right::latent;
  if (kind != NodeKind::loop) return false;
  if (chunked()) {
    // The runtime's split_point: half of two or more, or (oldest-first policies, LS Alg. 3's "push
    // oldestTD whole") a single iteration whole; the running chunk is no longer in [next, end).
    const std::uint64_t left = f.end - f.next;
    return f.sub != loop_begin && f.sub != loop_drain && (left >= 2 || (left == 1 && pol_.which == Which::oldest));
  }
  // While an iteration runs, the whole rest is latent; between iterations only a range of two or
  // more can be split (the next iteration stays here: LS Algorithm 3's "while nrt > grain").
  return (f.sub == loop_running && f.next < f.end) || (f.sub == loop_next && f.end - f.next >= 2);
}

// Would the runtime have this frame on its task stack?  A join's frame from its push until its first
// branch returns (then it is popped, or, its branch stolen, below the base), a loop's frame while
// the loop runs; a strand's own work is no frame there.
bool Simulator::on_task_stack(const Frame& f) const {
  if (f.stage != Stage::children) return false;
  const NodeKind kind = dag_.node(f.node).kind;
  return kind == NodeKind::loop || (kind == NodeKind::pair && f.sub == pair_left);
}

void Simulator::promote(unsigned w, std::uint32_t idx) {
  Frame& f = ws_[w].frames[idx];
  if (dag_.node(f.node).kind == NodeKind::loop) {
    split_range(w, idx);
    return;
  }
  Item it;
  it.node = dag_.node(f.node).right;
  it.parent = {std::int32_t(w), idx, f.gen};
  it.span_start = f.span_fork + costs_.promote;  // HB's cost graph: the branch forks at the pair
  it.trip_wire = pol_.trigger == Trigger::public_window && trip_position(w, f.spawn_index);
  f.right = Right::promoted;
  push_promoted(w, it);
}

// Both kinds of promotion end alike: the promotion is charged, the item goes on w's deque, ready
// from w's clock after the charge (a thief acting earlier in between does not see it yet), counted,
// and idle processors are woken.
void Simulator::push_promoted(unsigned w, const Item& it) {
  if (cfg_.promoted_nodes) cfg_.promoted_nodes->push_back(it.node);
  if (cfg_.promoted_ranges && it.is_range) cfg_.promoted_ranges->emplace_back(it.lo, it.hi);
  charge_overhead(w, costs_.promote);
  ws_[w].deque.push_back(it);
  ws_[w].deque.back().ready = ws_[w].clock;
  deque_changed(w);
  ++queued_;
  ++r_.promotions;
  r_.live_items_peak = std::max(r_.live_items_peak, ++live_items_);
  wake_all(ws_[w].clock);
}

// Publish the upper half of frame idx's remaining range (the whole of a single remaining
// iteration while another runs), keeping the lower half here.
void Simulator::split_range(unsigned w, std::uint32_t idx) {
  Frame& f = ws_[w].frames[idx];
  const std::uint64_t left = f.end - f.next;
  const std::uint64_t mid = left >= 2 ? f.next + left / 2 : f.next;
  if (left >= 2) ++r_.loop_splits;
  Item it;
  it.node = f.node;
  it.is_range = true;
  it.lo = mid;
  it.hi = f.end;
  it.chunks = f.chunks;
  it.chunk = f.timed ? f.chunk : 0;
  it.parent = {std::int32_t(w), idx, f.gen};
  it.span_start = f.span + costs_.promote;
  f.end = mid;
  ++f.pending;
  charge_overhead(w, costs_.split);  // the range's own bookkeeping, beyond a pair's promotion
  push_promoted(w, it);
}

// One promotion, as the runtime's promote_one (both the lazy trigger and the beat call it): the
// oldest latent frame (BF, heartbeat), or the innermost frame on the task stack if it is latent (DF:
// the runtime looks at `top - 1` only, so a loop piece with one iteration left promotes nothing
// there instead of an older, bigger item below it); only the frames of the task this worker runs
// (Worker::base).  True when it promoted.
bool Simulator::promote_one(unsigned w) {
  const Worker& k = ws_[w];
  if (pol_.which == Which::oldest) {
    for (std::uint32_t i = k.base; i < k.depth; ++i)
      if (latent(k.frames[i])) {
        promote(w, i);
        return true;
      }
    return false;
  }
  for (std::uint32_t i = k.depth; i-- > k.base;) {
    if (!on_task_stack(k.frames[i])) continue;
    if (!latent(k.frames[i])) return false;
    promote(w, i);
    return true;
  }
  return false;
}

// DF's remembered frame (Worker::held_item) is still one of the running task's frames.
bool Simulator::held_item_valid(const Worker& k) {
  return k.held_item >= std::int64_t(k.base) && k.held_item < std::int64_t(k.depth);
}

// LS §6.2: a check that finds the deque short promotes until it holds THR items or nothing more
// can be promoted, reading the deque's size again after each push.  The deque is shared: a thief
// may take the item just pushed before the owner looks again — the runtime's loop re-reads the
// shared size (src/sched_deque.cpp, promote_below_threshold), and this window is the "delay" that
// LS credits for DF2-LS's scaling ("this second push of a TD gives thieves some time to steal the
// first TD … the worker will notice that theft and subsequently keep pushing outer tasks").  So
// each push is one step: the check goes on at the owner's next step (Worker::check_open), after
// every processor whose clock is earlier has acted, instead of in one instant that no thief could
// interleave with (the model before stop 31, where DF2-LS always pushed exactly two).
void Simulator::promote_while_short(unsigned w) {
  Worker& k = ws_[w];
  k.check_open = k.deque.size() < pol_.threshold && promote_one(w) && k.deque.size() < pol_.threshold;
}

void Simulator::poll(unsigned w) {
  Worker& k = ws_[w];
  switch (pol_.trigger) {
    case Trigger::deque_short: {  // LS §3.3 (innermost) and §6.1 (oldest)
      ++r_.polls;
      charge_overhead(w, costs_.check);
      // Items kept for thieves; one processor has none, and the runtime's one-worker pool turns
      // the trigger off (src/sched_deque.cpp).
      if (P_ == 1) return;
      // LS §6.2: a check that finds the deque short promotes until it holds THR items (DF2-LS:
      // half of the loop being run, then half of what is left) or nothing more can be promoted —
      // unless no thief is looking (the runtime's hold while every other worker backs off).  DF
      // remembers the innermost frame of the held check and promotes it first at the next check
      // that promotes (src/sched_deque.cpp, promote_below_threshold, says why).
      if (k.deque.size() < pol_.threshold && no_thief_looking(w)) {
        if (pol_.which == Which::innermost && k.depth > k.base && !held_item_valid(k)) k.held_item = k.depth - 1;
        return;
      }
      if (pol_.which == Which::innermost && k.held_item >= 0) {
        const bool valid = held_item_valid(k);
        const auto i = std::uint32_t(k.held_item);
        k.held_item = -1;
        if (valid && k.deque.empty() && on_task_stack(k.frames[i]) && latent(k.frames[i])) promote(w, i);
      }
      promote_while_short(w);
      return;
    }
    case Trigger::heartbeat:  // HB §2: the oldest promotable frame, at most once per N units
      ++r_.polls;
      charge_overhead(w, costs_.check);
      if (k.clock < k.next_beat) return;
      if (costs_.hb_spare && !some_processor_spare(w)) {
        // Nobody to send the beat: it is sent when a processor stops running a task, at that
        // processor's next look for work — modelled as this poll looking again a failed steal
        // attempt later (which also keeps the scan below off most polls).
        k.next_beat = k.clock + failed_attempt_cost(costs_);
        return;
      }
      if (promote_one(w)) {
        ++r_.beats;
        k.next_beat = k.clock + costs_.heartbeat;  // N more units of work before the next one
      }
      return;
    case Trigger::public_window:
      ++r_.polls;
      charge_overhead(w, costs_.check);
      if (k.trip_notified) wool_publish(w);
      return;
    default: return;
  }
}

// WOOL §III.B's trip wire: a thief took the last public descriptor, so the owner makes
// `wool_step` more task-stack positions public and publishes the latent ones among them.
void Simulator::wool_publish(unsigned w) {
  Worker& k = ws_[w];
  k.trip_notified = false;
  k.public_limit += costs_.wool_step;
  ++r_.trip_wires;
  for (std::uint32_t i = 0; i < k.depth; ++i) {
    const Frame& f = k.frames[i];
    if (!latent(f)) continue;
    if (dag_.node(f.node).kind == NodeKind::pair) {
      if (f.spawn_index < k.public_limit) promote(w, i);
    } else if (k.spawns_open < k.public_limit && k.frames[i].end - k.frames[i].next >= 2) {
      wool_split(w, i);
    }
  }
}

// One random victim per attempt. With zero steal latency an attempt costs nothing, so the thief
// looks at every other deque (from a random start) before parking: no worker idles while any
// deque holds work, which the greedy-bound test relies on.
bool Simulator::steal_random(unsigned w) {
  if (P_ == 1) return false;
  const unsigned start = unsigned(rng_.below(P_ - 1));
  if (costs_.steal != 0) return steal_from(w, start >= w ? start + 1 : start);
  return steal_around(w, start);
}

// Zero steal latency: the thief looks at victims start, start + 1, ... (mod P - 1, w skipped: the
// workers from start's number up, then from 0), P - 1 attempts in all unless one succeeds, which
// it does at the first deque whose oldest item is ready at w's clock (steal_from).  ready_ finds
// that deque, the attempts before it are counted at once; when none is ready, the soonest item
// any of them will have (a successful steal leaves soonest_item_ unused: wait_for_item only follows
// a failure).
bool Simulator::steal_around(unsigned w, unsigned start) {
  const unsigned first = start >= w ? start + 1 : start;  // the worker the first attempt looks at
  const Time now = ws_[w].clock;
  // Nothing ready on any deque, and w's own empty: the answer of the walks below (every attempt
  // fails; the soonest item of the others is the soonest of all) read at the tree's root.  Every
  // thief a push woke but the one that takes its item ends here: at P = 16,384 with steal=0 the
  // two range walks were half the run's time (stop 52's siminput hunt).
  if (ready_.all() > now && ready_.at(w) == ReadyIndex::none) {
    r_.steal_attempts += P_ - 1;
    soonest_item_ = std::min(soonest_item_, ready_.all());
    return false;
  }
  unsigned victim = ReadyIndex::npos;
  const auto look = [&](unsigned lo, unsigned hi) {  // [lo, hi) without w
    if (victim != ReadyIndex::npos || lo >= hi) return;
    if (w < lo || w >= hi) {
      victim = ready_.first_at_most(lo, hi, now);
      return;
    }
    victim = ready_.first_at_most(lo, w, now);
    if (victim == ReadyIndex::npos) victim = ready_.first_at_most(w + 1, hi, now);
  };
  look(first, P_);
  look(0, first);
  if (victim == ReadyIndex::npos) {
    r_.steal_attempts += P_ - 1;
    soonest_item_ = std::min({soonest_item_, ready_.min(0, w), ready_.min(w + 1, P_)});
    return false;
  }
  const unsigned place = victim > w ? victim - 1 : victim;  // its number among the others
  r_.steal_attempts += (place + (P_ - 1) - start) % (P_ - 1);  // the failed attempts before it
  if (!steal_from(w, victim)) throw std::logic_error("simulator: a ready item could not be stolen");
  return true;
}

// WOOL §III.B as the runtime sets it: the trip wire is the 2nd highest public slot, and a steal
// at or above it notifies the owner.
bool Simulator::trip_position(unsigned w, std::uint64_t index) const {
  return index + kWoolTripDistance >= ws_[w].public_limit;
}

// WOOL §III.B: after inlining many public tasks in a row, the owner makes its top public slot
// private again (the runtime's maybe_privatize).
void Simulator::wool_inlined_public(unsigned w, std::uint32_t spawn_index) {
  Worker& k = ws_[w];
  if (++k.inlined_public < kWoolPrivatizeAfter) return;
  k.inlined_public = 0;
  if (spawn_index + 1 == k.public_limit && k.public_limit > 1) --k.public_limit;
}

// wool: publish the upper half of a loop frame's range as the next task-stack descriptor.
void Simulator::wool_split(unsigned w, std::uint32_t idx) {
  Worker& k = ws_[w];
  const bool trip = trip_position(w, k.spawns_open);
  split_range(w, idx);
  k.deque.back().trip_wire = trip;
  k.deque.back().slot = k.spawns_open;
  ++k.frames[idx].spawned;
  ++k.spawns_open;
}

void Simulator::idle_steal(unsigned w) {
  Worker& k = ws_[w];
  if (back_off_after_steal(w)) return;
  soonest_item_ = ~Time(0);
  if (steal_random(w)) {
    k.theft_open = true;  // the item runs from here; the worker is back in this loop when it ends
    k.theft_start = k.clock;
    k.waited_at_theft = k.waited;
    return;
  }
  if (costs_.steal == 0 || P_ == 1) {
    wait_for_item(w);
  } else {
    advance(k.clock, failed_attempt_cost(costs_));
    search_dormant(w);
  }
}

// A thief whose attempt failed while no deque holds an item fails every attempt until a push (or,
// blocked, its join's end): it leaves the event queue until wake_all (the simulator's time for a
// long idle stretch no longer grows with its length over the attempt cost: a 3-node DAG of 1e9-unit
// leaves took 46 s at P = 256 before stop 40).  Counted as searching meanwhile (no_thief_looking),
// and its skipped attempts counted when it wakes (run()).  Not under time sharing, whose off
// slices the skipped steps would have taken.
void Simulator::search_dormant(unsigned w) {
  if (queued_ != 0 || costs_.slice_on != 0 || failed_attempt_cost(costs_) == 0) return;
  Worker& k = ws_[w];
  k.dormant = true;
  k.dormant_at = k.clock;
  park(w);
}

// Zero steal latency: a thief that found nothing parks until something changes — unless it saw an
// item whose promotion is not paid for yet at its clock: then it waits until it is (its push woke the
// parked ones already).
void Simulator::wait_for_item(unsigned w) {
  if (soonest_item_ == ~Time(0)) return park(w);
  ws_[w].clock = std::max(ws_[w].clock, soonest_item_);
}

// The runtime's steal backoff (idle.cpp): back from a stolen item whose own work was small, wait
// before looking again — 1 us, doubling per small theft in a row, up to the limit.  Only the idle
// loop's thefts count (a blocked join's leapfrogs do not open one).
bool Simulator::back_off_after_steal(unsigned w) {
  Worker& k = ws_[w];
  if (!k.theft_open) return false;
  k.theft_open = false;
  const Time ran = k.clock - k.theft_start, waited = k.waited - k.waited_at_theft;
  const Time own = ran > waited ? ran - waited : 0;
  ++r_.idle_thefts_done;
  r_.idle_theft_time += double(own);
  if (costs_.backoff == 0 || own >= costs_.backoff_small) {
    k.backoff_now = 0;
    return false;
  }
  k.backoff_now = k.backoff_now == 0 ? std::min(costs_.backoff_first, costs_.backoff)
                                     : std::min(2 * k.backoff_now, costs_.backoff);
  ++r_.steal_backoffs;
  advance(k.clock, k.backoff_now);  // idle time: neither work nor overhead
  backoffs_.moved(k.backoff_until, k.clock, true);  // w steps: it is loud
  k.backoff_until = k.clock;
  return true;
}

// A blocked join (its promoted branch was stolen and still runs): leapfrog, i.e. steal only from
// the thief or from whom it waits for (WOOL §I.b, as the runtime's wait_stolen), so the stack
// holds only descendants of the joined branch.
void Simulator::blocked_step(unsigned w, Frame& f) {
  Worker& k = ws_[w];
  std::int32_t target = f.thief;
  if (dag_.node(f.node).kind == NodeKind::loop)
    target = f.thieves.empty() ? -1 : f.thieves[rng_.below(f.thieves.size())];
  k.blocked_on = target;
  soonest_item_ = ~Time(0);
  if (costs_.leapfrog) {
    std::int32_t v = target;
    for (unsigned hops = 0; v >= 0 && v != std::int32_t(w) && hops < P_; ++hops) {
      if (steal_from(w, unsigned(v))) {
        ++r_.leapfrogs;
        if (hops == 0) ++r_.leapfrogs_from_thief;
        return;
      }
      v = ws_[unsigned(v)].blocked_on;
    }
  } else if (steal_random(w)) {
    return;
  }
  if (costs_.steal == 0) wait_for_item(w);
  else {
    advance(k.clock, failed_attempt_cost(costs_));
    k.waited += failed_attempt_cost(costs_);  // a join's wait: no work of a stolen item (backoff)
    search_dormant(w);
  }
}

bool Simulator::steal_from(unsigned thief, unsigned victim) {
  ++r_.steal_attempts;
  Worker& v = ws_[victim];
  if (v.deque.empty()) return false;
  // The oldest item is the first ready (an owner pushes in its clock's order): not yet, none is.
  if (v.deque.front().ready > ws_[thief].clock) {
    soonest_item_ = std::min(soonest_item_, v.deque.front().ready);
    return false;
  }
  Item it = v.deque.front();  // the oldest: breadth-first thefts (LS §2)
  v.deque.pop_front();
  deque_changed(victim);
  --queued_;
  Frame& p = ws_[unsigned(it.parent.worker)].frames[it.parent.frame];
  if (it.is_range) {
    p.thieves.push_back(std::int32_t(thief));
    if (pol_.loops == LoopSplit::auto_partitioner) it.chunks = std::max(it.chunks, costs_.ap_v);
  } else {
    p.right = Right::stolen;
    p.thief = std::int32_t(thief);
  }
  if (it.trip_wire) v.trip_notified = true;
  pay_steal(ws_[thief].clock, r_, costs_, jitter_rng_);
  run_item(thief, it, it.span_start, true);
  return true;
}

void Simulator::run_item(unsigned w, const Item& it, Time span_start, bool stolen) {
  Frame& f = push_frame(w, it.node, span_start);
  f.is_item = true;
  f.parent = it.parent;
  if (stolen) {
    f.stolen = true;
    f.saved_base = ws_[w].base;
    ws_[w].base = ws_[w].depth - 1;
  }
  if (costs_.hb_thread_credit) {
    // HB §3.4: a promoted thread starts with no credit; the interrupted one keeps its own.
    const Worker& k = ws_[w];
    f.saved_beat = k.next_beat > k.clock ? k.next_beat - k.clock : 0;  // credit still to earn
    ws_[w].next_beat = ws_[w].clock + costs_.heartbeat;
  }
  if (it.is_range) {
    f.is_range = true;
    f.next = it.lo;
    f.end = it.hi;
    f.chunks = it.chunks;
    f.chunk = it.chunk;
    f.timed = it.chunk != 0;
    f.stage = Stage::children;
    f.sub = loop_begin;
  }
}

}  // namespace weft_sim::detail
