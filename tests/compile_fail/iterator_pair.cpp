// Must not compile (ctest compile_fail_iterator_pair): an iterator pair is refused with a pointer to
// what to pass instead.
#include <weft/weft.hpp>

#include <vector>

void probe(std::vector<int>& v) { weft::parallel_for(v.begin(), v.end(), [](int& x) { x += 1; }); }
