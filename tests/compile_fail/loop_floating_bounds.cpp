// Must not compile (ctest compile_fail_loop_floating_bounds): a floating-point bound (a loop over
// [0, 10.5), which a serial `for` would take) is refused by name: loop over an integer count.
#include <weft/weft.hpp>

void probe(double* out) { weft::parallel_for(0, 10.5, [out](double x) { out[int(x)] = x; }, weft::grain{4}); }
