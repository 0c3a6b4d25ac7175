// Must not compile (ctest compile_fail_loop_pointer_bounds): pointers that are no iterators (void*;
// an object pointer pair is refused as an iterator pair, iterator_pair.cpp) are no loop bounds.
#include <weft/weft.hpp>

void probe(void* first, void* last) { weft::parallel_for(first, last, [](void* p) { (void)p; }); }
