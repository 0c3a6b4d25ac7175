// weft — weft::pool's out-of-line methods (SPEC §2): a pool is a handle on its runtime.
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

}  // namespace weft
