// "name:arg:arg" → Dag, with defaults for omitted arguments.
#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators.hpp"

namespace weft_sim {
namespace {

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto c = s.find(':', start);
    out.emplace_back(s.substr(start, c == std::string_view::npos ? std::string_view::npos : c - start));
    if (c == std::string_view::npos) return out;
    start = c + 1;
  }
}

double number(const std::vector<std::string>& a, std::size_t i, double fallback, std::string_view spec) {
  if (i >= a.size() || a[i].empty()) return fallback;
  double v = 0;
  auto [p, ec] = std::from_chars(a[i].data(), a[i].data() + a[i].size(), v);
  if (ec != std::errc() || p != a[i].data() + a[i].size() || v < 0)
    throw std::invalid_argument("--dag " + std::string(spec) + ": argument " + std::to_string(i) +
                                " ('" + a[i] + "') is not a non-negative number");
  return v;
}

}  // namespace

std::string dag_help() {
  return "fib:N[:W], nqueens:N[:W], uts-geo:DEPTH:B[:SEED[:ROOT]], uts-bin:ROOT:M:Q[:SEED], "
         "loops:OUTER:INNER:W, nar:G:M[:DEPTH[:SEED]], alg5:N:F, nar-lb:P:D:A, file:PATH";
}

Dag make_dag(std::string_view spec) {
  if (spec.substr(0, 5) == "file:") {
    Dag d = read_dag_file(std::string(spec.substr(5)));
    d.name = std::string(spec);
    return d;
  }
  const auto a = split(spec);
  const std::string& name = a[0];
  auto arg = [&](std::size_t i, double fallback) { return number(a, i, fallback, spec); };
  auto u = [&](std::size_t i, double fallback) { return unsigned(arg(i, fallback)); };
  Dag d;
  if (name == "fib") d = make_fib(u(1, 30), Time(arg(2, 2)));
  else if (name == "nqueens") d = make_nqueens(u(1, 10), Time(arg(2, 5)));
  else if (name == "uts-geo") d = make_uts_geometric(u(1, 10), arg(2, 4), std::uint64_t(arg(3, 19)), u(4, 100));
  else if (name == "uts-bin") d = make_uts_binomial(u(1, 200), u(2, 8), arg(3, 0.12), std::uint64_t(arg(4, 42)));
  else if (name == "loops") d = make_nested_loops(std::uint64_t(arg(1, 64)), std::uint64_t(arg(2, 1024)), Time(arg(3, 50)));
  else if (name == "nar") d = make_nar_tree(u(1, 3), u(2, 1), u(3, 15), std::uint64_t(arg(4, 1)));
  else if (name == "alg5") d = make_ls_adversary(u(1, 64), Time(arg(2, 10000)));
  else if (name == "nar-lb") d = make_nar_lower_bound(u(1, 64), u(2, 200), std::uint64_t(arg(3, 1024)));
  else throw std::invalid_argument("--dag: unknown '" + name + "'; accepted: " + dag_help());
  d.name = std::string(spec);
  return d;
}

}  // namespace weft_sim
