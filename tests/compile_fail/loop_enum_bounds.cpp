// Must not compile (ctest compile_fail_loop_enum_bounds): an enum is no loop bound (it has no ++,
// so its serial `for (auto i = red; i < count; ++i)` does not compile either): refused by a deleted
// overload naming what to pass, not a bare "no matching function" (stop 52's loopshape hunt).
#include <weft/weft.hpp>

enum color { red, green, blue, color_count };

void probe(int* out) { weft::parallel_for(red, color_count, [out](int c) { out[c] = c; }); }
