// DAG generators. make_dag parses "name:arg:arg..." (see sim/README.md for the list).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "dag.hpp"

namespace weft_sim {

Dag make_fib(unsigned n, Time call_work = 2);
Dag make_nqueens(unsigned n, Time check_work = 5);   // LS Algorithm 2, one task per candidate column
Dag make_uts_geometric(unsigned depth, double branching, std::uint64_t seed,
                       unsigned root_children = 100, Time node_work = 200);
Dag make_uts_binomial(unsigned root_children, unsigned m, double q, std::uint64_t seed,
                      Time node_work = 200);
Dag make_nested_loops(std::uint64_t outer, std::uint64_t inner, Time iteration_work);
// NAR §7.2.1: balanced binary tree of threads; granularity G1-G3 and memory M1-M3 options.
Dag make_nar_tree(unsigned granularity_option, unsigned memory_option, unsigned depth,
                  std::uint64_t seed);
Dag make_ls_adversary(unsigned n, Time iteration_work);  // LS §9.4 Algorithm 5
// NAR Theorem 6.7 (Fig 6.9): the DAG on which DFDeques(K) and work stealing need Ω(p·D·A) space.
Dag make_nar_lower_bound(unsigned processors, unsigned depth, std::uint64_t block);

// A DAG file, as bench's weft-bench-record writes it (format: dag_file.cpp).
Dag read_dag_file(const std::string& path);

Dag make_dag(std::string_view spec);
std::string dag_help();

}  // namespace weft_sim
