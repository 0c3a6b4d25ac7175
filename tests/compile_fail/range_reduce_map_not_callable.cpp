// Must not compile (ctest compile_fail_range_reduce_map_not_callable): a range reduction's map must
// take an element of the range (here it wants an index pair).
#include <weft/weft.hpp>

#include <functional>
#include <string>
#include <vector>

long probe(const std::vector<std::string>& words) {
  return weft::parallel_reduce(words, 0L, [](int i, int j) { return long(i + j); }, std::plus<>{}, weft::grain{4});
}
