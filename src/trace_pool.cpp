// weft — a pool's trace (SPEC §6): its buffers, made before the threads start, and the file, written
// when the pool is destroyed (after its threads are joined), or on request (pool::write_trace).
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "config_resolve.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

// Before any thread starts: every buffer exists for the pool's whole life.
// No memory for them is said naming the setting that sized them (a bare std::bad_alloc from the
// pool's constructor before stop 43's bug hunt); the error is still a std::bad_alloc.
void runtime::start_trace() {
  if (!tracing()) return;
  trace_start_ = trace_clock::now();
  try {
    for (auto& w : workers) w->trace = std::make_unique<trace_buffer>(cfg.trace_events);
    if (heartbeat_bits != 0 && !beats_by_signal()) timer_trace_ = std::make_unique<trace_buffer>(cfg.trace_events);
  } catch (const std::bad_alloc&) {
    throw_no_memory("weft: no memory for the trace buffers: " + std::to_string(cfg.trace_events) +
                    " events of 16 bytes (config.trace_events / WEFT_TRACE_EVENTS) for each of " +
                    std::to_string(workers.size()) + " worker(s); lower it");
  }
}

void runtime::write_trace() const {
  std::vector<trace_lane> lanes;
  for (const auto& w : workers)
    if (w->trace)
      lanes.push_back(trace_lane{w->trace.get(), "worker " + std::to_string(w->index),
                                 w->trace->dropped_promotions(w->ledger.promotions_now())});
  if (timer_trace_) lanes.push_back(trace_lane{timer_trace_.get(), "heartbeat timer"});
  std::string meta = "\"policy\":\"" + std::string(to_string(cfg.policy)) + "\",\"workers\":" +
                     std::to_string(cfg.workers) + ",\"heartbeat_us\":" + std::to_string(cfg.heartbeat.count());
  meta += ",\"heartbeats_requested\":[";
  // The separator appended on its own: `(cond ? "," : "") + std::to_string(...)` made gcc 12 warn
  // (-Wrestrict, a false positive in its inlined string insert) in every build of this file.
  for (const auto& w : workers) {
    if (w->index) meta += ',';
    meta += std::to_string(w->beats_requested_before_reset.load(std::memory_order_relaxed) +
                           w->beats_requested.load(std::memory_order_relaxed));
  }
  meta += "]";
  const std::uint64_t dropped = write_trace_file(cfg.trace_path, lanes, trace_start_, meta);
  // A buffer that filled up is a limit hit: said where it is seen, naming the setting, not only as
  // a count inside the file (before stop 43's bug hunt the file's otherData was the only trace of it).
  // Once per new count: snapshots taken in a loop do not repeat it.
  if (dropped > trace_dropped_said_.exchange(dropped, std::memory_order_relaxed))
    std::fprintf(stderr,
                 "weft: the trace \"%s\" lacks %llu event(s): a worker's buffer holds config.trace_events = %zu "
                 "events (past 7/8 of it instants are dropped; a full buffer ends its lane); raise "
                 "config.trace_events / WEFT_TRACE_EVENTS (at most %zu) to record them\n",
                 cfg.trace_path.c_str(), (unsigned long long)dropped, cfg.trace_events, max_trace_events);
}

// Where no exception may leave (a destructor): a file that cannot be written is reported on stderr.
void runtime::write_trace_at_end() const noexcept {
  if (!tracing()) return;
  try {
    write_trace();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
  }
}

}  // namespace weft::detail
