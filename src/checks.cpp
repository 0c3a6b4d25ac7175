// weft — the failure path of WEFT_ASSERT (weft/detail/checks.hpp).  Always built, so that a
// program compiled with checks on links against a library built either way.
#include "weft/detail/checks.hpp"

#include <cstdio>
#include <cstdlib>

namespace weft::detail {

void invariant_failed(const char* what, const char* file, int line) noexcept {
  std::fprintf(stderr, "weft: internal invariant broken: %s (%s:%d)\n", what, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace weft::detail
