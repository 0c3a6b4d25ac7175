// The DAG templates and generators: totals against closed forms and known counts.
#include <gtest/gtest.h>

#include <cmath>

#include "generators.hpp"

using namespace weft_sim;

namespace {
double fib_calls(unsigned n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }
}  // namespace

TEST(Dag, FibTotalsMatchTheRecursion) {
  const Dag d = make_fib(20, 3);
  const auto t = d.root_totals();
  EXPECT_EQ(t.instances, fib_calls(20));
  EXPECT_EQ(t.work, 3 * fib_calls(20));
  EXPECT_EQ(t.span, 3.0 * 20);  // fib(20) → fib(19) → ... → fib(1): 20 calls on the longest path
  EXPECT_EQ(d.size(), 21u);     // one shared template per n
}

TEST(Dag, NqueensLeafChecksCountSolutions) {
  // Every candidate is one task; a candidate that completes a board is a solution. For N = 8:
  // 92 solutions among the 2057 nodes of the backtracking tree (the empty board included); every
  // node but the solutions runs a loop over 8 candidate columns.
  const Dag d = make_nqueens(8, 1);
  std::uint64_t loops = 0;
  for (std::size_t i = 0; i < d.size(); ++i) loops += d.node(std::uint32_t(i)).kind == NodeKind::loop;
  EXPECT_EQ(loops, 2057u - 92u);
  EXPECT_EQ(d.root_totals().work, 8.0 * (2057 - 92));  // every loop checks 8 candidates
}

TEST(Dag, NestedLoopsAndSerialMemory) {
  const Dag d = make_nested_loops(6, 7, 5);
  const auto t = d.root_totals();
  EXPECT_EQ(t.work, 6 * 7 * 5);
  EXPECT_EQ(t.span, 5);
  EXPECT_EQ(t.instances, 1 + 6 + 42);
}

TEST(Dag, NarLowerBoundHoldsOneBlockSerially) {
  const Dag d = make_nar_lower_bound(8, 30, 1000);
  const auto t = d.root_totals();
  EXPECT_EQ(t.serial_peak, 1000);  // S1 = A: the 1DF schedule frees each block before the next
  EXPECT_EQ(t.span, 29);  // d = floor((30 - 1 - 2 log 4) / 2) = 12: 2d + 1 + 2 log 4 = 29 nodes
}

TEST(Dag, NarTreeShape) {
  const Dag d = make_nar_tree(3, 3, 15, 1);
  const auto t = d.root_totals();
  EXPECT_EQ(t.instances, 65535);
  EXPECT_EQ(t.work, 2.0 * 32767 + 50.0 * 32768);  // G3: inner threads 2, leaves 50
  EXPECT_NEAR(t.serial_peak, 40 * 1024 + 15 * 48, 41000);  // one 40 KB block on the serial path
}

TEST(Dag, UtsIsDeterministicPerSeed) {
  const auto a = make_uts_geometric(8, 3, 5).root_totals();
  const auto b = make_uts_geometric(8, 3, 5).root_totals();
  const auto c = make_uts_geometric(8, 3, 6).root_totals();
  EXPECT_EQ(a.instances, b.instances);
  EXPECT_NE(a.instances, c.instances);
  EXPECT_GT(a.instances, 100);
}

