// Must not compile (ctest compile_fail_range_bits_reduce_combine_returns_void): a reduction over a
// std::vector<bool> (run in blocks of bits, loops.hpp) whose combine returns nothing is refused by
// weft's static_assert alone: until stop 52's loopshape hunt the first error was the block loop's
// "void value not ignored" deep in loops.hpp, before weft's message (the test's
// FAIL_REGULAR_EXPRESSION refuses the engine's errors).
#include <weft/weft.hpp>

#include <vector>

long probe(std::vector<bool>& bits) {
  return weft::parallel_reduce(bits, 0L, [](bool b) { return long(b); }, [](long, long) {});
}
