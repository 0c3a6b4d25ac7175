// Must not compile (ctest compile_fail_range_unbounded): an iota view with no bound is random-access
// but has no end to split at; the error says to bound it (iota(a, b), or take(n) of it).
#include <weft/weft.hpp>

#include <ranges>

void probe() { weft::parallel_for(std::views::iota(0), [](int) {}); }
