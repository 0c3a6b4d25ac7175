// Must not compile (ctest compile_fail_invoke_result_not_movable): parallel_invoke returns its
// results in a std::tuple, so an immovable result type is refused with weft's message.
#include <weft/weft.hpp>

struct immovable {
  immovable() = default;
  immovable(immovable&&) = delete;
};

void probe() { weft::parallel_invoke([] { return immovable{}; }); }
