// NAR's thread schedulers (adf, dfd, fifo) as NAR §7.2.2's simulator models them: every fork
// makes two threads, a thread that forks suspends until its children end, and the last child's
// processor continues with the parent. Deques of ready threads are kept in one ordered list
// (NAR Fig 6.3); a memory quota K per steal (dfd) or per scheduling from a deque (adf) makes a
// processor give its deque up before an allocation that would exceed it, and an allocation of
// m > K first forks floor(m/K) dummy threads in a binary tree (NAR §7.2's extension of Fig 6.4),
// each a no-op after which its processor gives its deque up. K = 0 here means K = ∞ (dfd is then
// NAR's "WS").
#include <algorithm>
#include <deque>
#include <queue>
#include <stdexcept>
#include <vector>

#include "deque_order.hpp"
#include "engine.hpp"
#include "rng.hpp"

namespace weft_sim::detail {
namespace {

enum class Kind : std::uint8_t { node, range, dummy };  // dummy: dummy threads [lo, hi)

struct Thread {
  std::uint32_t node = kNoNode;
  Kind kind = Kind::node;
  std::uint64_t lo = 0, hi = 0;  // range: iterations [lo, hi) of loop `node`
  bool started = false;
  bool forked = false;
  bool ended = false;         // its work after the join done (finish signals the parent next)
  std::uint32_t pending = 0;
  std::int32_t parent = -1;
  bool sized = false;         // its dummy threads (m > K) forked, or none needed
  Time span = 0, span_join = 0;
  std::uint64_t held = 0;
  // Run inline past the fork limit (`fork_limit`): no thread of the runtime's, so not counted live;
  // a first child's inline_next is its sibling, which its processor runs when it ends.
  bool inlined = false;
  std::int32_t inline_next = -1;
  // When it became ready: the clock of the processor that made it ready, after what that cost (a
  // fork's join and promotions).  A processor acting earlier in between that takes it waits until
  // then (ThreadSim::take): a thread never starts before it exists.
  Time ready = 0;
};

// A deque's ready threads: a vector and the index of its bottom.  std::deque allocated a 512-byte
// block and its map for every deque made, and a steal makes one: with K = 1 (a dummy thread per
// unit of an allocation) malloc and free were a third of the engine's time (nar:3:3:9's quota test
// 5.5 s -> 3.3 s without them; 143 -> 47 s under AddressSanitizer, docs/results/ci-time.md).
class ThreadQueue {
 public:
  bool empty() const { return bottom_ == items_.size(); }
  std::int32_t front() const { return items_[bottom_]; }  // bottom (oldest)
  std::int32_t back() const { return items_.back(); }     // top
  void push_back(std::int32_t id) { items_.push_back(id); }
  void pop_back() {
    items_.pop_back();
    if (empty()) clear();
  }
  void pop_front() {
    ++bottom_;
    if (empty()) clear();
    else if (bottom_ >= 64 && 2 * bottom_ >= items_.size()) {  // drop the taken half
      items_.erase(items_.begin(), items_.begin() + std::ptrdiff_t(bottom_));
      bottom_ = 0;
    }
  }

 private:
  void clear() {
    items_.clear();
    bottom_ = 0;
  }
  std::vector<std::int32_t> items_;
  std::size_t bottom_ = 0;
};

struct ReadyDeque {
  ThreadQueue threads;  // front: bottom (oldest); back: top
  std::int32_t owner = -1;
};

struct Proc {
  Time clock = 0;
  std::int32_t current = -1;
  bool owns = false;
  std::int32_t dq = DequeOrder::none;  // its deque (ThreadSim::deques_), while it owns one
  std::uint64_t quota_left = 0;
  // Out of the event queue while no thread is ready anywhere: every attempt from dormant_at on
  // fails until a thread is made ready (ThreadSim::made_ready).
  bool dormant = false;
  Time dormant_at = 0;
};

class ThreadSim {
 public:
  explicit ThreadSim(const RunConfig& c)
      : cfg_(c), dag_(*c.dag), name_(c.policy->name), costs_(c.costs), P_(c.workers),
        rng_(c.seed), jitter_rng_(jitter_stream(c.seed)), procs_(c.workers) {}
  RunResult run();

