// Must not compile (ctest compile_fail_reduce_map_not_callable): a reduction's map that cannot take
// the index (here it takes two arguments, a combine in map's place) is refused by a deleted overload
// naming what map must take; map's return type is checked separately (reduce_map_returns_void).
#include <weft/weft.hpp>

#include <functional>

long probe(int n) {
  return weft::parallel_reduce(0, n, 0L, [](long a, long b) { return a + b; }, std::plus<>{});
}
