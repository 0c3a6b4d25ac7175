// Pairs (fork-join) and loops: how a frame runs its children and joins with promoted ones.
#include <algorithm>
#include <stdexcept>

#include "engine_state.hpp"

namespace weft_sim::detail {

void Simulator::pair_step(unsigned w, Frame& f) {
  Worker& k = ws_[w];
  const Node& n = dag_.node(f.node);
  const std::uint32_t idx = k.depth - 1;
  switch (f.sub) {
    case pair_begin:
      // The join's entry: a latent descriptor (plain stores) and a poll point (SPEC §3).
      ++r_.joins;
      charge_overhead(w, costs_.join);
      f.span_fork = f.span;
      f.right = Right::latent;
      f.sub = pair_left;
      f.spawn_index = k.spawns_open++;
      f.holds_slot = true;
      if (pol_.trigger == Trigger::eager) promote(w, idx);                  // LS §2.2
      else if (pol_.trigger == Trigger::public_window && f.spawn_index < k.public_limit)
        promote(w, idx);                                                     // WOOL §III.B
      poll(w);
      push_child(w, n.left);  // may reallocate the stack: `f` is not used after this
      return;
    case pair_left_done:
      if (f.right != Right::stolen) {
        // The runtime pops the frame before it calls the second branch inline: the branch's own
        // joins reuse its task-stack slot (which decides what is public under wool).
        --k.spawns_open;
        f.holds_slot = false;
      }
      if (f.right == Right::latent) {
        f.right = Right::inline_run;
        f.sub = pair_right;
        push_child(w, n.right);
        return;
      }
      f.sub = pair_wait;
      if (f.right == Right::promoted) {
        // Never stolen: take it back and run it here. It stays a promoted item (its start in
        // the executed graph is the fork + τ, HB §3.4), so its end signals this frame.
        Item it;
        if (!take_own_item(w, idx, it)) throw std::logic_error("simulator: promoted branch lost");
        ++r_.pops;
        charge_overhead(w, costs_.pop);
        f.right = Right::inline_run;
        if (pol_.trigger == Trigger::public_window) wool_inlined_public(w, f.spawn_index);
        run_item(w, it, it.span_start);  // may move the stack: `f` is not used after this
      } else {
        k.inlined_public = 0;  // stolen: the public run is over
      }
      return;
    case pair_wait:
      if (f.right == Right::done) {
        if (wait_for_join(w, f)) return;
        k.blocked_on = -1;
        f.sub = pair_joined;
      } else {
        blocked_step(w, f);
      }
      return;
    case pair_joined:
      if (f.holds_slot) --k.spawns_open;  // a stolen branch's slot is held until its join
      f.span = std::max(f.span, f.span_join);
      enter_after(f);
      return;
    default: throw std::logic_error("simulator: pair frame stepped while its child runs");
  }
}

void Simulator::loop_step(unsigned w, Frame& f) {
  Worker& k = ws_[w];
  const Node& n = dag_.node(f.node);
  const std::uint32_t idx = k.depth - 1;
  switch (f.sub) {
    case loop_begin:
      if (!f.is_range) {
        // An empty loop costs the runtime one compare (loops.hpp returns before any loop code).
        if (n.count > 0) {
          ++r_.loops;
          charge_overhead(w, costs_.loop);
        }
        f.next = 0;
        f.end = n.count;
        if (pol_.loops == LoopSplit::auto_partitioner) f.chunks = costs_.ap_k * P_;
      }
      f.sub = loop_next;
      f.first = f.iter = f.next;
      if (chunked()) {
        // The runtime's chunks (adaptive_loop::run_chunks): a fresh loop ramps up untimed; a part
        // split off a timed piece starts with that piece's chunk, timed from its first iteration.
        f.chunk = f.timed ? f.chunk : 1;
        f.untimed_end = f.timed ? f.first : f.first + costs_.chunk_untimed;
        f.chunk_clock = f.timed ? k.clock : 0;
      }
      if (pol_.loops == LoopSplit::auto_partitioner && costs_.ap_defer > 0) {
        f.ap_armed = true;  // the runtime's loop_arm: the splits wait (Costs::ap_defer)
        f.ap_armed_at = k.clock;
        return;
      }
      loop_partition(w, idx);
      return;
    case loop_next:
      if (f.iter < f.next) return start_iteration(w, f);  // inside a chunk (chunked loops only)
      if (f.ap_armed && k.clock - f.ap_armed_at >= costs_.ap_defer) {
        // The runtime checks after each chunk, the model at each chunk boundary.
        f.ap_armed = false;
        loop_partition(w, idx);  // may move the worker's frames: go on at the next step
        return;
      }
      // A poll point (SPEC §3).  The runtime polls after each chunk, the last included, never
      // before a piece's first (adaptive_loop::run_chunks) — polled there, DF-LS promoted the
      // outermost loop and then nothing for the whole run (uts-geo at P = 1: 6 promotions against
      // the runtime's ~1,900).  Unchunked (chunk_low 0), every iteration is a chunk of its own and
      // the poll comes before each iteration but the first.  The poll may split [next, end).
      if (f.check_pending) {
        f.check_pending = false;  // the check this poll began has ended (promote_while_short)
      } else {
        if (chunked()) {
          if (f.iter != f.first) {
            next_chunk_size(w, f);
            poll(w);
          }
        } else if (f.next < f.end && (f.next != f.first || costs_.poll_first)) {
          poll(w);  // poll_first: LS Fig. 3 checks before a piece's first task too
        }
        if (k.check_open) {  // the check goes on at the next step: the chunk starts after it
          f.check_pending = true;
          return;
        }
      }
      if (f.next < f.end) {
        // The chunk is taken off the range before it runs: no promotion can give it away.
        f.next += chunked() ? std::min(f.chunk, f.end - f.next) : 1;
        return start_iteration(w, f);
      }
      f.sub = loop_drain;
      return;
    case loop_drain: {
      if (f.pending == 0) {
        if (wait_for_join(w, f)) return;
        k.blocked_on = -1;
        k.spawns_open -= f.spawned;
        f.spawned = 0;
        f.span = std::max(f.span, f.span_join);
        enter_after(f);
        return;
      }
      Item it;
      if (take_own_item(w, idx, it)) {  // not stolen: run the sub-range here
        ++r_.pops;
        charge_overhead(w, costs_.pop);
        if (pol_.loops == LoopSplit::public_halves) {
          // A half is a join's second branch in the runtime (wool's loops are halving joins): its
          // slot, the newest this loop holds, is freed before it runs, and its own halves reuse it.
          --f.spawned;
          --k.spawns_open;
          wool_inlined_public(w, it.slot);
        }
        run_item(w, it, it.span_start);
        return;
      }
      // TBB: the piece's continuation waits, not its worker.  Not wool's halves: those are joins on
      // its task stack (their slots are freed in order), not TBB's range tasks.
      if (costs_.detach && f.is_range && pol_.loops != LoopSplit::public_halves) {
        detach(w);
        return;
      }
      blocked_step(w, f);
      return;
    }
    default: throw std::logic_error("simulator: loop frame stepped while its iteration runs");
  }
}

// The join's last part is done, but its signal reaches the owner only at f.done_at (the completer
// paid Costs::sync first, Simulator::notify): an owner acting earlier waits until then (idle time).
bool Simulator::wait_for_join(unsigned w, const Frame& f) {
  if (f.done_at <= ws_[w].clock) return false;
  ws_[w].clock = f.done_at;
  return true;
}

void Simulator::start_iteration(unsigned w, Frame& f) {
  const std::uint64_t i = f.iter++;
  ++r_.iterations;
  charge_overhead(w, costs_.iter);
  f.sub = loop_running;
  push_child(w, dag_.iteration(dag_.node(f.node), i));  // may move the stack: `f` is not used after this
}

// After a chunk, as adaptive_loop::run_chunks: untimed, the chunk grows by chunk_growth up to the
// first chunk_untimed iterations; then it doubles while a chunk took under chunk_low and halves
// when one took over chunk_high.
void Simulator::next_chunk_size(unsigned w, Frame& f) {
  if (f.iter < f.untimed_end) {
    // Saturating: a chunk_growth as large as 2^33 wrapped the chunk to 0 after two chunks, and a
    // chunk of 0 iterations never advances its loop (stop 48's sim hunt; a chunk past the loop's
    // end runs only what is left, so a saturated one is harmless).
    if (__builtin_mul_overflow(f.chunk, costs_.chunk_growth, &f.chunk)) f.chunk = UINT64_MAX;
    return;
  }
  const Time now = ws_[w].clock;
  if (!f.timed || (now - f.chunk_clock < costs_.chunk_low && f.chunk < kChunkMax))
    f.chunk = f.chunk > UINT64_MAX / 2 ? UINT64_MAX : f.chunk * 2;  // 2^63 doubled was 0 (above)
  else if (now - f.chunk_clock > costs_.chunk_high && f.chunk > 1) f.chunk /= 2;
  f.chunk_clock = now;
  f.timed = true;  // the runtime's rec.chunk: what a part split off from here starts with
}

// Eager splitting on entry: ws halves down to one iteration (LS's SP); ws-ap halves while its
// chunk budget lasts (TBB's auto partitioner, LS l.136–153); lazy policies split only on promotion.
void Simulator::loop_partition(unsigned w, std::uint32_t idx) {
  Frame* f = &ws_[w].frames[idx];
  if (pol_.loops == LoopSplit::eager_halves) {
    while (f->end - f->next >= 2) {
      split_range(w, idx);
      f = &ws_[w].frames[idx];
    }
  } else if (pol_.loops == LoopSplit::public_halves) {
    // The runtime runs wool's loops as recursive halving joins: each half is a descriptor on the
    // task stack, public only below the public limit (WOOL §III.B); the rest stays private here.
    while (f->end - f->next >= 2 && ws_[w].spawns_open < ws_[w].public_limit) wool_split(w, idx);
  } else if (pol_.loops == LoopSplit::auto_partitioner) {
    while (f->chunks > 1 && f->end - f->next >= 2) {
      f->chunks /= 2;
      split_range(w, idx);
      f = &ws_[w].frames[idx];
    }
  }
}

// The newest item of this worker's deque that belongs to frame `idx` (LIFO, like a deque pop).
bool Simulator::take_own_item(unsigned w, std::uint32_t idx, Item& out) {
  auto& d = ws_[w].deque;
  for (auto it = d.rbegin(); it != d.rend(); ++it) {
    if (it->parent.worker == std::int32_t(w) && it->parent.frame == idx) {
      out = *it;
      d.erase(std::next(it).base());
      deque_changed(w);
      --queued_;
      return true;
    }
  }
  return false;
}

}  // namespace weft_sim::detail
