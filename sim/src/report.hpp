// One simulated run as a JSON object, and the table line the CLI prints.
#pragma once

#include <string>

#include "engine.hpp"

namespace weft_sim {

struct RunRecord {
  std::string dag;
  std::string policy;
  unsigned workers = 0;
  std::uint64_t seed = 0;
  Costs costs;
  NodeTotals dag_totals;  // the DAG's own work W, span S and serial memory S1
  double dag_span_tau = 0;  // span with costs.promote (τ) on every fork (HB §3.1)
  RunResult result;
};

std::string to_json(const RunRecord& r);
std::string table_header();
std::string table_row(const RunRecord& r);

}  // namespace weft_sim
