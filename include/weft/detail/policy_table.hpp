// weft — every scheduling policy as one row of one table (SPEC §4).  The library reads it for
// names (parse_policy, to_string, the error texts), validation (config.cpp: which settings a
// policy accepts, whether it is implemented), and to build the runtime (the mechanism, the trigger,
// the latent item, the threshold, the loop style); the tests iterate it.  It depends on nothing but
// the public policy enum, so that a simulator can include it too.
//
// Adding a policy: add its enumerator to weft::policy (config.hpp), then its row here, in enum
// order.  On the deque mechanism, a new combination of existing triggers and items needs nothing
// else; a new trigger or item needs its decision function in sched_deque.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "weft/config.hpp"

namespace weft::detail {

// Where latent work lives and how thieves take it.
enum class mechanism : std::uint8_t {
  none,        // `auto` (resolved to another row)
  caller,      // the serial elision on the calling thread: nothing is ever stealable
  deque,       // a Chase-Lev deque of promoted frames per worker (src/sched_deque.cpp)
  wool_stack,  // Wool's direct task stack, stolen in place (src/sched_wool.cpp)
  fibers,      // NAR's threads: every fork a fiber in one ordered ready structure (src/sched_fibers.cpp)
};

// "When" a policy promotes (SPEC §3).
enum class trigger : std::uint8_t {
  none,                   // `auto`
  never,                  // serial
  every_push,             // at every join/spawn (LS §2.2 "SP")
  deque_below_threshold,  // at a poll while the deque holds fewer than `threshold` items (LS §3.3)
  thief_request,          // a steal at or above Wool's trip wire asks for more (WOOL §III.B)
  heartbeat,              // a beat is due, every N us (HB §2)
  every_fork,             // every join forks a thread (a fiber) the scheduler orders (NAR §3.1)
};

// "Which" latent item a promotion makes stealable (SPEC §3).
enum class promoted_item : std::uint8_t {
  none,
  just_pushed,   // the frame just pushed
  innermost,     // the frame on top: a join's branch, or half the loop running now (LS §3.3)
  oldest,        // the bottom-most promotable frame (LS §6.1, HB §3)
  public_slots,  // every task whose slot lies in the public window (WOOL §III.B)
  // The thread a fork leaves waiting in the ready structure: the preempted parent (adf, dfd: the
  // child runs first, NAR Fig 3.2 / Fig 6.4) or the new child (fifo: the parent goes on).
  forked_thread,
};

// How parallel_for / parallel_reduce run under a policy.
enum class loop_style : std::uint8_t {
  halving,           // a tree of joins, split in halves down to the grain
  loop_frame,        // one loop frame, its remaining range split when the policy promotes it
  auto_partitioned,  // a loop frame split eagerly by TBB's auto partitioner (LS §2.2.2)
  measured,          // the work/span mode (work_span.hpp): each iteration a measured branch; never a policy's
};

// The settings of weft::config beyond workers and policy that a policy accepts (bits).
namespace policy_setting {
inline constexpr std::uint8_t heartbeat_period = 1u << 0;  // config.heartbeat, WEFT_HEARTBEAT_US
inline constexpr std::uint8_t quota = 1u << 1;             // config.quota_bytes, WEFT_QUOTA
}  // namespace policy_setting

struct policy_traits {
  weft::policy value;
  std::string_view name;     // the WEFT_POLICY name
  mechanism runs_on;
  trigger when;
  promoted_item which;
  std::int64_t threshold;    // deque_below_threshold: THR, the deque size below which it promotes
  loop_style loops;
  std::uint8_t settings;     // policy_setting bits
  bool implemented;          // false: named, but rejected by pool construction
  std::string_view paper;    // where it is described (docs/REFERENCES.md)
};

inline constexpr policy_traits policy_table[] = {
    // value               name        runs_on                 when                              which                         THR loops                          settings                         impl.  paper
    {policy::automatic,  "auto",      mechanism::none,       trigger::none,                  promoted_item::none,         0, loop_style::loop_frame,       0,                                false, "SPEC §2"},
    {policy::serial,     "serial",    mechanism::caller,     trigger::never,                 promoted_item::none,         0, loop_style::loop_frame,       0,                                true,  "SPEC §4"},
    {policy::ws,         "ws",        mechanism::deque,      trigger::every_push,            promoted_item::just_pushed,  0, loop_style::halving,          0,                                true,  "LS §2.2"},
    {policy::ws_ap,      "ws-ap",     mechanism::deque,      trigger::every_push,            promoted_item::just_pushed,  0, loop_style::auto_partitioned, 0,                                true,  "LS §2.2.2"},
    {policy::wool,       "wool",      mechanism::wool_stack, trigger::thief_request,         promoted_item::public_slots, 0, loop_style::halving,          0,                                true,  "WOOL §III, §I.b"},
    {policy::lazy_df,    "lazy-df",   mechanism::deque,      trigger::deque_below_threshold, promoted_item::innermost,    1, loop_style::loop_frame,       0,                                true,  "LS §3.3"},
    {policy::lazy_df2,   "lazy-df2",  mechanism::deque,      trigger::deque_below_threshold, promoted_item::innermost,    2, loop_style::loop_frame,       0,                                true,  "LS §6.2"},
    {policy::lazy_bf,    "lazy-bf",   mechanism::deque,      trigger::deque_below_threshold, promoted_item::oldest,       1, loop_style::loop_frame,       0,                                true,  "LS §6.1, Alg. 3"},
    {policy::heartbeat,  "heartbeat", mechanism::deque,      trigger::heartbeat,             promoted_item::oldest,       0, loop_style::loop_frame,       policy_setting::heartbeat_period, true,  "HB §2-4"},
    {policy::adf,        "adf",       mechanism::fibers,     trigger::every_fork,            promoted_item::forked_thread, 0, loop_style::halving,         policy_setting::quota,            true,  "NAR Ch. 3, §5.3"},
    {policy::dfd,        "dfd",       mechanism::fibers,     trigger::every_fork,            promoted_item::forked_thread, 0, loop_style::halving,         policy_setting::quota,            true,  "NAR Ch. 6, §7.1"},
    {policy::fifo,       "fifo",      mechanism::fibers,     trigger::every_fork,            promoted_item::forked_thread, 0, loop_style::halving,         0,                                true,  "NAR §5.3"},
};

inline constexpr std::size_t policy_count = sizeof(policy_table) / sizeof(policy_table[0]);

// Rows are in enum order, so a policy's row is found by its value.
constexpr bool policy_table_in_enum_order() noexcept {
  for (std::size_t i = 0; i < policy_count; ++i)
    if (static_cast<std::size_t>(policy_table[i].value) != i) return false;
  return true;
}
static_assert(policy_table_in_enum_order(), "policy_table: one row per weft::policy, in enum order");

constexpr const policy_traits& traits_of(policy p) noexcept { return policy_table[static_cast<std::size_t>(p)]; }

}  // namespace weft::detail
