// Compile probe (ctest compile_ranges_overloads): the range forms and the integer forms, with and
// without a grain, resolve without ambiguity; every kind of random-access range the API promises is
// accepted (temporary views included).
#include <weft/weft.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <ranges>
#include <vector>

long probe_ranges_overloads(std::vector<int>& v, std::deque<int>& d, int n, std::int64_t m) {
  long total = 0;
  auto body_i = [&](auto i) { total += long(i); };
  weft::parallel_for(0, n, body_i);
  weft::parallel_for(0, n, body_i, weft::grain{4});
  weft::parallel_for(std::size_t(0), v.size(), body_i);
  weft::parallel_for(0, m, body_i);  // mixed integer types
  weft::parallel_for(v, [](int& x) { x += 1; });
  weft::parallel_for(v, [](auto& x) { x *= 2; }, weft::grain{4});
  weft::parallel_for(std::views::iota(0, n), body_i);
  weft::parallel_for(std::views::iota(std::int64_t(0), m), body_i, weft::grain{16});
  weft::parallel_for(std::ranges::subrange(d.begin() + 1, d.end()), [](int& x) { x = 0; });
  weft::parallel_for(v | std::views::transform([](int x) { return x + 1; }), body_i);

  total += weft::parallel_reduce(0, n, 0L, [](int i) { return long(i); }, std::plus<>{});
  total += weft::parallel_reduce(0, n, 0L, [](int i) { return long(i); }, std::plus<>{}, weft::grain{2});
  total += weft::parallel_reduce(v, 0L, [](int x) { return long(x); }, std::plus<>{});
  total += weft::parallel_reduce(v, 0L, [](int x) { return long(x); }, std::plus<>{}, weft::grain{2});
  total += weft::parallel_reduce(std::views::iota(std::int64_t(0), m), 0L, [](std::int64_t i) { return long(i); },
                                 std::plus<>{});
  total += weft::parallel_reduce(d, 0L, std::identity{}, std::plus<long>{});
  return total;
}
