// Must not compile (ctest compile_fail_loop_scoped_enum_bounds): a scoped enum bound, here beside an
// integer one in a reduction with a grain, is refused by name (cast it to its underlying type).
#include <weft/weft.hpp>

#include <functional>

enum class level : unsigned char { low, mid, high };

int probe() {
  return weft::parallel_reduce(0, level::high, 0, [](int i) { return i; }, std::plus<>{}, weft::grain{2});
}
