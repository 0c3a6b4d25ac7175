// bench/common/system_tbb.cpp: oneTBB, thread count through tbb::global_control.
#include <memory>

#include <tbb/global_control.h>

#include "bench.hpp"

namespace bench {
namespace {
std::unique_ptr<tbb::global_control> limit;
}

const char* system_name() { return "tbb"; }

void system_setup(const args& a) {
    if (!a.policy.empty()) throw usage_error("--policy is only for the weft system");
    // Lives until exit: every TBB algorithm of the run uses at most a.workers threads.
    limit = std::make_unique<tbb::global_control>(
        tbb::global_control::max_allowed_parallelism, a.workers);
}

std::string system_policy() { return ""; }
void system_before_timed() {}
void system_after_timed() {}
std::string system_extra_json() { return ""; }

}  // namespace bench
