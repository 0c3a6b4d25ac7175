// Compile probe (ctest compile_join_const_lvalue): const closures passed as lvalues are valid
// branches — the serial elision just calls them.
//
// Regression probe: join() once deduced Fn = std::remove_cvref_t<F> and bound the caller's const
// lvalue to Fn& ("binding reference of type 'lambda&' to 'const lambda' discards qualifiers"); the
// same for a const function object.
#include <weft/weft.hpp>

int probe_const_lvalue(int x) {
  const auto f = [x] { return x * 2; };
  const auto g = [&x] { return x + 1; };
  auto [a, b] = weft::join(f, g);
  struct fn {
    int operator()() const { return 3; }
  };
  const fn h{};
  auto [c, d] = weft::join(h, h);
  return a + b + c + d;
}
