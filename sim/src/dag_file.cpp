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
//
// Every node must be reachable from the root and the last line must end with a newline: the root
// is the last node, so a file cut at a line end read as a smaller DAG (the nodes its lost parents
// referred to left out, silently), and one cut inside a number as a smaller number.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators.hpp"
#include "parse.hpp"

namespace weft_sim {
namespace {

[[noreturn]] void bad(const std::string& path, std::size_t line, const std::string& why) {
  throw std::invalid_argument("--dag file:" + path + ": line " + std::to_string(line) + ": " + why);
}

// The line's fields after the kind letter, as non-negative decimal integers (no sign: istream
// would read "-5" as 2^64 - 5).
std::vector<std::uint64_t> fields(const std::string& path, std::size_t line, std::string_view rest) {
  std::vector<std::uint64_t> out;
  std::size_t i = 0;
  while (i < rest.size()) {
    if (rest[i] == ' ' || rest[i] == '\t') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\t') ++j;
    const std::optional<std::uint64_t> v = whole_uint(rest.substr(i, j - i));
    if (!v) {
      // Digits alone that do not fit 64 bits are a number too large, not "not a non-negative
      // integer" (what an overflowing 2^64 was called).
      const std::string_view token = rest.substr(i, j - i);
      // Control bytes escaped: a NUL ended the printed message at it ("line 2: 3").
      std::string why;
      for (const char c : token) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(static_cast<unsigned char>(c)));
          why += hex;
        } else {
          why += c;
        }
      }
      if (token.find_first_not_of("0123456789") == std::string_view::npos)
        why.append(" is too large (work is at most 2^40, and an id names an earlier node)");
      else
        why.append(" is not a non-negative integer");
      bad(path, line, why);
    }
    out.push_back(*v);
    i = j;
  }
  return out;
}

}  // namespace

Dag read_dag_file(const std::string& path) {
  if (path.empty()) throw std::invalid_argument("--dag file:: the path is empty (file:PATH)");  // "cannot open" before
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw std::invalid_argument("--dag file:" + path + ": not a regular file");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--dag file:" + path + ": cannot open the file");
  Dag d;
  std::string text;
  std::size_t line = 0;
  bool header = false;
  std::vector<std::uint32_t> bodies;
  std::vector<std::size_t> node_line;  // each node's line, for the reachability error
  const char* const forms = "expected 'L WORK', 'E WORK', 'P WORK LEFT RIGHT AFTER' or 'F WORK AFTER N ID...'";
  while (std::getline(in, text)) {
    ++line;
    if (in.eof()) bad(path, line, "the file ends inside this line (no newline after it): a truncated file?");
    if (!text.empty() && text.back() == '\r') text.pop_back();  // a file with CRLF line ends
    // An editor's UTF-8 byte-order mark is no part of the header (refused as "expected the header").
    if (line == 1 && text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
    if (text.empty() || text[0] == '#') continue;
    if (!header) {
      if (text != "weft-dag 1") bad(path, line, "expected the header 'weft-dag 1'");
      header = true;
      continue;
    }
    const char kind = text[0];
    // The kind before the numbers: an indented "  L 3" was "L is not a non-negative integer".
    if ((kind != 'L' && kind != 'E' && kind != 'P' && kind != 'F') ||
        (text.size() > 1 && text[1] != ' ' && text[1] != '\t'))
      bad(path, line, forms);
    const std::vector<std::uint64_t> f = fields(path, line, std::string_view(text).substr(1));
    auto work = [&](std::size_t i) {
      if (f[i] > kMaxTimeValue) bad(path, line, "work " + std::to_string(f[i]) + " is above 2^40, the largest the simulator takes");
      return Time(f[i]);
    };
    auto id = [&](std::size_t i) {
      if (f[i] >= d.size()) bad(path, line, "id " + std::to_string(f[i]) + " names no earlier node");
      return std::uint32_t(f[i]);
    };
    const std::size_t fixed = kind == 'L' || kind == 'E' ? 1 : kind == 'P' ? 4 : 0;
    if (fixed != 0 && f.size() > fixed) bad(path, line, "unexpected '" + std::to_string(f[fixed]) + "' at the end of the line");
    if ((kind == 'L' || kind == 'E') && f.size() == 1) {
      if (kind == 'L') d.add_leaf(work(0));
      else d.add_loop(work(0), std::vector<std::uint32_t>{}, 0);
    } else if (kind == 'P' && f.size() == 4) {
      d.add_pair(work(0), id(1), id(2), work(3));
    } else if (kind == 'F' && f.size() >= 3) {
      if (f[2] == 0) bad(path, line, "a loop of N = 0 iterations (F needs at least one; an empty loop is 'E WORK')");
      if (f[2] != f.size() - 3)
        bad(path, line, "N = " + std::to_string(f[2]) + " but " + std::to_string(f.size() - 3) + " iteration ids follow");
      bodies.resize(f.size() - 3);
      for (std::size_t k = 0; k < bodies.size(); ++k) bodies[k] = id(3 + k);
      d.add_loop(work(0), bodies, work(1));
    } else {
      bad(path, line, forms);
    }
    node_line.push_back(line);
  }
  if (!header || d.size() == 0) throw std::invalid_argument("--dag file:" + path + ": no nodes");
  // Children come before parents: one sweep down from the root marks every node it reaches.
  std::vector<bool> reached(d.size(), false);
  reached[d.root()] = true;
  for (std::size_t i = d.size(); i-- > 0;) {
    if (!reached[i]) {
      bad(path, node_line[i], "node " + std::to_string(i) + " is not reachable from the root (line " +
                                  std::to_string(node_line[d.root()]) +
                                  "): a truncated file? (the root is the last node, and every node must be used)");
    }
    const Node& n = d.node(std::uint32_t(i));
    if (n.kind == NodeKind::pair) {
      reached[n.left] = reached[n.right] = true;
    } else if (n.kind == NodeKind::loop) {
      for (std::uint64_t k = 0; k < n.count; ++k) reached[d.iteration(n, k)] = true;
    }
  }
  return d;
}

}  // namespace weft_sim
