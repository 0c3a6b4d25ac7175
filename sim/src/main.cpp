// weft-sim: simulate policies on a DAG over a sweep of P, seeds and cost values.
//   weft-sim --dag fib:30 --policy lazy-bf,ws --P 1,2,8,64,256 --seed 1 [--runs R]
//            [--costs default|calibrated|file:PATH] [--cost name=value[,value...] ...] [--json out.json] [--quiet]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators.hpp"
#include "report.hpp"

using namespace weft_sim;

namespace {

struct Options {
  std::string dag = "fib:20";
  std::vector<std::string> policies{"lazy-bf"};
  std::vector<unsigned> workers{1, 2, 8};
  std::uint64_t seed = 1;
  unsigned runs = 1;
  std::string costs_preset = "default";
  std::vector<std::pair<std::string, std::vector<std::string>>> cost_sweeps;
  std::string json;
  bool quiet = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto c = s.find(',', start);
    out.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) return out;
    start = c + 1;
  }
}

unsigned parse_unsigned(const std::string& what, const std::string& s) {
  try {
    std::size_t used = 0;
    const unsigned long v = std::stoul(s, &used);
    if (used == s.size() && v > 0 && v <= 1u << 20) return unsigned(v);
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(what + ": '" + s + "' is not an integer in 1..1048576");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + ": missing value");
      return argv[++i];
    };
    if (a == "--dag") o.dag = value();
    else if (a == "--policy") o.policies = split_list(value());
    else if (a == "--P") {
      o.workers.clear();
      for (const auto& p : split_list(value())) o.workers.push_back(parse_unsigned("--P", p));
    } else if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--runs") o.runs = parse_unsigned("--runs", value());
    else if (a == "--costs") o.costs_preset = value();
    else if (a == "--cost") {
      const std::string c = value();
      const auto eq = c.find('=');
      if (eq == std::string::npos) throw std::invalid_argument("--cost: expected name=value[,value...]");
      o.cost_sweeps.push_back({c.substr(0, eq), split_list(c.substr(eq + 1))});
    } else if (a == "--json") o.json = value();
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--help" || a == "-h") {
      std::cout << "weft-sim --dag SPEC --policy LIST --P LIST [--seed S] [--runs R]\n"
                   "         [--costs default|calibrated|file:PATH] [--cost name=v[,v...]]... [--json FILE] [--quiet]\n"
                   "DAGs: " << dag_help() << "\npolicies: " << policy_names(true) << "\n";
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + a + "' (see --help)");
  }
  for (const auto& p : o.policies) policy_by_name(p);  // reject bad names before any work
  return o;
}

// Every combination of the swept cost values (cartesian product, last varying fastest).
std::vector<Costs> cost_grid(const Options& o, const std::string& policy) {
  std::vector<Costs> grid{cost_preset(o.costs_preset, policy)};
  for (const auto& [name, values] : o.cost_sweeps) {
    std::vector<Costs> next;
    for (const auto& base : grid)
      for (const auto& v : values) {
        Costs c = base;
        set_cost(c, name + "=" + v);
        next.push_back(c);
      }
    grid = std::move(next);
  }
  return grid;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  const Dag dag = make_dag(o.dag);
  const NodeTotals totals = dag.root_totals();
  for (const auto& pname : o.policies) cost_grid(o, pname);  // reject bad costs before any work
  std::fprintf(stderr, "dag %s: %zu template nodes, %.0f instances, work %.4g, span %.4g, parallelism %.4g\n",
               dag.name.c_str(), dag.size(), totals.instances, totals.work, totals.span,
               totals.work / totals.span);
  const std::size_t total = o.policies.size() * o.workers.size() * cost_grid(o, o.policies[0]).size() * o.runs;
  std::vector<RunRecord> records;
  if (!o.quiet) std::cout << table_header() << "\n";
  for (const auto& pname : o.policies)
    for (const auto& costs : cost_grid(o, pname))
      for (unsigned p : o.workers)
        for (unsigned k = 0; k < o.runs; ++k) {
          RunRecord rec{dag.name, pname, p, o.seed + k, costs, totals,
                        dag.span_with_fork_cost(double(costs.promote)), {}};
          rec.result = simulate({&dag, &policy_by_name(pname), costs, p, rec.seed});
          records.push_back(rec);
          const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          std::fprintf(stderr, "\r[%zu/%zu] %s P=%u seed=%llu  %.1f s   ", records.size(), total,
                       pname.c_str(), p, (unsigned long long)rec.seed, secs);
          if (!o.quiet) std::cout << table_row(rec) << "\n" << std::flush;
        }
  std::fprintf(stderr, "\n");
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    if (!out) throw std::invalid_argument("--json: cannot write '" + o.json + "'");
    out << "{\"runs\": [\n";
    for (std::size_t i = 0; i < records.size(); ++i)
      out << "  " << to_json(records[i]) << (i + 1 < records.size() ? ",\n" : "\n");
    out << "]}\n";
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "weft-sim: %s\n", e.what());
  return 2;
}
