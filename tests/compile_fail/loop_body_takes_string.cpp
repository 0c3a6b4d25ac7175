// Must not compile (ctest compile_fail_loop_body_takes_string): a loop over integer bounds calls its
// body with the index; a body that cannot take it (here a std::string) is refused by a deleted
// overload naming what the body must take, not deep in the loop engine (stop 52's loopshape hunt).
#include <weft/weft.hpp>

#include <string>

void probe(int n) { weft::parallel_for(0, n, [](const std::string& s) { (void)s; }); }
