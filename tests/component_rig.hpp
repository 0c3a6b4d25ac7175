// weft tests: a runtime whose workers a component test drives by hand.  It is built as a `serial`
// runtime (whose constructor starts no thread), then given the scheduler under test and workers
// with hot states of their own (not thread-local), so that one test thread can play the owner and
// the thieves in a chosen order, or a few test threads can race on them.
#pragma once

#include <memory>
#include <vector>

#include "acting_as.hpp"
#include "pool_runtime.hpp"

namespace wt {

struct manual_runtime {
  // `scheduled_as`: the policy whose scheduler and loop style the workers get.
  manual_runtime(weft::policy scheduled_as, unsigned workers, std::size_t stack_capacity)
      : rt(weft::config{.workers = workers, .policy = weft::policy::serial}) {
    using namespace weft::detail;
    const policy_traits& row = traits_of(scheduled_as);
    rt.sched = row.runs_on == mechanism::wool_stack ? make_wool_scheduler(rt) : make_deque_scheduler(rt, row);
    for (unsigned i = 0; i < workers; ++i) {
      rt.workers.push_back(std::make_unique<worker>(&rt, i, stack_capacity));
      rt.sched->attach(*rt.workers.back());
    }
    for (unsigned i = 0; i < workers; ++i) {  // as runtime::worker_thread does on each thread
      hots.push_back(std::make_unique<hot_state>());
      hot_state& h = *hots.back();
      worker& w = *rt.workers[i];
      h.self = &w;
      h.top = w.stack.begin();
      h.loops_run_as = row.loops;
      w.hot = &h;
      h.poll.store(rt.sched->initial_poll_bits(w), std::memory_order_relaxed);
    }
  }

  weft::detail::worker& w(unsigned i) { return *rt.workers[i]; }
  weft::detail::hot_state& h(unsigned i) { return *hots[i]; }
  weft::detail::scheduler& sched() { return *rt.sched; }

  weft::detail::runtime rt;
  std::vector<std::unique_ptr<weft::detail::hot_state>> hots;
};

// While it lives, the test thread runs real weft code (joins, loops, scopes) as worker `i` of a
// manual_runtime: the other workers have no thread, so nothing is ever stolen and every promotion
// is the policy's own decision, made as on a pool of that many workers — deterministically.
struct acting_as_worker {
  acting_as_worker(manual_runtime& m, unsigned i)
      : as(m.w(i), m.sched().initial_poll_bits(m.w(i)), m.h(i).loops_run_as, m.sched().eager_deque(m.w(i))) {}
  weft::detail::acting_as as;
};

}  // namespace wt
