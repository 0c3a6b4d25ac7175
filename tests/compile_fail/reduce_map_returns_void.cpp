// Must not compile (ctest compile_fail_reduce_map_returns_void): a reduction's map must return a
// value convertible to the result type; one returning void is refused with weft's message, not
// "void value not ignored" deep in the loop engine.
#include <weft/weft.hpp>

long probe(int n) {
  long sum = 0;
  return weft::parallel_reduce(0, n, 0L, [&](int i) { sum += i; }, [](long a, long b) { return a + b; });
}
