// tools::fib_spawn (tools/programs.hpp), alone in its translation unit as fib_value is.
#include "programs.hpp"

namespace tools {

long fib_spawn(int n) {
  if (n < 2) return n;
  auto t = weft::spawn([n] { return fib_spawn(n - 2); });
  const long a = [n]() noexcept { return fib_spawn(n - 1); }();
  return a + t.sync();
}

}  // namespace tools
