// weft — weft::spawn's slow paths that need no type (include/weft/detail/spawn_slow.hpp): misuse, and
// the work/span mode's record of a spawn.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "weft/spawn.hpp"

namespace weft::detail {

void spawn_synced_twice() {
  throw std::logic_error("weft::spawned::sync: the task was synced already (a handle syncs once)");
}

void spawn_out_of_order(bool at_sync) noexcept {
  std::fprintf(stderr,
               "weft: a weft::spawned handle was %s while it was not the youngest open task of this thread (a "
               "younger handle still open above it, a join branch opened since its spawn, or another thread): "
               "its frame cannot be joined safely any more. Sync handles youngest first, on the thread that "
               "spawned them, at the level of their spawn.\n",
               at_sync ? "synced" : "destroyed unsynced");
  std::abort();
}

std::uintptr_t spawn_measured(hot_state& h) {
  ++h.joins;
  auto* r = new measured_spawn;
  measure_fork(h, r->outer, true);
  return reinterpret_cast<std::uintptr_t>(r) | spawn_state::measured_tag;
}

static measured_spawn& measured_of(std::uintptr_t s) noexcept {
  return *reinterpret_cast<measured_spawn*>(s & ~spawn_state::tag_mask);
}

void sync_measured_begin(hot_state& h, std::uintptr_t s) noexcept { measure_next(h, measured_of(s).first, true); }

void sync_measured_end(hot_state& h, std::uintptr_t s) noexcept {
  measured_spawn& r = measured_of(s);
  measure_join(h, r.outer, r.first);
  delete &r;
}

}  // namespace weft::detail
