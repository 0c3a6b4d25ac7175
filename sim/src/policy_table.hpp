// The simulator's per-policy rules in one table: when a policy makes latent work stealable
// (trigger), which latent item it takes (which), the deque threshold of the lazy trigger, and how
// loops are split. It mirrors the runtime's policy definitions (SPEC §4); when the runtime's
// constexpr table (include/weft/detail/policy_table.hpp) lands, this table is meant to be replaced
// by, or generated from, that header so that one rule change changes both.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace weft_sim {

enum class Trigger {
  eager,            // ws, ws-ap: every join's second branch is promoted at once (LS §2.2)
  deque_short,      // lazy-*: at a poll, promote when the local deque holds < threshold (LS §3.3, §6)
  heartbeat,        // every N units, promote at the next poll whatever the load (HB §2)
  public_window,    // wool: descriptors below the public limit are public; trip wire grows it
  space_efficient,  // adf, dfd, fifo: NAR's thread schedulers (engine_threads.cpp)
};

enum class Which { none, innermost, oldest };

enum class LoopSplit {
  eager_halves,      // ws: split in halves down to the grain (1) on entry
  auto_partitioner,  // ws-ap: chunks = K·P halved per split, max(chunks, V) on theft (LS l.136–153)
  on_promotion,      // lazy, heartbeat: a loop's remaining range is latent; split on promotion
  public_halves,     // wool: halves are spawned descriptors; public while below the public limit
};

struct PolicyTraits {
  std::string_view name;
  Trigger trigger;
  Which which;
  unsigned threshold;  // deque_short: promote when the deque holds fewer items than this
  LoopSplit loops;
  bool simulated;      // false: named by SPEC §4 but not modelled by this simulator yet
};

inline constexpr std::array<PolicyTraits, 10> kPolicies{{
    {"ws", Trigger::eager, Which::none, 0, LoopSplit::eager_halves, true},
    {"ws-ap", Trigger::eager, Which::none, 0, LoopSplit::auto_partitioner, true},
    {"wool", Trigger::public_window, Which::oldest, 0, LoopSplit::public_halves, true},
    {"lazy-df", Trigger::deque_short, Which::innermost, 1, LoopSplit::on_promotion, true},
    {"lazy-df2", Trigger::deque_short, Which::innermost, 2, LoopSplit::on_promotion, true},
    {"lazy-bf", Trigger::deque_short, Which::oldest, 1, LoopSplit::on_promotion, true},
    {"heartbeat", Trigger::heartbeat, Which::oldest, 0, LoopSplit::on_promotion, true},
    {"adf", Trigger::space_efficient, Which::none, 0, LoopSplit::eager_halves, true},
    {"dfd", Trigger::space_efficient, Which::none, 0, LoopSplit::eager_halves, true},
    {"fifo", Trigger::space_efficient, Which::none, 0, LoopSplit::eager_halves, true},
}};

// The traits of a simulated policy; std::invalid_argument naming the accepted names otherwise.
const PolicyTraits& policy_by_name(std::string_view name);
std::string policy_names(bool simulated_only);

}  // namespace weft_sim
