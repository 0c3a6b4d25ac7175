// Must not compile (ctest compile_fail_loop_wide_bounds, built with -std=gnu++20, where __int128 is
// an integral type): bounds wider than 64 bits are refused by a deleted overload that says so — the
// loop engine counts in 64 bits, and a range of 2^64 + 5 iterations ran 5 under the lazy policies.
#include <weft/weft.hpp>

static_assert(std::integral<__int128>, "this probe needs GNU extensions (-std=gnu++20)");

void probe() { weft::parallel_for(__int128(0), __int128(5), [](__int128) {}); }
