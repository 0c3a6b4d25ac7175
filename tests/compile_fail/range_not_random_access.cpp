// Must not compile (ctest compile_fail_range_not_random_access): a std::list is not a range the
// loops can split; the error says what they need.
#include <weft/weft.hpp>

#include <list>

void probe(std::list<int>& l) { weft::parallel_for(l, [](int& x) { x += 1; }); }
