// Compile probe (ctest compile_join_function_reference): a function named directly is a valid
// branch, as in the serial elision `f()`.
//
// Regression probe: join(f, g) with functions once deduced G = int(&)() and built Gn = int() (a
// function type) from it ("invalid cast to function type"; sizeof applied to a function type).
#include <weft/weft.hpp>

static int one() { return 1; }
static void nothing() {}

int probe_function_reference() {
  auto [a, b] = weft::join(one, one);
  auto [c, d] = weft::join(nothing, one);
  (void)c;
  return a + b + d;
}
