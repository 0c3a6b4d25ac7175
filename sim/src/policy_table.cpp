#include "policy_table.hpp"

#include <stdexcept>

namespace weft_sim {

std::string policy_names(bool simulated_only) {
  std::string s;
  for (const auto& p : kPolicies) {
    if (simulated_only && !p.simulated) continue;
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

const PolicyTraits& policy_by_name(std::string_view name) {
  for (const auto& p : kPolicies) {
    if (p.name != name) continue;
    if (!p.simulated)
      throw std::invalid_argument("policy '" + std::string(name) +
                                  "' (NAR's space-efficient engine) is not simulated yet; accepted: " +
                                  policy_names(true));
    return p;
  }
  throw std::invalid_argument("policy: unknown '" + std::string(name) + "'; accepted: " +
                              policy_names(true));
}

}  // namespace weft_sim