 private:
  std::int32_t new_thread(std::uint32_t node, Kind kind, std::uint64_t lo, std::uint64_t hi,
                          std::int32_t parent, Time span, bool inlined = false);
  void step(unsigned p);
  bool acquire(unsigned p);
  bool steal(unsigned p);
  bool start_thread(unsigned p, std::int32_t id);
  void dummy_step(unsigned p, std::int32_t id);
  void fork(unsigned p, std::int32_t id);
  void finish(unsigned p, std::int32_t id);
  void give_up_deque(unsigned p);
  void preempt(unsigned p);
  void own_new_deque(unsigned p, std::int32_t after);
  ThreadQueue& threads_of(std::int32_t d) { return deques_[std::size_t(d)].threads; }
  void push_thread(std::int32_t d, std::int32_t id);
  std::int32_t pop_top(std::int32_t d);
  std::int32_t pop_bottom(std::int32_t d);
  void take(unsigned p, std::int32_t id);
  void made_ready(unsigned p, std::uint64_t n);
  // A failed attempt costs `probe` (or `steal` when probe is 0), as in the stack engine: it
  // charged `steal` whatever `probe` was (stop 48's sim hunt), so `--costs calibrated` ran adf,
  // dfd and fifo at 11,800 units a failed look with probe = 1,000 in their JSON.  At least 1: a
  // zero-cost attempt would not move the clock.
  Time attempt_cost() const { return std::max<Time>(failed_attempt_cost(costs_), 1); }
  bool unlimited() const { return costs_.quota == 0; }

