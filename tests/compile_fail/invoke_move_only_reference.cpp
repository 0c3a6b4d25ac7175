// Must not compile (ctest compile_fail_invoke_move_only_reference): a branch returning a reference
// to a move-only object would have it copied into the results; the error says so.
#include <weft/weft.hpp>

#include <memory>

std::unique_ptr<int> g;

void probe() { weft::parallel_invoke([]() -> std::unique_ptr<int>& { return g; }, [] {}); }
