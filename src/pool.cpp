// weft — weft::pool's out-of-line methods (SPEC §2): a pool is a handle on its runtime.
#include <stdexcept>

#include "config_resolve.hpp"
#include "pool_runtime.hpp"
#include "weft/pool.hpp"

namespace weft {

pool::pool() : pool(weft::config{}) {}
pool::pool(const weft::config& cfg) : rt_(std::make_unique<detail::runtime>(detail::resolve(cfg))) {}
pool::~pool() = default;

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
