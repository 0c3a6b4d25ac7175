// weft — configuration, policies and counters (SPEC §2, §4, §6).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::detail {
// libstdc++'s debug mode (-D_GLIBCXX_DEBUG) changes std::vector's layout, and the API passes vectors
// between the program and libweft (implemented_policies(), stats::workers, work_span_report): a file
// compiled in one mode and linked with a libweft built in the other reads them in the wrong shape
// (a crash in ~vector, stop 48's consumer hunt).  Each file that includes this header refers to the
// symbol of its own mode, and libweft defines only the one of its build (config.cpp): a mismatch is a
// link error that names it.  Build weft and the program with the same _GLIBCXX_DEBUG setting.
// `retain` keeps the reference through the linker's --gc-sections (binutils >= 2.36).  Code that
// uses these declarations without linking libweft at all (the simulator, which shares the policy
// table: sim/CMakeLists.txt) defines WEFT_WITHOUT_LIBRARY and refers to neither.
#if !defined(WEFT_WITHOUT_LIBRARY)
#if defined(__has_attribute) && __has_attribute(retain)
#define WEFT_KEEP_REFERENCE __attribute__((used, retain))
#else
#define WEFT_KEEP_REFERENCE __attribute__((used))
#endif
#if defined(_GLIBCXX_DEBUG)
extern const char program_compiled_with_GLIBCXX_DEBUG_needs_libweft_built_with_it;
WEFT_KEEP_REFERENCE static const char* const glibcxx_debug_mode_check =
    &program_compiled_with_GLIBCXX_DEBUG_needs_libweft_built_with_it;
#else
extern const char program_compiled_without_GLIBCXX_DEBUG_needs_libweft_built_without_it;
WEFT_KEEP_REFERENCE static const char* const glibcxx_debug_mode_check =
    &program_compiled_without_GLIBCXX_DEBUG_needs_libweft_built_without_it;
#endif
#undef WEFT_KEEP_REFERENCE
#endif  // WEFT_WITHOUT_LIBRARY
}  // namespace weft::detail