  const RunConfig& cfg_;
  const Dag& dag_;
  const std::string_view name_;
  const Costs costs_;
  const unsigned P_;
  Rng rng_;
  Rng jitter_rng_;  // Costs::steal_jitter's draws, apart from the victims' (rng_)
  std::vector<Proc> procs_;
  std::vector<Thread> threads_;
  // The deques in NAR's order (Fig 6.3): the order and which are non-empty in order_, the deques
  // by the numbers order_ gives them in deques_ (a number is reused after its deque is deleted, with
  // its memory).
  DequeOrder order_;
  std::vector<ReadyDeque> deques_;
  std::deque<std::int32_t> fifo_;
  std::vector<std::int32_t> free_;  // finished threads' slots
  std::uint64_t ready_count_ = 0;   // threads in deques and the fifo queue
  // The dormant processors, whom made_ready wakes (a scan of all P at every fork took most of a
  // run's time at large P).
  std::vector<unsigned> dormant_;
  using Event = std::pair<Time, unsigned>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  RunResult r_;
  std::uint64_t live_mem_ = 0, live_threads_ = 0;
  bool done_ = false;
};

std::int32_t ThreadSim::new_thread(std::uint32_t node, Kind kind, std::uint64_t lo,
                                   std::uint64_t hi, std::int32_t parent, Time span, bool inlined) {
  Thread t;
  t.node = node;
  t.kind = kind;
  t.lo = lo;
  t.hi = hi;
  t.parent = parent;
  t.span = span;
  t.inlined = inlined;
  if (!inlined) r_.live_items_peak = std::max(r_.live_items_peak, ++live_threads_);
  if (!free_.empty()) {
    const std::int32_t id = free_.back();
    free_.pop_back();
    threads_[std::size_t(id)] = t;
    return id;
  }
  threads_.push_back(t);
  return std::int32_t(threads_.size() - 1);
}

RunResult ThreadSim::run() {
  if (P_ == 0) throw std::invalid_argument("P: the number of workers must be at least 1");
  procs_[0].current = new_thread(dag_.root(), Kind::node, 0, 0, -1, 0);
  own_new_deque(0, DequeOrder::none);
  procs_[0].quota_left = costs_.quota;
  for (unsigned p = 0; p < P_; ++p) events_.push({0, p});
  while (!done_) {
    if (events_.empty()) throw std::logic_error("simulator: every processor idle before the root finished");
    const unsigned p = events_.top().second;
    events_.pop();
    do step(p);  // the earliest processor acts until another one is earlier
    while (!done_ && !procs_[p].dormant && (events_.empty() || procs_[p].clock <= events_.top().first));
    if (!procs_[p].dormant) events_.push({procs_[p].clock, p});
  }
  for (const Proc& pr : procs_)  // a dormant processor's attempts until the end, as if it had stepped
    if (pr.dormant) r_.steal_attempts += attempts_before(pr.dormant_at, r_.makespan, attempt_cost());
  r_.idle = double(P_) * double(r_.makespan) - (r_.raw_work + r_.overhead + r_.steal_time);
  return r_;
}

void ThreadSim::step(unsigned p) {
  Proc& pr = procs_[p];
  if (pr.current < 0 && !acquire(p)) {
    advance(pr.clock, attempt_cost());  // nothing to take: try again later
    if (ready_count_ == 0) {
      // Nothing is ready anywhere: every attempt fails until a thread is made ready, which wakes
      // this processor (made_ready).  The simulator's time no longer grows with an idle stretch's
      // length over the attempt cost (dfd on 3 nodes of 1e9 units at P = 256: 30 s before stop 40).
      pr.dormant = true;
      pr.dormant_at = pr.clock;
      dormant_.push_back(p);
    }
    return;
  }
  const std::int32_t id = pr.current;
  Thread& t = threads_[std::size_t(id)];
  if (t.kind == Kind::dummy) {
    dummy_step(p, id);
    return;
  }
  if (!t.started) {
    start_thread(p, id);  // false when it waits for dummies or was preempted: the next step goes on
    return;
  }
  if (!t.forked) {
    fork(p, id);
    return;
  }
  finish(p, id);  // its children are done: work after the join, free, signal the parent
}

// The next thread for an idle processor: the top of its own deque, else a steal.
bool ThreadSim::acquire(unsigned p) {
  Proc& pr = procs_[p];
  if (name_ == "fifo") {  // one shared queue: every take is a remote access, priced as a steal
    ++r_.steal_attempts;
    if (fifo_.empty()) return false;
    take(p, fifo_.front());
    fifo_.pop_front();
    pay_steal(pr.clock, r_, costs_, jitter_rng_);
    return true;
  }
  if (pr.owns && !threads_of(pr.dq).empty()) {
    take(p, pop_top(pr.dq));
    advance(pr.clock, costs_.pop);
    r_.overhead += double(costs_.pop);
    return true;
  }
  return steal(p);
}

bool ThreadSim::steal(unsigned p) {
  Proc& pr = procs_[p];
  if (pr.owns) {  // an empty deque is deleted when its owner goes stealing (NAR §6.2)
    order_.erase(pr.dq);
    pr.owns = false;
  }
  ++r_.steal_attempts;
  // The victim: one of the leftmost P non-empty deques (order_ counts them).
  const std::uint64_t left = std::min<std::uint64_t>(order_.stocked_count(), P_);
  if (left == 0) return false;
  const bool adf = name_ == "adf";
  const std::int32_t victim = order_.kth_stocked(adf ? 0 : rng_.below(left));
  ReadyDeque& v = deques_[std::size_t(victim)];
  if (v.owner < 0) {  // NAR §7.2.2: stealing from an unowned deque takes it over
    v.owner = std::int32_t(p);
    pr.owns = true;
    pr.dq = victim;
    take(p, pop_top(victim));
  } else {
    // AsyncDF: the highest-priority ready thread, the top of the leftmost deque; DFDeques: the
    // bottom of the chosen deque.
    take(p, adf ? pop_top(victim) : pop_bottom(victim));
    own_new_deque(p, victim);  // placed just right of the victim (NAR Fig 6.4)
  }
  pr.quota_left = costs_.quota;
  pay_steal(pr.clock, r_, costs_, jitter_rng_);
  return true;
}

// p's new deque goes just right of `after` (none: at the right end).
void ThreadSim::own_new_deque(unsigned p, std::int32_t after) {
  Proc& pr = procs_[p];
  pr.dq = after == DequeOrder::none ? order_.push_back() : order_.insert_after(after);
  if (deques_.size() <= std::size_t(pr.dq)) deques_.resize(std::size_t(pr.dq) + 1);
  deques_[std::size_t(pr.dq)].owner = std::int32_t(p);  // its threads: none (deleted only empty)
  pr.owns = true;
}

// The deques' threads change only here, which keeps order_'s count of the non-empty ones.
void ThreadSim::push_thread(std::int32_t d, std::int32_t id) {
  threads_of(d).push_back(id);
  order_.set_stocked(d, true);
}

std::int32_t ThreadSim::pop_top(std::int32_t d) {
  ThreadQueue& q = threads_of(d);
  const std::int32_t id = q.back();
  q.pop_back();
  if (q.empty()) order_.set_stocked(d, false);
  return id;
}

std::int32_t ThreadSim::pop_bottom(std::int32_t d) {
  ThreadQueue& q = threads_of(d);
  const std::int32_t id = q.front();
  q.pop_front();
  if (q.empty()) order_.set_stocked(d, false);
  return id;
}

// Processor p takes ready thread id; made ready at a later clock than p's (in the step of another
// processor that acted first), it starts only then: p waits (idle time).
void ThreadSim::take(unsigned p, std::int32_t id) {
  Proc& pr = procs_[p];
  --ready_count_;
  pr.current = id;
  pr.clock = std::max(pr.clock, threads_[std::size_t(id)].ready);
}

// n threads were made ready at p's clock: dormant processors resume at their last attempt before
// it (the attempts they skipped all failed and are counted), acting before p at that time, as a
// processor that had kept stepping would.
void ThreadSim::made_ready(unsigned p, std::uint64_t n) {
  ready_count_ += n;
  const Time now = procs_[p].clock, cost = attempt_cost();
  for (const unsigned q : dormant_) {  // the order does not matter: (clock, processor) are distinct
    Proc& d = procs_[q];
    const Time skipped = std::max<Time>(attempts_before(d.dormant_at, now, cost), 1) - 1;
    d.dormant = false;
    d.clock = d.dormant_at + skipped * cost;
    r_.steal_attempts += skipped;
    events_.push({d.clock, q});
  }
  dormant_.clear();
}

void ThreadSim::preempt(unsigned p) {
  Proc& pr = procs_[p];
  threads_[std::size_t(pr.current)].ready = pr.clock;
  push_thread(pr.dq, pr.current);  // back on top of its deque
  made_ready(p, 1);
  pr.current = -1;
  ++r_.pops;  // counted as preemptions
  give_up_deque(p);
}

void ThreadSim::give_up_deque(unsigned p) {
  Proc& pr = procs_[p];
  if (pr.owns) {
    if (threads_of(pr.dq).empty()) order_.erase(pr.dq);  // no owner, no threads: deleted (NAR §6.2)
    else deques_[std::size_t(pr.dq)].owner = -1;  // it stays in the order, unowned
  }
  pr.owns = false;
}

// Allocation with quota K: a thread whose allocation exceeds what is left goes back on top of
// its deque, which the processor gives up; one of m > K first forks floor(m/K) dummy threads in a
// binary tree and runs them as its children (NAR §7.2: "forked in a binary tree ... processors
// must give up their deques and perform a steal every time they execute a dummy thread"), then
// allocates with its quota spent.
bool ThreadSim::start_thread(unsigned p, std::int32_t id) {
  Proc& pr = procs_[p];
  Thread* t = &threads_[std::size_t(id)];
  const std::uint64_t m = t->kind == Kind::node ? dag_.node(t->node).alloc : 0;
  if (!unlimited() && m > 0 && name_ != "fifo") {
    if (!t->sized) {
      t->sized = true;
      if (m > costs_.quota) {
        const std::int32_t d = new_thread(kNoNode, Kind::dummy, 0, m / costs_.quota, id, t->span);
        t = &threads_[std::size_t(id)];  // new_thread may have moved it
        t->pending = 1;
        pr.current = d;  // the allocating thread waits for its dummies, as for children
        return false;
      }
    }
    if (m <= costs_.quota && m > pr.quota_left) {
      preempt(p);
      return false;
    }
    pr.quota_left -= std::min(m, pr.quota_left);  // m > K after its dummies: the quota is spent
  }
  Thread& tr = *t;
  tr.started = true;
  if (tr.kind == Kind::node) {
    const Node& n = dag_.node(tr.node);
    ++r_.instances;
    if (cfg_.node_starts) ++(*cfg_.node_starts)[tr.node];
    live_mem_ += m;
    r_.memory_peak = std::max(r_.memory_peak, live_mem_);
    advance(pr.clock, n.work);
    r_.raw_work += double(n.work);
    tr.span += n.work;
  }
  return true;
}

// One step of a dummy thread: a range of two or more forks in halves (a fork pays what any fork
// pays); a single one is a no-op after which the processor gives its deque up (the thread it
// continues with, when it was the last dummy, goes back on top of that deque first).
void ThreadSim::dummy_step(unsigned p, std::int32_t id) {
  Proc& pr = procs_[p];
  const Thread& t = threads_[std::size_t(id)];
  if (t.hi - t.lo >= 2) {
    if (!t.forked) fork(p, id);
    else finish(p, id);
    return;
  }
  if (!t.started) {  // its unit in a step of its own, as a node's work after the join (finish)
    threads_[std::size_t(id)].started = true;
    advance(pr.clock, 1);
    r_.overhead += 1;
    ++r_.beats;  // counted as dummy threads run
    return;
  }
  finish(p, id);
  if (pr.current >= 0) preempt(p);
  else give_up_deque(p);
}

void ThreadSim::fork(unsigned p, std::int32_t id) {
  Proc& pr = procs_[p];
  threads_[std::size_t(id)].forked = true;
  const Thread t = threads_[std::size_t(id)];  // a copy: new_thread may move the vector
  std::int32_t a = -1, b = -1;
  // The runtime's fork limit (config::fiber_fork_limit, sched_fibers.cpp placement): with
  // fork_limit threads live or more, a join runs its branches on the thread that meets it, first
  // then second, and forks nothing.  Its stack test (a join met with half the stack used moves to a
  // thread of its own) is not modelled: the simulator has no stacks.  Dummy threads always fork, as the runtime's.
  const bool inline_run = costs_.fork_limit != 0 && live_threads_ >= costs_.fork_limit && t.kind != Kind::dummy;
  // A loop is a balanced fork tree over its iterations: the loop's thread forks its range in
  // halves, a part of two or more iterations forks again, a part of one is that iteration's own
  // thread.  (A part of one iteration was a thread that "forked" the iteration as its only child,
  // and the loop's thread one more for its whole range: 2n forks and 3n threads for n iterations
  // instead of n - 1 and 2n - 1, each paying `join`, under fifo a promotion and a take too.)
  const auto part = [&](std::uint64_t lo, std::uint64_t hi) {
    return hi - lo == 1 ? new_thread(dag_.iteration(dag_.node(t.node), lo), Kind::node, 0, 0, id, t.span, inline_run)
                        : new_thread(t.node, Kind::range, lo, hi, id, t.span, inline_run);
  };
  if (t.kind == Kind::dummy) {  // a dummy range: two halves
    const std::uint64_t mid = t.lo + (t.hi - t.lo) / 2;
    a = new_thread(kNoNode, Kind::dummy, t.lo, mid, id, t.span);
    b = new_thread(kNoNode, Kind::dummy, mid, t.hi, id, t.span);
  } else if (t.kind == Kind::range) {  // two iterations or more (part)
    const std::uint64_t mid = t.lo + (t.hi - t.lo) / 2;
    a = part(t.lo, mid);
    b = part(mid, t.hi);
  } else {
    const Node& n = dag_.node(t.node);
    if (n.kind == NodeKind::pair) {
      a = new_thread(n.left, Kind::node, 0, 0, id, t.span, inline_run);
      b = new_thread(n.right, Kind::node, 0, 0, id, t.span, inline_run);
    } else if (n.kind == NodeKind::loop && n.count == 1) {
      a = part(0, 1);
    } else if (n.kind == NodeKind::loop && n.count > 1) {
      a = part(0, n.count / 2);
      b = part(n.count / 2, n.count);
    }
  }
  Thread& self = threads_[std::size_t(id)];  // new_thread may have moved it
  self.pending = (a >= 0) + (b >= 0);
  if (self.pending == 0) return;  // a leaf: finish next step
  if (b < 0) {  // a loop of one iteration: no fork, the iteration runs at once, as a call
    threads_[std::size_t(a)].ready = pr.clock;
    pr.current = a;
    return;
  }
  if (inline_run) {  // a join's cost, no promotion; the left child now, the right one after it
    ++r_.joins;
    advance(pr.clock, costs_.join);
    r_.overhead += double(costs_.join);
    threads_[std::size_t(a)].ready = pr.clock;
    threads_[std::size_t(a)].inline_next = b;
    pr.current = a;
    return;
  }
  // A fork costs a join descriptor, and every thread made ready costs a promotion (thread
  // creation), so the thread schedulers pay what ws pays per fork (SPEC §5: every promoted
  // branch is a thread).
  ++r_.joins;
  const std::uint64_t made = name_ == "fifo" ? 2 : 1;
  r_.promotions += made;
  advance(pr.clock, costs_.join + times(made, costs_.promote));
  r_.overhead += double(costs_.join + made * costs_.promote);
  threads_[std::size_t(a)].ready = threads_[std::size_t(b)].ready = pr.clock;
  // The executed graph's span (HB §3's g_h, as the stack engine's run_item): a child made ready
  // (promoted) starts τ = promote after its fork; the one run at once (all but fifo's) does not.
  // Without it exec_span was the DAG's own span whatever `promote` was (stop 48's sim hunt).
  if (name_ == "fifo") threads_[std::size_t(a)].span += costs_.promote;
  threads_[std::size_t(b)].span += costs_.promote;
  if (name_ == "fifo") {  // breadth first: children to the tail, the parent waits
    fifo_.push_back(a);
    fifo_.push_back(b);
    made_ready(p, 2);
    pr.current = -1;
    return;
  }
  push_thread(pr.dq, b);  // the right child waits on top; run the left one
  made_ready(p, 1);
  pr.current = a;
}

void ThreadSim::finish(unsigned p, std::int32_t id) {
  Proc& pr = procs_[p];
  Thread& t = threads_[std::size_t(id)];
  std::uint64_t retained = t.held;
  if (t.kind == Kind::node && !t.ended) {
    // The work after the join in a step of its own, the signal to the parent in the next, at the
    // clock it ends: a sibling ending earlier, on a processor acting in between, must not find its
    // parent's join complete and go on with the parent at its own clock (both in one step, a pair
    // with 50 units after its join ended before its span, the bug hunt of 2026-11-29).
    const Node& n = dag_.node(t.node);
    t.ended = true;
    t.span = std::max(t.span, t.span_join) + n.work_after;
    t.span_join = 0;
    if (n.work_after > 0) {
      advance(pr.clock, n.work_after);
      r_.raw_work += double(n.work_after);
      return;
    }
  }
  if (t.kind == Kind::node) {
    const Node& n = dag_.node(t.node);
    live_mem_ -= t.held + (n.free_at_parent_end ? 0 : n.alloc);
    retained = n.free_at_parent_end ? n.alloc : 0;
  } else {
    t.span = std::max(t.span, t.span_join);
  }
  if (!t.inlined) --live_threads_;
  const std::int32_t inline_next = t.inline_next;
  pr.current = -1;
  if (t.parent < 0) {
    done_ = true;
    r_.makespan = pr.clock;
    r_.exec_span = double(t.span);
    r_.memory_at_end = live_mem_;
    return;
  }
  const std::int32_t parent_id = t.parent;
  free_.push_back(id);
  Thread& parent = threads_[std::size_t(parent_id)];
  parent.held += retained;
  parent.span_join = std::max(parent.span_join, t.span);
  if (--parent.pending == 0) {
    pr.current = parent_id;  // the last child continues with its parent
  } else if (inline_next >= 0) {  // a join run inline: its second branch next, here
    threads_[std::size_t(inline_next)].ready = pr.clock;
    pr.current = inline_next;
  }
}

}  // namespace

double least_thread_run_bytes(std::uint64_t nesting, unsigned workers) {
  return double(nesting) * double(sizeof(Thread)) + double(workers) * double(sizeof(Proc));
}

RunResult simulate_threads(const RunConfig& config) {
  ThreadSim s(config);
  return s.run();
}

}  // namespace weft_sim::detail
