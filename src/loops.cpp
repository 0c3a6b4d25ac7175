// weft — the runtime side of loop frames: splitting a loop's remaining range into a child (a
// promotion), TBB's auto partitioner for ws-ap, and the per-worker pool of children.
#include "pool_runtime.hpp"
#include "weft/detail/loop.hpp"

namespace weft::detail {

namespace {
constexpr std::uint64_t ap_k = 4, ap_v = 4;  // LS l.136-153: K = V = 4 (Robison et al.)
}

loop_record& loop_of(frame* fr) noexcept { return **std::launder(reinterpret_cast<loop_record**>(fr->payload)); }

loop_child* alloc_loop_child(worker& w) {
  if (w.free_children.empty()) {
    w.child_blocks.push_back(std::make_unique<loop_child[]>(64));
    for (std::size_t i = 0; i < 64; ++i) w.free_children.push_back(&w.child_blocks.back()[i]);
  }
  loop_child* c = w.free_children.back();
  w.free_children.pop_back();
  return c;
}

void free_loop_child(hot_state& h, loop_child* c) noexcept {
  // The owner of a loop joins its children, and a child comes from its owner's pool.
  h.self->free_children.push_back(c);
}

bool split_loop(worker& w, frame* fr, bool allow_whole, std::uint64_t child_chunks) {
  loop_record& rec = loop_of(fr);
  const std::uint64_t remaining = rec.end - rec.next;
  std::uint64_t mid;
  promotion_kind kind;
  if (remaining > rec.grain && remaining >= 2) {
    mid = rec.end - remaining / 2;  // the thief gets the upper half; we keep serial order
    kind = promotion_kind::loop_half;
  } else if (allow_whole && remaining > 0) {
    mid = rec.next;                 // LS Alg. 3: an unsplittable range is pushed whole
    kind = promotion_kind::loop_whole;
  } else {
    return false;
  }
  loop_child* c = alloc_loop_child(w);
  c->begin = mid;
  c->end = rec.end;
  c->chunks = child_chunks;
  c->shared = rec.shared;
  c->has_result = false;
  c->fr.error = nullptr;
  c->fr.state.store(task_state::task(rec.run_child), std::memory_order_relaxed);
  if (!w.rt->sched->promote_frame(w, &c->fr)) {  // deque full: the range stays ours
    w.free_children.push_back(c);
    return false;
  }
  c->older = rec.children;
  rec.children = c;
  rec.end = mid;
  report_promotion(w, fr, kind);
  return true;
}

void loop_begin(hot_state& h, frame* fr) {
  // TBB's auto partitioner (LS §2.2.2): a loop starts with K*P chunks; each split halves the
  // counter of both parts; no split when it reaches 1 or the range is indivisible.
  worker& w = *h.self;
  loop_record& rec = loop_of(fr);
  if (rec.chunks == 0) rec.chunks = ap_k * w.rt->workers.size();
  while (rec.chunks > 1 && rec.end - rec.next > rec.grain && rec.end - rec.next >= 2) {
    rec.chunks /= 2;
    if (!split_loop(w, fr, false, rec.chunks)) break;
  }
}

std::uint64_t loop_child_chunks(hot_state& h, const loop_child& c, bool stolen) noexcept {
  if (h.loops_run_as != loop_style::auto_partitioned) return 0;
  return stolen ? std::max(c.chunks, ap_v) : c.chunks;  // a stolen range gets at least V chunks
}

}  // namespace weft::detail
