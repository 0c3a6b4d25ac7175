// Compile probe (ctest compile_join_function_reference): a function named directly is a valid
// branch, as in the serial elision `f()`.
//
// BUG (reported to the runtime author): weft::join(f, g) with functions f, g deduces G = int(&)(),
// Gn = std::remove_cvref_t<G> = int() (a function type), then join() does Gn(std::forward<G>(g))
// ("invalid cast to function type") and branch_in_frame<int()> applies sizeof to a function type.
#include <weft/weft.hpp>

static int one() { return 1; }
static void nothing() {}

int probe_function_reference() {
  auto [a, b] = weft::join(one, one);
  auto [c, d] = weft::join(nothing, one);
  (void)c;
  return a + b + d;
}
