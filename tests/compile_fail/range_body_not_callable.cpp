// Must not compile (ctest compile_fail_range_body_not_callable): a range loop's body must take an
// element of the range (here a const vector's int through a non-const reference): refused by a
// deleted overload naming it, not a bare "no matching function".
#include <weft/weft.hpp>

#include <vector>

void probe(const std::vector<int>& v) { weft::parallel_for(v, [](int& x) { x += 1; }); }
