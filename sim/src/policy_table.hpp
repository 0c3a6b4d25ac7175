// The simulator's per-policy rules in one table: when a policy makes latent work stealable
// (trigger), which latent item it takes (which), the deque threshold of the lazy trigger, and how
// loops are split.  The rows of the policies the runtime implements are DERIVED from the runtime's
// own policy table (include/weft/detail/policy_table.hpp, SPEC §4) at compile time: name, trigger,
// item, threshold and loop style come from there, so a rule changed in the runtime's row changes the
// simulator too.  adf, dfd and fifo are modelled from NAR §7.2.2's simulator (engine_threads.cpp)
// under the runtime's names, not from the runtime's fiber engine (src/sched_fibers.cpp), whose
// fifo and adf order threads differently (sim/README.md, "Not done").
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "weft/detail/policy_table.hpp"

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

// A runtime row in the simulator's terms.
constexpr PolicyTraits from_runtime(weft::policy p) {
  using namespace weft::detail;
  const policy_traits& r = traits_of(p);
  const Trigger trigger = r.when == trigger::every_push              ? Trigger::eager
                          : r.when == trigger::deque_below_threshold ? Trigger::deque_short
                          : r.when == trigger::heartbeat             ? Trigger::heartbeat
                                                                     : Trigger::public_window;
  const Which which = r.which == promoted_item::innermost ? Which::innermost
                      : (r.which == promoted_item::oldest || r.which == promoted_item::public_slots) ? Which::oldest
                                                                                                      : Which::none;
  const LoopSplit loops = r.loops == loop_style::auto_partitioned ? LoopSplit::auto_partitioner
                          : r.loops == loop_style::loop_frame     ? LoopSplit::on_promotion
                          : r.runs_on == mechanism::wool_stack    ? LoopSplit::public_halves
                                                                  : LoopSplit::eager_halves;
  return {r.name, trigger, which, unsigned(r.threshold), loops, true};
}

// NAR's thread schedulers (the runtime's fiber engine): the runtime's name, the simulator's own model.
constexpr PolicyTraits space_efficient(weft::policy p) {
  return {weft::detail::traits_of(p).name, Trigger::space_efficient, Which::none, 0, LoopSplit::eager_halves, true};
}

inline constexpr std::array<PolicyTraits, 10> kPolicies{{
    from_runtime(weft::policy::ws),
    from_runtime(weft::policy::ws_ap),
    from_runtime(weft::policy::wool),
    from_runtime(weft::policy::lazy_df),
    from_runtime(weft::policy::lazy_df2),
    from_runtime(weft::policy::lazy_bf),
    from_runtime(weft::policy::heartbeat),
    space_efficient(weft::policy::adf),
    space_efficient(weft::policy::dfd),
    space_efficient(weft::policy::fifo),
}};

// The derivation gives the rows the simulator was written against (a changed runtime row that the
// simulator cannot model fails here, at compile time, not silently in a study).
static_assert(kPolicies[0].trigger == Trigger::eager && kPolicies[1].loops == LoopSplit::auto_partitioner);
static_assert(kPolicies[2].trigger == Trigger::public_window && kPolicies[2].loops == LoopSplit::public_halves);
static_assert(kPolicies[3].which == Which::innermost && kPolicies[3].threshold == 1);
static_assert(kPolicies[4].which == Which::innermost && kPolicies[4].threshold == 2);
static_assert(kPolicies[5].which == Which::oldest && kPolicies[5].threshold == 1);
static_assert(kPolicies[6].trigger == Trigger::heartbeat && kPolicies[6].which == Which::oldest);

// The traits of a simulated policy; std::invalid_argument naming the accepted names otherwise.
const PolicyTraits& policy_by_name(std::string_view name);
std::string policy_names(bool simulated_only);

}  // namespace weft_sim
