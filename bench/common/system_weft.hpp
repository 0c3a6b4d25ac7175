// bench/common/system_weft.hpp: the pool the weft variants run in.
#pragma once

#include <weft/weft.hpp>

namespace bench {

// The pool built by system_setup from --workers and --policy; kernels run their timed
// work as bench::weft_pool().run([&] { ... }).
weft::pool& weft_pool();

}  // namespace bench
