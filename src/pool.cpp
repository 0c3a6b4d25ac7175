// weft — weft::pool's out-of-line methods (SPEC §2): a pool is a handle on its runtime.
#include <stdexcept>

#include "config_resolve.hpp"
#include "pool_runtime.hpp"
#include "weft/pool.hpp"
#include "weft/detail/checks.hpp"

namespace weft {

pool::pool() : pool(weft::config{}) {}
pool::pool(const weft::config& cfg) : rt_(std::make_unique<detail::runtime>(detail::resolve(cfg))) {}
// Two pools are kept, not destroyed (global_pool.cpp, detail::keep_undestroyed):
//  - in the child of a fork(), one made before it (but a serial one, which has no threads): its
//    threads do not exist there, and its parts wait for them — joins, a condition variable the
//    timer thread waited on, mutexes they may have held;
//  - one destroyed by a thread running one of its own jobs: std::exit() called in a task with the
//    pool in static storage (found by stop 41's bug hunt: it hung waiting for the calling thread's
//    own slot, or unmapped the stack the caller ran on).  Its trace is written as a snapshot.
//
// A pool destroyed while other threads' runs on it are in flight ends the process with a message
// saying so (found by stop 46's lifecycle hunt: a run still queued waited for ever, its workers
// gone; a serial run crashed on its freed context; a run on a borrowed slot gave it back into freed
// memory).  Only a run that has started is seen: one that starts during the destruction is a use of
// a destroyed object, as for any class.
pool::~pool() {
  if (rt_ == nullptr) return;
  if (!rt_->runs_on_caller && rt_->made_before_fork()) {
    detail::keep_undestroyed(std::move(rt_));
  } else if (detail::runs_in(rt_.get())) {
    rt_->write_trace_at_end();
    detail::keep_undestroyed(std::move(rt_));
  } else if (const std::uint32_t n = rt_->runs_in_flight.load(std::memory_order_acquire); n != 0) {
    detail::fatal(
        "a weft::pool was destroyed while %u pool::run call(s) on it from other threads were in flight: its "
        "workers would stop with their jobs unfinished (the callers waiting for ever) or free what the runs use. "
        "A pool must outlive every run on it (join the threads that call run before destroying it).",
        unsigned(n));
  }
}

unsigned pool::size() const noexcept { return rt_->cfg.workers; }
weft::policy pool::policy() const noexcept { return rt_->cfg.policy; }
const weft::config& pool::config() const noexcept { return rt_->cfg; }
weft::stats pool::stats() const { return rt_->collect_stats(); }
void pool::reset_stats() { rt_->reset_stats(); }
work_span_report pool::work_span() const { return rt_->collect_work_span(); }
void pool::write_trace() const {
  if (!rt_->tracing())
    throw std::logic_error("weft::pool::write_trace: tracing is off (set config.trace_path or WEFT_TRACE)");
  rt_->write_trace();
}

}  // namespace weft
