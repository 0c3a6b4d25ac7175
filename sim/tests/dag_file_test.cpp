// DAG files (`--dag file:PATH`, the format weft-bench-record writes): totals of a small file,
// and bad files rejected with the line that is wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "generators.hpp"

using namespace weft_sim;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& spec) {
  try {
    make_dag(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(DagFile, ReadsLeavesPairsAndLoops) {
  // 0: leaf 3; 1: leaf 4; 2: pair (5 | 0, 1 | 6); 3: loop (1 | 2, 0, 2 | 7), the root.
  const std::string path = write_file("dag_small.dag",
                                      "weft-dag 1\n# comment\nL 3\nL 4\nP 5 0 1 6\nF 1 7 3 2 0 2\n");
  const Dag d = make_dag("file:" + path);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d.root(), 3u);
  const Node& loop = d.node(3);
  EXPECT_EQ(loop.kind, NodeKind::loop);
  EXPECT_EQ(loop.count, 3u);
  EXPECT_EQ(d.iteration(loop, 1), 0u);
  const auto t = d.root_totals();
  EXPECT_EQ(t.work, 1 + 7 + 2 * (5 + 3 + 4 + 6) + 3);
  EXPECT_EQ(t.span, 1 + 5 + 4 + 6 + 7);  // loop, then the pair's longer branch
  EXPECT_EQ(t.instances, 1 + 2 * 3 + 1);
}

TEST(DagFile, RejectsBadFilesNamingTheLine) {
  // The error of the file `name` holding `text` names `what`.
  const auto rejects = [](const char* name, const std::string& text, const std::string& what) {
    const std::string error = error_of("file:" + write_file(name, text));
    EXPECT_NE(error.find(what), std::string::npos) << name << ": " << error;
  };
  rejects("no_header.dag", "L 3\n", "line 1: expected the header");
  rejects("forward.dag", "weft-dag 1\nL 3\nP 1 0 1 0\n", "line 3");
  rejects("junk.dag", "weft-dag 1\nL 3 9\n", "line 2: unexpected '9'");
  rejects("kind.dag", "weft-dag 1\nX 3\n", "line 2: expected 'L WORK', 'E WORK'");
  // The kind is checked before the numbers (stop 52's siminput hunt: an indented "  L 3" was "L is
  // not a non-negative integer", "X 3x" was about 3x), and a loop of no iterations is named as such
  // ("N = 0 but 0 iteration ids follow").
  rejects("indented.dag", "weft-dag 1\n  L 3\n", "line 2: expected 'L WORK', 'E WORK'");
  rejects("kind_junk.dag", "weft-dag 1\nX 3x\n", "line 2: expected 'L WORK', 'E WORK'");
  rejects("empty_loop.dag", "weft-dag 1\nL 1\nF 1 1 0\n",
          "line 3: a loop of N = 0 iterations (F needs at least one; an empty loop is 'E WORK')");
  EXPECT_NE(error_of("file:/nonexistent/x.dag").find("cannot open"), std::string::npos);
  // Numbers as written (istream read "-5" as 2^64 - 5), a loop's N against its ids, work in range.
  rejects("neg.dag", "weft-dag 1\nL -5\n", "line 2: -5 is not a non-negative integer");
  rejects("n.dag", "weft-dag 1\nL 1\nF 1 1 18446744073709551615 0\n", "line 3: N = ");
  rejects("big.dag", "weft-dag 1\nL 18446744073709551615\n", "above 2^40");
  // One past 2^64 - 1 was "18446744073709551616 is not a non-negative integer", which it is.
  rejects("huge.dag", "weft-dag 1\nL 18446744073709551616\n", "line 2: 18446744073709551616 is too large (work is at most 2^40");
  // A control byte in a number is shown escaped: a NUL cut the message at it ("line 2: 3").
  rejects("nul.dag", std::string("weft-dag 1\nL 3\0\n", 16), "line 2: 3\\x00 is not a non-negative integer");
  rejects("huge_id.dag", "weft-dag 1\nL 1\nP 1 0 99999999999999999999 0\n", "line 3: 99999999999999999999 is too large");
  EXPECT_NE(error_of("file:" + ::testing::TempDir()).find("not a regular file"), std::string::npos);
  // A byte-order mark (an editor's UTF-8 file) before the header read as part of it: "expected the
  // header 'weft-dag 1'" on a line that shows it (the sim hunt of stop 50).  It is skipped.
  EXPECT_EQ(make_dag("file:" + write_file("bom.dag", "\xef\xbb\xbfweft-dag 1\nL 3\nL 4\nP 1 0 1 2\n")).root_totals().work, 10);
  // A file with CRLF line ends reads as with LF.
  EXPECT_EQ(make_dag("file:" + write_file("crlf.dag", "weft-dag 1\r\nL 3\r\nL 4\r\nP 1 0 1 2\r\n")).root_totals().work,
            make_dag("file:" + write_file("lf.dag", "weft-dag 1\nL 3\nL 4\nP 1 0 1 2\n")).root_totals().work);
}

TEST(DagFile, RejectsATruncatedFile) {
  // The root is the last node, so a file cut at a line end read as a smaller DAG: the nodes its
  // lost parents referred to were left out of the run, and nothing said so.  Every node must be
  // reachable from the root, and the last line must end (a line cut inside a number reads as a
  // smaller number).
  const std::string cut = error_of("file:" + write_file("cut.dag", "weft-dag 1\nL 3\nL 4\nP 5 0 0 6\n"));
  EXPECT_NE(cut.find("line 3: node 1 is not reachable from the root (line 4)"), std::string::npos) << cut;
  EXPECT_NE(cut.find("truncated"), std::string::npos) << cut;
  const std::string two = error_of("file:" + write_file("two_roots.dag", "weft-dag 1\nL 5\nL 3\n"));
  EXPECT_NE(two.find("line 2: node 0 is not reachable from the root (line 3)"), std::string::npos) << two;
  const std::string open = error_of("file:" + write_file("no_newline.dag", "weft-dag 1\nL 3\nL 4\nP 5 0 1 6"));
  EXPECT_NE(open.find("line 4: the file ends inside this line"), std::string::npos) << open;
  // A shared node (a leaf used twice, as the recorder writes) and comments after the root are fine.
  EXPECT_EQ(make_dag("file:" + write_file("shared.dag", "weft-dag 1\nL 3\nP 5 0 0 6\n# end\n")).root_totals().work,
            3 + 5 + 3 + 6);
}
