// Must not compile (ctest compile_fail_join_branch_takes_arguments): a join's branches are called
// with no arguments; one that takes some is refused with weft's message, as spawn and
// parallel_invoke refuse it, not with std::invoke_result's missing `type` several errors deep.
#include <weft/weft.hpp>

int probe(int n) {
  auto [a, b] = weft::join([](int k) { return k; }, [n] { return n; });
  return a + b;
}
