// Compile-fail probe: weft with -fno-exceptions (tests/CMakeLists.txt adds it) is refused with one
// message saying so, not with the compiler's "exception handling disabled" at a try deep in the
// headers (before stop 48; found by stop 48's consumer hunt).
#include <weft/weft.hpp>

long probe_no_exceptions(int n) {
  auto [a, b] = weft::join([n] { return long(n); }, [n] { return long(n + 1); });
  return a + b;
}
