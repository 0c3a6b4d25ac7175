// Must not compile (ctest compile_fail_spawn_result_not_movable): sync returns the task's result by
// value (a thief's is moved out of the frame), so an immovable result type is refused with weft's
// message.
#include <weft/weft.hpp>

struct immovable {
  immovable() = default;
  immovable(immovable&&) = delete;
};

void probe() {
  auto t = weft::spawn([] { return immovable{}; });
  t.sync();
}
