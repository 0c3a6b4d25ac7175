// Compile probe (ctest compile_ranges_const_and_lvalue): the range loops take what the serial
// elision `for (auto&& x : r) body(x);` takes — const ranges (elements as const references), named
// function objects (called in place, also const ones and move-only ones), functions named directly.
#include <weft/weft.hpp>

#include <array>
#include <functional>
#include <memory>
#include <span>
#include <vector>

static void add_one(long& x) { ++x; }
static long twice(const long& x) { return 2 * x; }

long probe_ranges_const_and_lvalue(std::vector<long>& v, const std::vector<long>& cv) {
  long total = 0;
  weft::parallel_for(cv, [&](const long& x) { (void)x; });
  const std::array<long, 4> ca{1, 2, 3, 4};
  total += weft::parallel_reduce(ca, 0L, [](const long& x) { return x; }, std::plus<>{});
  total += weft::parallel_reduce(std::span<const long>(cv), 0L, twice, std::plus<long>{});

  struct scale {
    long k;
    void operator()(long& x) const { x *= k; }
  };
  const scale by_three{3};
  weft::parallel_for(v, by_three);
  auto owning = [p = std::make_unique<long>(5)](long& x) { x += *p; };  // move-only: never copied
  weft::parallel_for(v, owning, weft::grain{8});
  weft::parallel_for(v, add_one);

  struct sum {
    long operator()(long a, long b) const { return a + b; }
  };
  const sum plus{};
  auto map = [p = std::make_unique<long>(1)](const long& x) { return x * *p; };
  total += weft::parallel_reduce(cv, 0L, map, plus);
  return total;
}