TEST(Dag, BadSpecsAreRejectedWithTheAcceptedNames) {
  try {
    make_dag("fibonacci:3");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fib:N"), std::string::npos);
  }
  EXPECT_THROW(make_dag("fib:x"), std::invalid_argument);
  EXPECT_THROW(make_dag("nar:4:1"), std::invalid_argument);
  EXPECT_THROW(make_dag("nar-lb:6:40:1"), std::invalid_argument);
  // NAR Fig 6.9's least depth for P, worked out (the sim hunt of stop 50: "D must be at least
  // 2·log(p/2) + 3" left the reader to compute it, and the log's base to guess): 2·log2(64/2) + 3.
  try {
    make_dag("nar-lb:64:12:1");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("nar-lb: D = 12 is below 13, the least depth for P = 64 (2·log2(P/2) + 3)"),
              std::string::npos) << e.what();
  }
  EXPECT_EQ(make_dag("nar-lb:64:13:1").name, "nar-lb:64:13:1");
  // Arguments are read whole, in range, and no more than the generator takes (stop 40's bug hunt:
  // each of these ran a different DAG than written, or hung).
  for (const char* spec : {"fib:4294967297", "fib:1e300", "fib:nan", "fib:inf", "fib:2.7", "fib:-3", "fib:10:1e30",
                           "fib:10:nan", "nqueens:13.9", "uts-geo:5:nan", "uts-geo:4294967296:3",
                           "uts-bin:10:4294967297:0.5", "uts-bin:10:8:nan", "fib:10:2:99", "loops:1:1:1e20",
                           "alg5:4000000000:1", "nar-lb:8:4294967295:1", "nar-lb:4294967295:10:1"}) {
    SCOPED_TRACE(spec);
    EXPECT_THROW(make_dag(spec), std::invalid_argument);
  }
  // Required arguments have no default (stop 42's bug hunt: "fib" and "fib:" ran fib(30), "loops"
  // its defaults); only the optional ones in [..] may be left out.
  for (const char* spec : {"fib", "fib:", "nqueens", "uts-geo:5", "uts-geo::3", "uts-bin:10:4", "loops", "loops:3:4",
                           "loops:3::7", "nar:1", "alg5:4", "nar-lb:8:30"}) {
    SCOPED_TRACE(spec);
    try {
      make_dag(spec);
      FAIL() << "ran with a default";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("is missing"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(make_dag("fib:10").root_totals().work, make_dag("fib:10:2").root_totals().work);
  EXPECT_EQ(make_dag("uts-geo:5:3").root_totals().work, make_dag("uts-geo:5:3:19:100").root_totals().work);
}

// Every error about a DAG spec starts "--dag SPEC: ", the spec as given (stop 50's hunts left the
// generators' own checks without it: "fib: n must be at most 90"; fixed by stop 52's siminput hunt).
TEST(Dag, EveryErrorNamesTheSpecAsGiven) {
  for (const char* spec : {"fib:91", "nqueens:14", "uts-geo:5:0", "uts-bin:10:8:0.2", "nar:4:1",
                           "alg5:0:1", "nar-lb:3:10:5", "nar-lb:64:12:1", "bogus:1", ":5", "fib:x", "fib:10:2:99",
                           "fib", "fib:5:", "file:"}) {
    SCOPED_TRACE(spec);
    try {
      make_dag(spec);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with("--dag " + std::string(spec) + ": ")) << e.what();
    }
  }
  EXPECT_THROW(
      {
        try {
          make_dag("file:");
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "--dag file:: the path is empty (file:PATH)");
          throw;
        }
      },
      std::invalid_argument);
}

// An empty field anywhere in a spec is refused, naming it: a trailing one ("fib:5:") took the
// default, an inner optional one ("uts-geo:10:4::5") the default SEED (stop 50's hunts left it;
// stop 52's siminput hunt).  Optional arguments are left out with their colons, from the end.
TEST(Dag, EmptyArgumentsAreRefused) {
  for (const auto& [spec, at] : {std::pair{"fib:5:", 2}, {"nqueens:6:", 2}, {"uts-geo:10:4::5", 3},
                                 {"uts-geo:5:3:19:", 4}, {"uts-bin:10:4:0.2:", 4}, {"nar:1:1::3", 3},
                                 {"nar:1:1:5:", 4}}) {
    SCOPED_TRACE(spec);
    try {
      make_dag(spec);
      ADD_FAILURE() << "ran with a default";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--dag " + std::string(spec) + ": argument " + std::to_string(at) +
                                           " is empty"),
                std::string::npos) << e.what();
    }
  }
}

// A branching factor whose child counts the generator cannot compute is refused (stop 42: at
// 1e17, log(1 - p) rounded to 0 and an infinite count was cast to unsigned; past ~1.2e8 a count
// could pass 2^32).
TEST(Dag, UtsGeoRefusesABranchingFactorBeyondItsCounts) {
  for (const char* spec : {"uts-geo:2:1e17:19:3", "uts-geo:2:1e9:19:1", "uts-geo:1:100000001"}) {
    SCOPED_TRACE(spec);
    try {
      make_dag(spec);
      FAIL() << "built a tree";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("B must be at most 1e8"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(make_dag("uts-geo:2:1e8:19:0").root_totals().instances, 1);  // no node below the root
}

// uts-bin's Q is a probability (stop 48's sim hunt: uts-bin:10:0:5 ran, M = 0 keeping M·Q below 1).
TEST(Dag, UtsBinRefusesAProbabilityAboveOne) {
  for (const char* spec : {"uts-bin:10:0:5", "uts-bin:10:0:1.0000001"}) {
    SCOPED_TRACE(spec);
    try {
      make_dag(spec);
      FAIL() << "built a tree";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("Q is a probability"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(make_dag("uts-bin:10:0:1").root_totals().instances, 11);  // Q = 1 with M = 0: the root's 10
}

TEST(Dag, SpanWithForkCostCountsEveryForkOnThePath) {
  // fib(10): 10 calls of 2 units on the longest path, 9 of them fork (HB §3.1's τ per fork).
  EXPECT_EQ(make_fib(10, 2).span_with_fork_cost(100), 2 * 10 + 9 * 100);
  // A loop of 1000 iterations is a fork tree 10 deep.
  EXPECT_EQ(make_nested_loops(1, 1000, 5).span_with_fork_cost(7), 5 + 10 * 7);
}
