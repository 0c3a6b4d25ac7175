// weft — the work/span mode (weft/work_span.hpp; SPEC §6; WOOL §IV.A Table I; Cilkscale's model).
// A worker measures the job it runs along its one path of execution (the job runs as its serial
// elision): `span`/`burdened` are the costs of the longest chain since the innermost open branch
// began; a join combines its branches' chains, and a region or a job moves its figures to totals.
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <utility>

#include "measure.hpp"
#include "weft/detail/platform.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

void predicted_speedup_of_no_workers() {
  throw std::invalid_argument("weft: work_span_figures::predicted_speedup(P) given P = 0; accepted: a worker count, 1 or more");
}

namespace {

measure_state& state_of(hot_state& h) noexcept { return *h.self->measure; }

// The id of a newly opened path.  Counted per thread, not per state: a scope compares the ids of
// paths on its own thread only (scope::spawn_measured checks the owner first), but one thread can
// measure in several states — a `serial` pool's run inside a measured job runs on the caller, in
// that pool's state.  Numbered per state, that pool's first job had the id of the outer job's first
// path, and a spawn from it into a scope the outer job made there was taken for one at the scope's
// level: forked in the inner state, joined at the outer sync into the outer job's figures (found by
// stop 54's workspan hunt).
thread_local std::uint64_t paths_opened = 0;
std::uint64_t new_path() noexcept { return ++paths_opened; }

// The strand running since the last event ends here: its cost goes to the work and to the path.
void close_strand(measure_state& st) noexcept {
  if (st.unit != work_span_unit::ns) return;
  const std::uint64_t t = now_ns();
  const double d = double(t - st.strand_start);
  st.work += d;
  st.span += d;
  st.burdened += d;
  st.strand_start = t;
}

// A call: a join's branch, a loop iteration, a job (unit calls).
void count_call(measure_state& st) noexcept {
  if (st.unit != work_span_unit::calls) return;
  st.work += 1;
  st.span += 1;
  st.burdened += 1;
}

// A new branch starts with an empty path; what came before is saved in `s`.
void open_branch(measure_state& st, measure_saved& s, bool is_call) noexcept {
  close_strand(st);
  s = measure_saved{st.span, st.burdened, st.work, st.path};
  st.span = st.burdened = 0;
  st.path = new_path();
  if (is_call) count_call(st);
}

}  // namespace

void measure_fork(hot_state& h, measure_saved& outer, bool is_call) noexcept { open_branch(state_of(h), outer, is_call); }

void measure_next(hot_state& h, measure_saved& first, bool is_call) noexcept { open_branch(state_of(h), first, is_call); }

// The two branches in parallel: the path continues from before the fork by the longer branch; the
// burdened path by WOOL Table I's rule (parallel only when that saves more than C, then C more).
void measure_join(hot_state& h, const measure_saved& outer, const measure_saved& first) noexcept {
  measure_state& st = state_of(h);
  close_strand(st);
  const double f = first.span, g = st.span, bf = first.burdened, bg = st.burdened;
  st.span = outer.span + std::max(f, g);
  st.burdened = outer.burdened + std::min(bf + bg, std::max(bf, bg) + st.burden);
  st.path = outer.path;
}

std::uint64_t measured_path(hot_state& h) noexcept { return state_of(h).path; }

// Only the id changes: the branch's strands go on adding to the path they run on (it forks nothing),
// and no strand ends here, for the id is no cost.
std::uint64_t measure_enter_unforked(hot_state& h) noexcept { return std::exchange(state_of(h).path, new_path()); }
void measure_leave_unforked(hot_state& h, std::uint64_t path) noexcept { state_of(h).path = path; }

void measure_call(hot_state& h) noexcept { count_call(state_of(h)); }

void measure_region_begin(hot_state& h, measure_saved& s) noexcept { open_branch(state_of(h), s, false); }

void measure_region_end(hot_state& h, measure_saved& s, std::string_view name) noexcept {
  measure_state& st = state_of(h);
  close_strand(st);
  try {
    auto it = st.regions.find(name);
    if (it == st.regions.end()) it = st.regions.emplace(std::string(name), work_span_region{std::string(name), 0, {}}).first;
    work_span_region& r = it->second;
    ++r.instances;
    r.figures.work += st.work - s.work;
    r.figures.span += st.span;
    r.figures.burdened_span += st.burdened;
  } catch (...) {  // out of memory for a new region's name: the region is not reported
  }
  st.span += s.span;
  st.burdened += s.burdened;
  st.path = s.path;
}

