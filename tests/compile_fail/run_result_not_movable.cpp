// Must not compile (ctest compile_fail_run_result_not_movable): pool::run moves the job's result
// from the pool's thread to the caller, so an immovable result type is refused with weft's message,
// not an error inside <optional> (stop 46's lifecycle hunt).
#include <weft/weft.hpp>

struct immovable {
  immovable() = default;
  immovable(immovable&&) = delete;
};

void probe(weft::pool& p) { p.run([] { return immovable{}; }); }
