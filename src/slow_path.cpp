// weft — the entry points from the public templates into the policy (see detail/runtime.hpp).
#include "runtime.hpp"

namespace weft::detail {

void on_poll(hot_state& h, frame* fr) {
  worker& w = *h.self;
  w.rt->sched->on_poll(w, h, fr);
}

reclaimed reclaim(hot_state& h, frame* fr) {
  worker& w = *h.self;
  return w.rt->sched->reclaim(w, h, fr);
}

bool abandon(hot_state& h, frame* fr) { return reclaim(h, fr) == reclaimed::stolen; }

frame* spawn_limit(hot_state& h) noexcept {
  // Spawned tasks may fill half the task stack; the other half is for the joins nested in them.
  const worker& w = *h.self;
  return w.stack.begin() + w.stack.capacity() / 2;
}

}  // namespace weft::detail
