// Compile probe (ctest compile_invoke_callables): parallel_invoke takes what join takes, any number
// of them — functions named directly, const closures, move-only lvalue closures (called in place,
// never copied), void and move-only results — and its result binds to structured bindings.
#include <weft/weft.hpp>

#include <memory>

static int one() { return 1; }
static void nothing() {}

int probe_invoke_callables(int x) {
  const auto twice = [x] { return 2 * x; };
  auto owning = [p = std::make_unique<int>(3)] { return *p; };
  auto [a, b, c, d, e] = weft::parallel_invoke(one, nothing, twice, owning, [] { return std::make_unique<int>(4); });
  (void)b;
  struct fn {
    int operator()() const { return 5; }
  };
  const fn f{};
  auto [g] = weft::parallel_invoke(f);
  auto [h, i] = weft::parallel_invoke(f, one);
  return a + c + d + *e + g + h + i;
}
