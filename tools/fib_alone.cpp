// tools::fib (tools/programs.hpp), compiled alone in its translation unit for weft-overhead.  Whether
// gcc inlines fib's recursion into itself (and so how many instructions a join costs beyond two
// calls) depends on the unit-wide inlining budget (--param inline-unit-growth): compiled inside
// overhead.cpp, whatever else that tool instantiates decided it, and a change elsewhere in the
// runtime moved the figure by half (docs/results/fine-grained.md, "ws at 60 instructions").
#include "programs.hpp"

namespace tools {

long fib_alone(int n) { return fib(n); }

}  // namespace tools
