// weft — the failure path of WEFT_ASSERT (weft/detail/checks.hpp).  Always built, so that a
// program compiled with checks on links against a library built either way.
#include "weft/detail/checks.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace weft::detail {

void invariant_failed(const char* what, const char* file, int line) noexcept {
  fatal("internal invariant broken: %s (%s:%d)", what, file, line);
}

// Formatted into a buffer on the stack (no allocation: the heap may be what is broken) and written
// with one write(2), so that lines from threads ending at once do not interleave; a message longer
// than the buffer is cut, ending in "...".
void fatal(const char* format, ...) noexcept {
  char line[2048] = "weft: ";
  constexpr std::size_t prefix = 6, room = sizeof line - prefix - 1;  // one byte kept for the newline
  std::va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(line + prefix, room + 1, format, args);
  va_end(args);
  std::size_t len = prefix + (n < 0 ? 0 : (std::size_t(n) > room ? room : std::size_t(n)));
  if (n > 0 && std::size_t(n) > room) line[len - 1] = line[len - 2] = line[len - 3] = '.';
  line[len++] = '\n';
  std::fflush(stderr);  // what the program printed before comes first
  [[maybe_unused]] const auto r = ::write(2, line, len);
  std::abort();
}

}  // namespace weft::detail
