// Link-fail probe: a program compiled with -D_GLIBCXX_DEBUG (tests/CMakeLists.txt) against a libweft
// built without it.  std::vector's layout differs between the two modes and the API passes vectors
// (implemented_policies(), stats::workers): before stop 48 this program linked and crashed in
// ~vector (found by stop 48's consumer hunt); now the link fails naming the mismatch.
#include <weft/weft.hpp>

int main() {
  int n = 0;
  for (weft::policy p : weft::implemented_policies()) n += p == weft::policy::serial;
  return n == 1 ? 0 : 1;
}
