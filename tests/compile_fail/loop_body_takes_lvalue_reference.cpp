// Must not compile (ctest compile_fail_loop_body_takes_lvalue_reference): the index is each
// iteration's own value, so a body taking it by non-const lvalue reference (`int&`, `auto&`), which
// could only change a copy (or, until stop 52, the loop counter of the halving policies' leaves),
// is refused: take it by value, const reference or `auto&&`.
#include <weft/weft.hpp>

void probe(int n, int* out) {
  weft::parallel_for(0, n, [out](int& i) { out[i] = i; });
}
