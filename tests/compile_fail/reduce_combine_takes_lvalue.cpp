// Must not compile (ctest compile_fail_reduce_combine_takes_lvalue): combine is called with two
// partial results as rvalues, so one that updates its first argument in place through a T& is
// refused with weft's message, not a failed call deep in the loop engine.
#include <weft/weft.hpp>

#include <vector>

std::vector<int> probe(int n) {
  return weft::parallel_reduce(
      0, n, std::vector<int>{}, [](int i) { return std::vector<int>{i}; },
      [](std::vector<int>& a, const std::vector<int>& b) -> std::vector<int>& {
        a.insert(a.end(), b.begin(), b.end());
        return a;
      });
}
