// weft — the runtime side of loop frames: splitting a loop's remaining range into a child (a
// promotion), TBB's auto partitioner for ws-ap, and the per-worker pool of children.
#include "weft/detail/chaos.hpp"
#include "pool_runtime.hpp"
#include "loop_split.hpp"
#include "weft/detail/loop.hpp"

namespace weft::detail {

namespace {
constexpr std::uint64_t ap_k = 4, ap_v = 4;  // LS l.136-153: K = V = 4 (Robison et al.)
}

loop_record& loop_of(frame* fr) noexcept { return **std::launder(reinterpret_cast<loop_record**>(fr->payload)); }

// A child from the worker's pool, or nullptr when a new block cannot be allocated (a promotion is
// optional: the range then simply stays with its loop).  noexcept: it runs inside a poll, between
// a join's push and its first branch, where an exception would leave the task stack's top wrong.
loop_child* alloc_loop_child(worker& w) noexcept {
  if (w.free_children.empty()) {
    constexpr std::size_t block = 64;
    try {
      auto children = std::make_unique<loop_child[]>(block);
      // Room for every child ever allocated, so that free_loop_child (noexcept) never reallocates.
      w.free_children.reserve(w.child_blocks.size() * block + block);
      w.child_blocks.push_back(std::move(children));
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    for (std::size_t i = 0; i < block; ++i) w.free_children.push_back(&w.child_blocks.back()[i]);
  }
  loop_child* c = w.free_children.back();
  w.free_children.pop_back();
  return c;
}

void free_loop_child(hot_state& h, loop_child* c) noexcept {
  // The owner of a loop joins its children, and a child comes from its owner's pool.
  WEFT_ASSERT(!(c->fr.marks & frame_mark::on_deque) && !task_state::is_stolen(c->fr.state.load(std::memory_order_relaxed)), "a loop child freed before its join (still on the deque or STOLEN)");
  h.self->free_children.push_back(c);
}

namespace {

// Where a promotion would split the loop's remaining range: the thief gets the upper half (we keep
// serial order), or, with `allow_whole`, a last iteration whole (LS Alg. 3: the oldest TD pushed
// whole when it holds one task).  Only under grain 1, where each iteration is a task of its own: with
// weft::grain{n > 1} a remainder of at most n iterations belongs to the piece the owner is running,
// which the grain keeps whole, on one thread (given away whole, lazy-bf moved the rest of a
// grain-sized loop to a thief mid-way: Loops.ARangeNoLongerThanTheGrainIsNotSplit, 1,936 of 4,000
// iterations on another thread at 8 workers).  False: nothing to give.
bool split_point(const loop_record& rec, bool allow_whole, std::uint64_t& mid, promotion_kind& kind) noexcept {
  const std::uint64_t remaining = rec.end - rec.next;
  if (remaining > rec.shape->grain && remaining >= 2) {
    mid = rec.end - remaining / 2;
    // At an aligned cut (loop.hpp, loop_align): it moves the cut down by less than loop_align
    // iterations, under 6 % of a range of 16 * loop_align or more; shorter ranges are halved exactly.
    if (remaining >= 16 * loop_align) mid = aligned_cut(rec.next, mid, rec.shape->phase, 0);
    kind = promotion_kind::loop_half;
    return true;
  }
  if (allow_whole && remaining == 1 && rec.shape->grain == 1) {
    mid = rec.next;
    kind = promotion_kind::loop_whole;
    return true;
  }
  return false;
}

// A timed piece keeps a remainder of fewer than min_split_chunks chunks (loop.hpp): it gives away
// no part smaller than a chunk.  For good (chunk_kept): the chunk shrinks and grows, but the
// oldest-first check passes over a frame that is no candidate for ever (sched_deque.cpp,
// promote_one), and a piece skipped there and split later would land on the deque above younger
// items promoted meanwhile ("deque order broken at a join").  The remainder then runs here, in at
// most about two chunks (~2-8 us of work as last timed).
bool keeps_rest(loop_record& rec) noexcept {
  if (rec.chunk & chunk_kept) return true;
  const std::uint64_t chunk = chunk_of(rec);
  if (chunk <= 1 || rec.end - rec.next >= min_split_chunks * chunk) return false;
  rec.chunk |= chunk_kept;
  return true;
}

}  // namespace

bool loop_can_split(frame* fr, bool allow_whole) noexcept {
  loop_record& rec = loop_of(fr);
  std::uint64_t mid;
  promotion_kind kind;
  return !keeps_rest(rec) && split_point(rec, allow_whole, mid, kind);
}

bool loop_keeps_rest(frame* fr) noexcept {
  return fr->state.load(std::memory_order_relaxed) == task_state::loop && (loop_of(fr).chunk & chunk_kept) != 0;
}

bool split_loop(worker& w, frame* fr, bool allow_whole, std::uint64_t child_chunks) {
  loop_record& rec = loop_of(fr);
  std::uint64_t mid;
  promotion_kind kind;
  if (keeps_rest(rec) || !split_point(rec, allow_whole, mid, kind)) return false;
  loop_child* c = alloc_loop_child(w);
  if (c == nullptr) return false;
  WEFT_ASSERT(!task_state::is_stolen(c->fr.state.load(std::memory_order_relaxed)), "a loop child reused while its thief still runs it");
  c->begin = mid;
  c->end = rec.end;
  c->chunks = child_chunks;
  c->chunk = chunk_of(rec);
  c->shared = rec.shape;
  c->has_result = false;
  c->fr.error = nullptr;
  c->fr.state.store(task_state::task(rec.shape->run_child), std::memory_order_relaxed);
  if (!w.rt->sched->promote_frame(w, &c->fr)) {  // deque full: the range stays ours
    w.free_children.push_back(c);
    return false;
  }
  c->older = rec.children;
  rec.children = c;
  WEFT_CHAOS_POINT();  // the child is stealable, the running range not yet shrunk (owner-private: no race)
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
  while (rec.chunks > 1 && rec.end - rec.next > rec.shape->grain && rec.end - rec.next >= 2) {
    rec.chunks /= 2;
    if (!split_loop(w, fr, false, rec.chunks)) break;
  }
}

void loop_arm(hot_state& h, frame* fr, std::uint64_t chunks) noexcept {
  loop_record& rec = loop_of(fr);
  rec.chunks = chunks != 0 ? chunks : ap_k * h.self->rt->workers.size();
  rec.ap_armed_at = cycle_count();
}

// The piece tested that it is due (adaptive_loop::run_chunks); once per piece.
void loop_split_now(hot_state& h, frame* fr) {
  loop_of(fr).ap_armed_at = 0;
  loop_begin(h, fr);
}

std::uint64_t loop_child_chunks(hot_state& h, const loop_child& c, bool stolen) noexcept {
  if (h.loops_run_as != loop_style::auto_partitioned) return 0;
  return stolen ? std::max(c.chunks, ap_v) : c.chunks;  // a stolen range gets at least V chunks
}

}  // namespace weft::detail
