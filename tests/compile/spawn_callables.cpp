// Compile probe (ctest compile_spawn_callables): what weft::spawn accepts, as weft::scope::spawn
// does — a function named directly, a named (const) lambda (copied into the handle), a mutable
// lambda, a move-only closure moved in, a function object with a const call operator; and sync's
// result type: the task's result, nothing for a void task.
#include <weft/weft.hpp>

#include <memory>
#include <string>
#include <type_traits>

static int one() { return 1; }
static void nothing() {}

struct doubler {
  int x;
  int operator()() const { return 2 * x; }
};

int probe_spawn_callables() {
  auto t1 = weft::spawn(one);
  auto t2 = weft::spawn(nothing);
  const auto named = [] { return std::string("named"); };
  auto t3 = weft::spawn(named);
  int counter = 0;
  auto t4 = weft::spawn([counter]() mutable { return ++counter; });
  auto owned = std::make_unique<int>(4);
  auto t5 = weft::spawn([p = std::move(owned)] { return *p; });
  auto t6 = weft::spawn(doubler{3});
  static_assert(std::is_same_v<decltype(t1.sync()), int>);
  static_assert(std::is_void_v<decltype(t2.sync())>);
  static_assert(std::is_same_v<decltype(t3.sync()), std::string>);
  static_assert(!std::is_copy_constructible_v<decltype(t6)> && !std::is_move_constructible_v<decltype(t6)>);
  const int r = t6.sync() + t5.sync() + t4.sync() + int(t3.sync().size());
  t2.sync();
  return r + t1.sync();
}
