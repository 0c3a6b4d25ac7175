// Must not compile (ctest compile_fail_loop_bool_bounds): bool is no loop bound (its integer form
// is refused by the bounds' constraint, not deep inside the engine).
#include <weft/weft.hpp>

void probe() { weft::parallel_for(false, true, [](bool) {}); }
