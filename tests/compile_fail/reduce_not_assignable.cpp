// Must not compile (ctest compile_fail_reduce_not_assignable): a reduction's result type that cannot
// be move-assigned is refused with weft's message, not an error deep in the loop engine.
#include <weft/weft.hpp>

struct not_assignable {
  const long v;
};

long probe(int n) {
  return weft::parallel_reduce(0, n, not_assignable{0}, [](int i) { return not_assignable{i}; },
                               [](not_assignable a, not_assignable b) { return not_assignable{a.v + b.v}; })
      .v;
}
