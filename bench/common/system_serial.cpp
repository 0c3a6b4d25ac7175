// bench/common/system_serial.cpp: the serial elision (baseline Ts).  One thread: --workers 1.
#include "bench.hpp"

namespace bench {

const char* system_name() { return "serial"; }

void system_setup(const args& a) {
    if (a.workers != 1)
        throw usage_error("the serial system runs on one thread: --workers must be 1 (got " +
                          std::to_string(a.workers) + ")");
    reject_policy(a);
}

output system_run(kernel_fn fn, const args& a) { return fn(a); }

}  // namespace bench
