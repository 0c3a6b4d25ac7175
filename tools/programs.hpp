// The small declarative programs the tools measure: fib with no cutoff, and nqueens as LS
// Algorithm 2 (a parallel reduce over the columns of every row), each beside its serial elision.
#pragma once

#include <weft/weft.hpp>

#include <array>

namespace tools {

inline long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

// fib compiled in a translation unit of its own (tools/fib_alone.cpp), as weft-overhead measures it.
long fib_alone(int n);

// fib as README "Cheap joins" recommends: n captured by value, the first branch declared noexcept
// (the join then needs no exception cleanup, so gcc compiles the recursion as the serial one).
// Defined in its own translation unit (tools/fib_value.cpp): beside fib in one unit it changes how
// gcc inlines fib's recursion into itself (the unit's inlining budget), and so fib's own figure.
long fib_value(int n);

// fib_value written with a typed spawn (weft::spawn): the spawned call is the join's second branch,
// the call made meanwhile its first (noexcept, as there); tools/fib_spawn.cpp.
long fib_spawn(int n);

// fib written with a scope (SPAWN/SYNC) instead of a join: one spawn and one sync per node, the
// same work, so its cost per node against fib's is the cost of a spawn against a join.
inline long fib_scope(int n) {
  if (n < 2) return n;
  long b = 0;
  weft::scope s;
  s.spawn([&b, n] { b = fib_scope(n - 2); });
  const long a = fib_scope(n - 1);
  s.sync();
  return a + b;
}

// The serial elision, as the compiler makes it (gcc unrolls the recursion into loops).
inline long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

using board = std::array<int, 16>;

inline bool safe(const board& q, int row, int col) {
  for (int r = 0; r < row; ++r)
    if (q[r] == col || q[r] - col == row - r || col - q[r] == row - r) return false;
  return true;
}

inline long queens(int n, const board& q, int row) {
  if (row == n) return 1;
  return weft::parallel_reduce(0, n, 0L, [&](int col) -> long {
    if (!safe(q, row, col)) return 0;
    board next = q;
    next[row] = col;
    return queens(n, next, row + 1);
  }, [](long a, long b) { return a + b; });
}

inline long queens_serial(int n, const board& q, int row) {
  if (row == n) return 1;
  long s = 0;
  for (int col = 0; col < n; ++col)
    if (safe(q, row, col)) {
      board next = q;
      next[row] = col;
      s += queens_serial(n, next, row + 1);
    }
  return s;
}

}  // namespace tools
