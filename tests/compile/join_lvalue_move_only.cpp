// Compile probe (ctest compile_join_lvalue_move_only): a move-only closure passed as an lvalue is a
// valid branch — the serial elision calls it in place, nothing needs to copy it.
//
// Regression probe: join()'s slow path once built its branches with Fn(std::forward<F>(f)), a copy
// for an lvalue, so a closure owning a std::unique_ptr did not compile (and a copyable stateful one
// was silently copied: see Join.LvalueFunctionObjectsAreCalledNotCopied).
#include <weft/weft.hpp>

#include <memory>

int probe_lvalue_move_only() {
  auto f = [p = std::make_unique<int>(1)] { return *p; };
  auto g = [p = std::make_unique<int>(2)] { return *p; };
  auto [a, b] = weft::join(f, g);
  return a + b;
}
