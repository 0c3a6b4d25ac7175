// Reading a DAG file (`--dag file:PATH`): what bench's weft-bench-record writes from a real
// kernel run (issue 13 item 2).  Text, one node per line, children before parents, the last node
// the root; ids are line positions among the node lines, from 0:
//
//   weft-dag 1                      header
//   # ...                           comment
//   L WORK                          a strand with no fork
//   P WORK LEFT RIGHT WORK_AFTER    a join: WORK, then LEFT and RIGHT in parallel, then WORK_AFTER
//   F WORK WORK_AFTER N ID...       a loop of N iterations, each its own node
//   E WORK                          a strand that runs an empty loop (a uts leaf: no fork, but
//                                   the runtime enters a loop; weft-sim charges `loop`)
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators.hpp"

namespace weft_sim {
namespace {

[[noreturn]] void bad(const std::string& path, std::size_t line, const std::string& why) {
  throw std::invalid_argument("--dag file:" + path + ": line " + std::to_string(line) + ": " + why);
}

}  // namespace

Dag read_dag_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--dag file:" + path + ": cannot open the file");
  Dag d;
  std::string text;
  std::size_t line = 0;
  bool header = false;
  std::vector<std::uint32_t> bodies;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty() || text[0] == '#') continue;
    if (!header) {
      if (text != "weft-dag 1") bad(path, line, "expected the header 'weft-dag 1'");
      header = true;
      continue;
    }
    std::istringstream s(text);
    char kind = 0;
    Time work = 0, after = 0;
    std::uint64_t a = 0, b = 0;
    s >> kind >> work;
    try {
      if (kind == 'L' && s) {
        d.add_leaf(work);
      } else if (kind == 'E' && s) {
        d.add_loop(work, std::vector<std::uint32_t>{}, 0);
      } else if (kind == 'P' && (s >> a >> b >> after)) {
        if (a >= d.size() || b >= d.size()) bad(path, line, "a branch id names no earlier node");
        d.add_pair(work, std::uint32_t(a), std::uint32_t(b), after);
      } else if (kind == 'F' && (s >> after >> a) && a > 0) {
        bodies.resize(a);
        for (auto& id : bodies)
          if (!(s >> id) || id >= d.size()) bad(path, line, "an iteration id is missing or names no earlier node");
        d.add_loop(work, bodies, after);
      } else {
        bad(path, line, "expected 'L WORK', 'E WORK', 'P WORK LEFT RIGHT AFTER' or 'F WORK AFTER N ID...'");
      }
    } catch (const std::length_error& e) {
      bad(path, line, e.what());
    }
    std::string rest;
    if (s >> rest) bad(path, line, "unexpected '" + rest + "' at the end of the line");
  }
  if (!header || d.size() == 0) throw std::invalid_argument("--dag file:" + path + ": no nodes");
  return d;
}

}  // namespace weft_sim
