// Compile probe (ctest compile_strict_warnings): weft's headers under a demanding user's warnings.
// Built with -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror (CMakeLists.txt):
// with a plain -I (not -isystem) every warning in an instantiated header template is the user's to
// see, so each entry point is instantiated here with a few index, value and range types.  Until
// stop 48 loop.hpp's loop_record constructor named its parameters as its members, and any loop
// failed a user's -Wshadow -Werror build (found by stop 48's consumer hunt).
#include <weft/weft.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

static long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([n]() noexcept { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

static long fib_spawn(int n) {
  if (n < 2) return n;
  auto t = weft::spawn([n] { return fib_spawn(n - 2); });
  long a = [n]() noexcept { return fib_spawn(n - 1); }();
  return a + t.sync();
}

struct counter {
  int hits = 0;
  void bump() { ++hits; }
};

long probe_strict_warnings() {
  weft::pool pool(weft::config{.workers = 2, .policy = weft::policy::lazy_bf});
  std::vector<double> v(100, 1.0);
  long r = pool.run([] { return fib(10) + fib_spawn(10); });
  pool.run([&] {
    weft::parallel_for(0, 100, [&](int i) { v[std::size_t(i)] += 1; });
    weft::parallel_for(std::size_t(0), v.size(), [&](std::size_t i) { v[i] += 1; }, weft::grain{4});
    weft::parallel_for(0u, 100u, [&](unsigned i) { v[i] += 1; });
    weft::parallel_for(std::int8_t(0), std::int8_t(100), [&](std::int8_t i) { v[std::size_t(i)] += 1; });
    weft::parallel_for(std::uint16_t(0), std::uint16_t(100), [&](std::uint16_t i) { v[i] += 1; });
    weft::parallel_for(-50L, 50L, [&](long i) { v[std::size_t(i + 50)] += 1; });
    weft::parallel_for(v, [](double& x) { x *= 2; });
    weft::parallel_for(std::span<double>(v), [](double& x) { x += 1; });
    std::vector<bool> bits(100);
    weft::parallel_for(bits, [](auto bit) { bit = true; });
    std::vector<counter> cs(10);
    weft::parallel_for(cs, &counter::bump);
  });
  r += pool.run([&] {
    double s = weft::parallel_reduce(v, 0.0, [](double x) { return x * x; }, std::plus<>{});
    long c = weft::parallel_reduce(short(0), short(100), 0L, [](short i) { return long(i); }, std::plus<>{});
    std::uint64_t u = weft::parallel_reduce(std::uint64_t(0), std::uint64_t(100), std::uint64_t(0),
                                            [](std::uint64_t i) { return i; }, std::plus<>{}, weft::grain{8});
    std::array<int, 4> arr{1, 2, 3, 4};
    int a = weft::parallel_reduce(arr, 0, [](int x) { return x; }, std::plus<>{});
    std::vector<std::string> words{"a", "b"};
    std::string t = weft::parallel_reduce(words, std::string{}, [](const std::string& w) { return w; }, std::plus<>{});
    auto [x, y, z] = weft::parallel_invoke([] { return 1; }, [] {}, [] { return std::make_unique<int>(2); });
    (void)y;
    weft::scope sc;
    int spawned = 0;
    sc.spawn([&spawned] { ++spawned; });
    std::string big(64, 'x');
    sc.spawn([&spawned, big] { spawned += int(big.size()); });
    sc.sync();
    long w = weft::region("probe", [] { return 1L; });
    return long(s) + c + long(u) + a + long(t.size()) + x + *z + spawned + w;
  });
  std::vector<int, weft::allocator<int>> accounted(10, 1);
  weft::stats st = pool.stats();
  return r + accounted[0] + long(st.total.joins) + long(weft::implemented_policies().size());
}
