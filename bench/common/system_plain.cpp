// bench/common/system_plain.cpp: the hooks of the systems without policies or counters (serial,
// tbb, omp), linked into their binaries beside their own system_<system>.cpp.
#include "bench.hpp"

namespace bench {

void reject_policy(const args& a) {
    if (!a.policy.empty()) throw usage_error("--policy is only for the weft system");
}

std::string system_policy() { return ""; }

std::vector<std::string> system_policy_names() {
    throw usage_error(std::string("--policy is only for the weft system (this is ") +
                      system_name() + ")");
}

void system_before_timed() {}
void system_after_timed() {}
std::string system_extra_json() { return ""; }

}  // namespace bench
