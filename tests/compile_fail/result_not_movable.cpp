// Must not compile (ctest compile_fail_result_not_movable): results are returned by value, so an
// immovable result type is refused with weft's message, not a std::pair constructor's.
#include <weft/weft.hpp>

struct immovable {
  immovable() = default;
  immovable(immovable&&) = delete;
};

void probe() { weft::join([] { return immovable{}; }, [] { return 1; }); }
