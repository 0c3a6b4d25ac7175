// weft — the work/span mode's per-worker state (weft/work_span.hpp; SPEC §6, WOOL Table I): the
// running sums along the current path of strands, the totals of the jobs measured, the regions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "weft/work_span.hpp"

namespace weft::detail {

struct worker;

struct measure_state {
  work_span_unit unit;
  double burden;                 // C, in `unit`
  double work = 0;               // every strand so far (all jobs)
  double span = 0, burdened = 0; // the current path, from the start of the innermost open branch
  // The innermost open branch's id (a branch, region or job opened: a new one; closed: the one it was
  // opened from again), from a per-thread count that never repeats on the thread (work_span.cpp,
  // new_path): a scope's spawn is at the scope's own level when it runs on the path the scope
  // expects (scope.cpp, measured_spawn_begin).
  std::uint64_t path = 0;
  std::uint64_t strand_start = 0;  // ns (unit ns)
  work_span_figures total;       // of the finished jobs
  std::uint64_t jobs = 0;
  std::map<std::string, work_span_region, std::less<>> regions;
};

// A root job in a pool with the mode on: the job runs as its serial elision with every join
// measured (the `measure` poll bit sends each join to join_measured, and loops run as
// measured_loop), and its figures are added to the worker's totals.  Used by root_jobs.cpp.
class measured_root {
 public:
  explicit measured_root(hot_state& h);
  ~measured_root();
  measured_root(const measured_root&) = delete;
  measured_root& operator=(const measured_root&) = delete;

 private:
  hot_state& h_;
  measure_state* st_ = nullptr;
  double work0_ = 0;
  bool had_bit_ = false;  // nested in a measured job of this thread: its path is saved here
  double outer_span_ = 0, outer_burdened_ = 0;
  std::uint64_t outer_path_ = 0;
  loop_style saved_loops_{};
  frame* saved_spawn_limit_ = nullptr;
};

// The pool's report: the workers' (and serial contexts') states summed.
work_span_report merge_reports(const std::vector<const measure_state*>& states, work_span_unit unit, double burden);

}  // namespace weft::detail
