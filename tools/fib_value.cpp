// tools::fib_value (tools/programs.hpp), alone in its translation unit.
#include "programs.hpp"

namespace tools {

long fib_value(int n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([n]() noexcept { return fib_value(n - 1); }, [n] { return fib_value(n - 2); });
  return a + b;
}

}  // namespace tools