measured_root::measured_root(hot_state& h) : h_(h) {
  worker* w = h.self;
  if (w == nullptr || w->rt->cfg.work_span == work_span_unit::off) return;
  if (!w->measure) {
    w->measure = std::make_unique<measure_state>();
    w->measure->unit = w->rt->cfg.work_span;
    w->measure->burden = w->rt->cfg.work_span_burden;
  }
  st_ = w->measure.get();
  had_bit_ = (h.poll.fetch_or(poll_bit::measure, std::memory_order_relaxed) & poll_bit::measure) != 0;
  if (had_bit_) {
    // A root job this thread runs inside a measured job: a worker serving its pool while its job
    // waits for another pool's (runtime::wait_serving).  It is a job of its own (a pool::run call),
    // measured apart: the outer job's path is closed here and resumed at the end, and the time and
    // work in between are not the outer job's.  It was folded into the outer job (one job fewer,
    // its span added to the outer's path): stop 43's bug hunt.
    close_strand(*st_);
    outer_span_ = st_->span;
    outer_burdened_ = st_->burdened;
    outer_path_ = st_->path;
  }
  saved_loops_ = h.loops_run_as;
  h.loops_run_as = loop_style::measured;
  saved_spawn_limit_ = h.spawn_limit;
  h.spawn_limit = nullptr;  // every spawn runs at once, measured as a join (spawn_limit_for)
  work0_ = st_->work;
  st_->span = st_->burdened = 0;
  st_->path = new_path();
  st_->strand_start = now_ns();
  count_call(*st_);
}

measured_root::~measured_root() {
  if (st_ == nullptr) return;
  close_strand(*st_);
  st_->total.work += st_->work - work0_;
  st_->total.span += st_->span;
  st_->total.burdened_span += st_->burdened;
  ++st_->jobs;
  h_.loops_run_as = saved_loops_;
  h_.spawn_limit = saved_spawn_limit_;
  if (had_bit_) {  // the outer job goes on from here, its work (and its open regions') without ours
    st_->work = work0_;
    st_->span = outer_span_;
    st_->burdened = outer_burdened_;
    st_->path = outer_path_;
    return;
  }
  h_.poll.fetch_and(~poll_bit::measure, std::memory_order_relaxed);
}

work_span_report runtime::collect_work_span() const {
  std::vector<const measure_state*> states;
  for (const auto& w : workers)
    if (w->measure) states.push_back(w->measure.get());
  {
    std::lock_guard lk(serial_mu_);
    for (const auto& w : serial_all_)
      if (w->measure) states.push_back(w->measure.get());
  }
  // With the mode off the burden is unset (-1, config.cpp): the report of nothing carries none.
  return merge_reports(states, cfg.work_span, cfg.work_span == work_span_unit::off ? 0.0 : cfg.work_span_burden);
}

work_span_report merge_reports(const std::vector<const measure_state*>& states, work_span_unit unit, double burden) {
  work_span_report r;
  r.unit = unit;
  r.burden = burden;
  std::map<std::string, work_span_region, std::less<>> regions;
  for (const measure_state* st : states) {
    r.jobs += st->jobs;
    r.total.work += st->total.work;
    r.total.span += st->total.span;
    r.total.burdened_span += st->total.burdened_span;
    for (const auto& [name, reg] : st->regions) {
      work_span_region& acc = regions.try_emplace(name, work_span_region{name, 0, {}}).first->second;
      acc.instances += reg.instances;
      acc.figures.work += reg.figures.work;
      acc.figures.span += reg.figures.span;
      acc.figures.burdened_span += reg.figures.burdened_span;
    }
  }
  for (auto& [name, reg] : regions) r.regions.push_back(std::move(reg));
  return r;
}

}  // namespace weft::detail

namespace weft {

std::string to_string(const work_span_report& r) {
  const char* u = r.unit == work_span_unit::calls ? "calls" : r.unit == work_span_unit::ns ? "ns" : "off";
  char line[512];
  std::string out;
  // The name goes in as it is, whatever its length: through the fixed buffer, a region name of
  // ~400 characters cut its row's figures and newline off (stop 43's bug hunt).
  auto row = [&](const std::string& what, std::uint64_t n, const work_span_figures& f) {
    out += what;
    if (what.size() < 24) out.append(24 - what.size(), ' ');
    std::snprintf(line, sizeof line, " %8llu %16.0f %14.0f %12.2f %14.0f %12.2f %8.2f %8.2f\n",
                  (unsigned long long)n, f.work, f.span, f.parallelism(), f.burdened_span, f.burdened_parallelism(),
                  f.predicted_speedup(2), f.predicted_speedup(8));
    out += line;
  };
  std::snprintf(line, sizeof line,
                "weft work/span (unit: %s; burden C = %g %s per parallel join, WOOL Table I model)\n"
                "%-24s %8s %16s %14s %12s %14s %12s %8s %8s\n",
                u, r.burden, u, "region", "count", "work T1", "span Tinf", "parallelism", "burdened span",
                "burdened par", "pred S2", "pred S8");
  out += line;
  row("(whole run)", r.jobs, r.total);
  for (const work_span_region& reg : r.regions) row(reg.name, reg.instances, reg.figures);
  return out;
}

}  // namespace weft
