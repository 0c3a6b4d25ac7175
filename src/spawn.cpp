// weft — weft::spawn's slow paths that need no type (include/weft/detail/spawn_slow.hpp): misuse, and
// the work/span mode's record of a spawn.
#include <stdexcept>

#include "weft/spawn.hpp"
#include "weft/detail/checks.hpp"

namespace weft::detail {

void spawn_synced_twice() {
  throw std::logic_error("weft::spawned::sync: the task was synced already (a handle syncs once)");
}

void spawn_out_of_order(bool at_sync) noexcept {
  fatal(
      "a weft::spawned handle was %s while it was not the youngest open task of this thread (a younger handle, "
      "or a task of a scope made since, still open above it; a join branch opened since its spawn; or another "
      "thread): its frame cannot be joined safely any more. Sync handles youngest first, on the thread that "
      "spawned them, at the level of their spawn.",
      at_sync ? "synced" : "destroyed unsynced");
}

// A frameless handle's place: one more than those open here before it.  The count cannot wrap in
// practice (2^32 handles open at once on one thread); the place must fit the state beside its tag.
static std::uint32_t open_frameless() noexcept {
  static_assert(sizeof(std::uintptr_t) * 8 >= 32 + spawn_state::place_shift);
  return ++frameless_handles();
}

std::uintptr_t spawn_deferred() noexcept { return spawn_state::deferred(open_frameless()); }

std::uintptr_t spawn_measured(hot_state& h) {
  ++h.joins;
  auto* r = new measured_spawn;
  r->place = open_frameless();
  measure_fork(h, r->outer, true);
  return reinterpret_cast<std::uintptr_t>(r) | spawn_state::measured_tag;
}

static measured_spawn& measured_of(std::uintptr_t s) noexcept {
  return *reinterpret_cast<measured_spawn*>(s & ~spawn_state::tag_mask);
}

void frameless_closed(std::uintptr_t s, bool at_sync) noexcept {
  const std::uint32_t place = spawn_state::is_deferred(s)
                                  ? std::uint32_t(s >> spawn_state::place_shift)
                                  : measured_of(s).place;
  std::uint32_t& open = frameless_handles();
  if (place != open) spawn_out_of_order(at_sync);
  --open;
}

void sync_measured_begin(hot_state& h, std::uintptr_t s) noexcept { measure_next(h, measured_of(s).first, true); }

void sync_measured_end(hot_state& h, std::uintptr_t s) noexcept {
  measured_spawn& r = measured_of(s);
  measure_join(h, r.outer, r.first);
  delete &r;
}

}  // namespace weft::detail