namespace weft {

// The schedulers of SPEC §4.  `automatic` means: WEFT_POLICY if set, else the library default.
enum class policy {
  automatic,
  serial,     // everything inline on the caller: the serial elision
  ws,         // eager child-stealing work stealing (LS §2.2 "SP")
  ws_ap,      // ws with TBB's auto partitioner for loops (LS l.136-153)
  wool,       // Wool's direct task stack, private tasks, trip wire, leapfrogging (WOOL §III, §I.b)
  lazy_df,    // depth-first lazy scheduling, THR = 1 (LS §3.3)
  lazy_df2,   // the same with THR = 2 (LS §6.2)
  lazy_bf,    // breadth-first lazy scheduling (LS §6.1, Algorithm 3)
  heartbeat,  // heartbeat scheduling (HB §2-4)
  adf,        // AsyncDF (NAR Ch. 3)
  dfd,        // DFDeques (NAR Ch. 6)
  fifo,       // breadth-first global FIFO (NAR §5.3, l.2818-2819)
};

// config::quota_bytes for K = infinity.
inline constexpr std::size_t unlimited_quota = ~std::size_t(0);
// config::fiber_fork_limit for none: every join forks a thread, however many are live (NAR's rule).
inline constexpr std::size_t no_fork_limit = ~std::size_t(0);

// How the heartbeat policy's beats reach the workers (HB §2; docs/ARCHITECTURE.md, heartbeat).
// Every N us a beat sets every worker's poll bit; who sends it:
// `spare` (the default): capacity no task is using — the pool's timer thread while some core runs
//   no awake worker, otherwise the workers looking for work or waiting at a blocked join; while
//   every core runs a busy worker no beat is sent (a beat never takes a busy worker's core:
//   src/heartbeat.cpp says why, docs/results/heartbeat-delivery.md measures it), except one a
//   millisecond while some worker sleeps (more workers than CPUs);
// `thread`: the timer thread sends every beat, whatever the cores are doing (HB taken literally);
// `signal`: each worker's own POSIX timer sends it a signal N us after its last beat, while it is
//   awake (docs/results/trace.md §3b).
// `automatic`: WEFT_HEARTBEAT_DELIVERY (= spare | thread | signal) if set, else `spare`.
enum class heartbeat_delivery : unsigned char { automatic, thread, signal, spare };

// The work/span mode (weft/work_span.hpp): off, strands timed in ns, or every call counting 1.
enum class work_span_unit : unsigned char { off, ns, calls };

// The WEFT_POLICY names: "auto", "serial", "ws", "ws-ap", "wool", "lazy-df", "lazy-df2", "lazy-bf",
// "heartbeat", "adf", "dfd", "fifo".  parse_policy throws std::invalid_argument listing them.  Each
// policy's name and traits are one row of detail/policy_table.hpp.
policy parse_policy(std::string_view name);
std::string_view to_string(policy p) noexcept;
// The policies this build implements (the others are named but rejected with "not implemented").
std::vector<policy> implemented_policies();

// A field left at its default is taken from the environment when set there (WEFT_WORKERS,
// WEFT_POLICY, WEFT_HEARTBEAT_US, WEFT_HEARTBEAT_DELIVERY, WEFT_QUOTA, WEFT_TRACE, WEFT_MAX_DEPTH,
// WEFT_STACK_BYTES, WEFT_FIBER_STACK_BYTES, WEFT_FIBER_FORK_LIMIT, WEFT_TRACE_EVENTS, WEFT_WORK_SPAN,
// WEFT_WORK_SPAN_BURDEN, WEFT_STEAL_BACKOFF_US); bad values raise std::invalid_argument, and so
// does a value the pool's policy has no use for.  pool::config() gives the settings as resolved
// (unused ones left unset), and a pool made from it is the same pool.  The variables are listed in
// weft/detail/env_settings.hpp; a WEFT_* variable close to one of them (WEFT_POLCY) is named on
// stderr, once per process.
struct config {
  unsigned workers = 0;                      // 0 = automatic (hardware threads)
  weft::policy policy = weft::policy::automatic;
  std::chrono::microseconds heartbeat{0};    // 0 = default period N (heartbeat policy only)
  weft::heartbeat_delivery heartbeat_delivery = weft::heartbeat_delivery::automatic;  // heartbeat only
  // K, the memory threshold of adf and dfd (NAR §3.2, §6.2): the bytes of weft::malloc a thread
  // (adf: per scheduling) or a worker (dfd: per steal) may allocate before it is preempted; 0 =
  // default 50,000 (NAR §5.3's value for Pthreads), unlimited_quota = K = infinity (dfd is then
  // work stealing, NAR §6.2).  WEFT_QUOTA = bytes or "inf".
  std::size_t quota_bytes = 0;
  std::string trace_path{};                  // empty = no trace
  // How deep joins may nest on one worker (task-stack frames of 64 bytes, reserved in virtual
  // memory and committed as used); 0 = default 2^21.  Deeper: the process stops with a message
  // naming this setting.  Not under adf, dfd, fifo (no join uses a task stack there: an error if
  // set; fiber_stack_bytes and the number of stacks limit their nesting).
  std::size_t max_depth = 0;
  // Each worker thread's native stack in bytes (reserved, committed as used; it must hold the C++
  // frames of max_depth nested joins); 0 = default 1 GiB.  Overflow: a message naming this setting.
  // Under adf, dfd, fifo it holds the scheduler's loop only: jobs and branches run on fibers.
  std::size_t stack_bytes = 0;
  // adf, dfd, fifo: each thread's fiber stack in bytes (reserved, committed as used, a guard region
  // below it); 0 = default 64 MiB.  Overflow: a message naming this setting (WEFT_FIBER_STACK_BYTES).
  std::size_t fiber_stack_bytes = 0;
  // adf, dfd, fifo: the live threads at which a join stops forking and runs its branches on the
  // thread that meets it (its serial elision), for as long as that thread's stack keeps half its
  // size free — then the join moves to a thread of its own, on a fresh stack (at any live count);
  // 0 = default 4,096.  weft::no_fork_limit: every join forks, as in NAR, and the number of stacks
  // limits nesting (about 32,700 live threads under Linux's default vm.max_map_count).  WEFT_FIBER_FORK_LIMIT = a count or "inf".
  std::size_t fiber_fork_limit = 0;
  // The trace's buffer per worker, in events of 16 bytes (reserved, committed as written); 0 =
  // default 2^20.  Events past it are dropped and counted in the file (WEFT_TRACE_EVENTS).
  std::size_t trace_events = 0;
  // Work and span (weft/work_span.hpp): measure every job's work, span and burdened span in this
  // unit, running it as its serial elision (WEFT_WORK_SPAN = off | ns | calls).
  work_span_unit work_span = work_span_unit::off;
  // C of the burdened span, in the work_span unit; < 0 = default: 770 ns (WOOL Table I's 2000
  // cycles at its 2.6 GHz) or 0 calls (WEFT_WORK_SPAN_BURDEN).  Only with the mode on: given while
  // it is off, an error (it would be ignored); left unset then, it stays -1.
  double work_span_burden = -1;
  // Thefts that pay for themselves (README, "Small work"): an idle worker whose stolen task was small
  // (its own work came to less than 8 us; 16 under wool) waits before it looks for work again — 1 us
  // after the first such theft, twice as long after each one that follows, up to this — and a theft
  // of a larger task ends the waiting.  A theft costs its victim about a microsecond and a half, so a thief that keeps
  // taking pieces of microsecond work makes it slower with every worker added.  -1 = default:
  // 256 us, or 0 under heartbeat (whose promotions are amortized by its beats); 0 = off; at most
  // 1000 us.  Every policy whose idle workers steal (not serial, adf, dfd, fifo: there it stays -1).
  // WEFT_STEAL_BACKOFF_US.
  std::chrono::microseconds steal_backoff{-1};
};

// Per-worker counters (SPEC §6).  Cheap enough to stay on in release builds: each worker writes
// its own, unshared.
struct counters {
  std::uint64_t joins = 0;             // joins, scope spawns and typed spawns (weft::spawn)
  std::uint64_t loop_iterations = 0;   // iterations run by parallel_for / parallel_reduce
  std::uint64_t promotions = 0;        // latent items made stealable
  std::uint64_t steals = 0;            // successful steals (including leapfrogs)
  std::uint64_t steal_attempts = 0;    // all steal attempts
  std::uint64_t leapfrogs = 0;         // tasks stolen back from a thief while blocked in a join
  std::uint64_t deque_checks = 0;      // polls that looked at the worker's own deque (lazy policies)
  std::uint64_t idle_ns = 0;           // time spent looking for work or asleep, up to the read
  // High-water mark of weft::malloc bytes.  Per worker: of the live bytes of the blocks it allocated
  // (a block leaves its count when freed, by whoever frees it).  In stats::total: the pool's mark.
  std::uint64_t heap_peak_bytes = 0;
  // SPEC §6's name.  The most live threads at any one time: under adf, dfd and fifo the forked
  // threads (fibers) not yet terminated; under the other policies the promoted items not yet joined
  // (on a deque; under wool, tasks tagged public).  Per worker: those it made (forked on it), at its own peak.  In
  // stats::total: under adf, dfd and fifo the pool's true simultaneous maximum; under the other
  // policies the sum of the workers' peaks, an upper bound of it (equal on one worker), because those
  // counts are owner-private (an exact pool-wide count needs a shared RMW per promotion and join,
  // which cost ws 15x at two workers: include/weft/detail/ledger.hpp).
  std::uint64_t live_threads_peak = 0;
  // adf, dfd, fifo (NAR §5.3, §7.1): the most fiber stack bytes in use at once (the reserved size of
  // each stack; pool-wide, in stats::total only), the threads preempted because an allocation
  // exceeded the quota left, and the dummy threads forked before allocations larger than K.
  std::uint64_t fiber_stack_peak_bytes = 0;
  std::uint64_t quota_preemptions = 0;
  std::uint64_t dummy_threads = 0;
  // Heartbeat policy (HB §2): beats sent (by the timer thread, an idle worker under spare delivery,
  // or a worker's own timer under signal delivery), and beats that reached a poll (a beat
  // sent while the previous one is still pending, or cleared by a steal, never reaches one).
  std::uint64_t heartbeats_requested = 0;
  std::uint64_t heartbeats_delivered = 0;
  // Waits of an idle worker after a small theft (config::steal_backoff: its task's work < 8 us).
  std::uint64_t steal_backoffs = 0;

  counters& operator+=(const counters& o) noexcept;
};

struct stats {
  counters total;                // sums; heap_peak_bytes and live_threads_peak: see pool::stats
  std::vector<counters> workers;
};

}  // namespace weft
