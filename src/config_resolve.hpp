#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include "weft/config.hpp"

namespace weft::detail {
inline constexpr unsigned max_workers = 1024;
// The heartbeat period N when neither config.heartbeat nor WEFT_HEARTBEAT_US sets it (HB §5.1:
// N = 20 tau, tau = 2.1 us measured by build/tools/weft-tau; see docs/results/adaptive.md).
inline constexpr std::chrono::microseconds default_heartbeat{40};
// The steal backoff (src/idle.cpp).  A theft is small when its task's own work (its time less the
// time its joins waited for their thieves) came to less than small_theft: 8 us under the deque
// policies, about five times what a theft costs its victim here (1.4 us, docs/results/core.md), 16
// under Wool, whose loop pieces carry more of its window's synchronization (Wool's 640-iteration
// loop at 2 workers stayed at 1.19x its 1-worker time with 8, 1.07x with 16).  Not lower: with 4,
// Wool's loop stayed at 2.6x.  Not higher: with 16 under lazy-bf a ~30 us computation repeated lost
// its 2-worker speedup (1.00x where it was 0.70x), and a 64 us threshold made the suite's floyd 1.8x
// slower at 2 workers (its phases hand the thief 20-30 us pieces; docs/results/small-work.md, "Steal
// backoff").  Then: the default of config::steal_backoff, the longest wait (when neither it nor
// WEFT_STEAL_BACKOFF_US sets it); the first wait; and the largest limit accepted — no more than an
// idle worker spins anyway before it sleeps (spin_before_sleep_ns, 1 ms), since a waiting thief
// yields its core but does not sleep.
inline constexpr std::chrono::microseconds small_theft_deque{8}, small_theft_wool{16};
// A theft below small_theft whose work overlapped the victim's own by more than about what a theft
// costs the victim (1.4 us, docs/results/core.md; 2 with room) gained the victim that much: the
// thief does not wait after it.  The overlap is the task's work less what the victim had waited at
// the task's join when it ended (execute_stolen).  Such a theft does not end a run of small ones,
// though (the next small theft waits twice the last wait, as if it had not come between): counted
// as large, the few that small work has (a thief late by a few us while its victim went on) reset
// the waits to 1 us and lazy-df2's fib(12) ran 1.56x, wool's loop(640) 3.2x its 1-worker time at
// 2 workers.  Small work (tasks of well under 2 us) stays small whatever the victim did; a ~10 us
// loop's half (~5 us, its victim busy with the other half meanwhile) overlaps: taken as small, its
// thief waited out 1-256 us backoffs between sweeps and sat idle 4-8 us of each 10 us sweep on a
// fast host (docs/results/loops.md, "Stop 65: the few-microsecond loop at 2 workers").
// Not under Wool, whose thefts cost their victim more (its window's synchronization: small_theft
// above): its loop(640), halves of ~4 us overlapping their victims', ran 2.4x its 1-worker time at
// 2 workers with the rule (1.10 without).
inline constexpr std::chrono::microseconds theft_overlap_gain{2};
inline constexpr std::uint64_t no_overlap_gain = ~std::uint64_t(0);  // Wool: no theft counts as overlapped
enum class theft_size : std::uint8_t { small, overlapped, large };
inline constexpr theft_size size_of_theft(std::uint64_t ran_ns, std::uint64_t victim_wait_ns, std::uint64_t small_theft_ns,
                                          std::uint64_t overlap_gain_ns) noexcept {
  if (ran_ns >= small_theft_ns) return theft_size::large;
  const std::uint64_t overlap = ran_ns > victim_wait_ns ? ran_ns - victim_wait_ns : 0;
  return overlap >= overlap_gain_ns ? theft_size::overlapped : theft_size::small;
}
// The two thresholds size_of_theft takes, as a pool's mechanism sets them (Wool's thefts: a higher
// small_theft and no overlapped ones; the deque policies': the defaults above).
struct theft_thresholds {
  std::uint64_t small_ns, overlap_gain_ns;
};
inline constexpr theft_thresholds theft_thresholds_for(bool wool_stack) noexcept {
  const auto ns = [](std::chrono::microseconds d) { return std::uint64_t(std::chrono::nanoseconds(d).count()); };
  return wool_stack ? theft_thresholds{ns(small_theft_wool), no_overlap_gain}
                    : theft_thresholds{ns(small_theft_deque), ns(theft_overlap_gain)};
}
inline constexpr std::chrono::microseconds default_steal_backoff{256};
inline constexpr std::chrono::microseconds first_steal_backoff{1};
inline constexpr std::int64_t max_steal_backoff_us = 1000;
// Nesting (SPEC §2: joins nest at least 10^6 deep).  Both are reservations of address space, not
// memory: pages are committed as joins reach them.
inline constexpr std::size_t default_max_depth = std::size_t(1) << 21;           // 128 MiB of frames
inline constexpr std::size_t min_max_depth = 1024, max_max_depth = std::size_t(1) << 28;
inline constexpr std::size_t default_stack_bytes = std::size_t(1) << 30;         // 1 GiB
inline constexpr std::size_t min_stack_bytes = std::size_t(256) << 10, max_stack_bytes = std::size_t(1) << 36;
// The fiber engine (adf, dfd, fifo; SPEC §5): K when neither config.quota_bytes nor WEFT_QUOTA sets
// it (NAR §5.3 used 50,000 bytes for Pthreads), and each fiber's stack.
inline constexpr std::size_t default_quota_bytes = 50'000;
inline constexpr std::size_t max_finite_quota = std::size_t(1) << 48;
// 64 MiB: a join with results of 1 MiB by value needs about 9 (every frame on its path holds copies).
inline constexpr std::size_t default_fiber_stack_bytes = std::size_t(64) << 20;
inline constexpr std::size_t default_fiber_fork_limit = 4096, max_finite_fiber_fork_limit = std::size_t(1) << 32;
inline constexpr std::size_t min_fiber_stack_bytes = std::size_t(16) << 10, max_fiber_stack_bytes = std::size_t(1) << 30;
// The trace's buffer per worker, in 16-byte events (trace.hpp).
inline constexpr std::size_t default_trace_events = std::size_t(1) << 20;
inline constexpr std::size_t min_trace_events = 16, max_trace_events = std::size_t(1) << 28;
// The work/span mode's default burden C in ns: WOOL Table I's 2000 cycles at its 2.6 GHz.
inline constexpr double default_work_span_burden_ns = 770;
policy default_policy() noexcept;
// Applies the environment to the fields left at their defaults, fills automatic values, and
// validates; throws std::invalid_argument naming the bad setting and the accepted values.
config resolve(const config& in);
// No memory for what a setting sized (a worker's task stack, the trace buffers): a std::bad_alloc,
// as any allocation's, whose what() is `message` — which names the setting and says to lower it.
[[noreturn]] void throw_no_memory(std::string message);
}  // namespace weft::detail
