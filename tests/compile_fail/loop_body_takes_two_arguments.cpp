// Must not compile (ctest compile_fail_loop_body_takes_two_arguments): a body of two parameters
// (a reduction's combine passed as a parallel_for's body, say) is refused by name, with a grain too.
#include <weft/weft.hpp>

void probe(long n, double* y) {
  weft::parallel_for(0L, n, [y](long i, long j) { y[i] += double(j); }, weft::grain{64});
}
