// weft tests: randomly generated fork-join programs (shared by test_random.cpp and the soak in
// test_edges.cpp).  Seeded trees mix join, scope spawn/sync, typed spawn (weft::spawn), parallel_for,
// parallel_reduce and try/catch, nested at random to depth ~8.  Every leaf hashes its path; the parallel evaluation must
// give the checksum (or the exception) of an independent serial evaluation of the same tree.  With
// throwing leaves: the exception that leaves each try/catch and the run is the serial elision's
// (the first thrower in serial order), and when it arrives no leaf below is still running.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "common.hpp"

namespace wt::randprog {

// The checksum: a polynomial hash (h, B^len), combined associatively and non-commutatively.
struct hv {
  std::uint64_t h = 0, p = 1;
  friend bool operator==(const hv&, const hv&) = default;
};
inline hv combine(const hv& a, const hv& b) { return {a.h * b.p + b.h, a.p * b.p}; }
inline hv atom(std::uint64_t x) { return {wt::mix(x), 0x100000001B3ull}; }

inline std::uint64_t child_path(std::uint64_t path, std::uint64_t k) { return wt::mix(path * 0x9E3779B97F4A7C15ull + k + 1); }

struct leaf_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class kind : std::uint8_t { leaf, join, scope, pfor, preduce, trycatch, spawn };
enum class itype : std::uint8_t { i32, i64, u32, usize, i16, mixed };

struct node {
  kind k = kind::leaf;
  itype it = itype::i32;
  std::uint32_t n = 0;     // loop iterations / scope tasks
  std::int32_t lo = 0;     // loop start
  std::uint32_t grain = 1;
  std::uint32_t work = 0;  // leaf: rounds of hashing
  bool explicit_sync = false;
  std::vector<node> kids;  // join, spawn: 2; scope: n; loops and try: 1 (the body, evaluated per index)
};

// budget: about how many leaves the subtree may evaluate.
inline node generate(wt::rng& r, unsigned depth, unsigned max_depth, double budget) {
  node nd;
  if (depth >= max_depth || budget < 2 || (depth >= 2 && r.chance(15))) {
    nd.k = kind::leaf;
    nd.work = r.below(40);
    return nd;
  }
  const unsigned roll = r.below(100);
  if (roll < 30) {
    // A typed spawn is a join split in two (kid 0 runs between the spawn and the sync, kid 1 is the
    // spawned task): one in four of the joins, half of them synced by the handle's destructor.
    nd.k = r.chance(25) ? kind::spawn : kind::join;
    nd.explicit_sync = r.chance(50);
    const double f = 0.2 + 0.6 * r.below(1000) / 1000.0;
    nd.kids.push_back(generate(r, depth + 1, max_depth, budget * f));
    nd.kids.push_back(generate(r, depth + 1, max_depth, budget * (1 - f)));
  } else if (roll < 50) {
    nd.k = kind::scope;
    nd.n = 1 + r.below(6);
    nd.explicit_sync = r.chance(50);
    for (unsigned j = 0; j < nd.n; ++j) nd.kids.push_back(generate(r, depth + 1, max_depth, budget / nd.n));
  } else if (roll < 92) {
    nd.k = roll < 71 ? kind::pfor : kind::preduce;
    const unsigned cap = budget > 64 ? 24 : 9;
    nd.n = r.chance(10) ? r.below(2) : 2 + r.below(cap);  // some empty and unit ranges
    nd.it = itype(r.below(6));
    nd.lo = std::int32_t(r.below(200)) - 100;
    if (nd.it == itype::u32 || nd.it == itype::usize) nd.lo = std::abs(nd.lo);
    nd.grain = r.chance(70) ? 1 : 1 + r.below(4);
    nd.kids.push_back(generate(r, depth + 1, max_depth, budget / std::max(1u, nd.n)));
  } else {
    nd.k = kind::trycatch;
    nd.kids.push_back(generate(r, depth + 1, max_depth, budget));
  }
  return nd;
}

// Calls f(lo, hi) with lo/hi of the node's index types (hi - lo == n).
template <class F>
decltype(auto) with_range(const node& nd, F&& f) {
  const std::int64_t lo = nd.lo, hi = nd.lo + std::int64_t(nd.n);
  switch (nd.it) {
    case itype::i32: return f(std::int32_t(lo), std::int32_t(hi));
    case itype::i64: return f(std::int64_t(lo), std::int64_t(hi));
    case itype::u32: return f(std::uint32_t(lo), std::uint32_t(hi));
    case itype::usize: return f(std::size_t(lo), std::size_t(hi));
    case itype::i16: return f(std::int16_t(lo), std::int16_t(hi));
    case itype::mixed: break;
  }
  return f(std::int32_t(lo), std::int64_t(hi));
}

struct context {
  const std::unordered_set<std::uint64_t>* throwers = nullptr;
  std::atomic<long> violations{0};  // a try/catch saw a leaf of its subtree still running
  std::atomic<long> leaves{0};
  std::vector<std::uint64_t>* leaf_paths = nullptr;  // serial pre-pass only
};

// RAII in-flight count: nearest enclosing try/catch (or the root) counts its running leaves.
struct in_flight {
  std::atomic<int>& c;
  explicit in_flight(std::atomic<int>& counter) : c(counter) { c.fetch_add(1, std::memory_order_relaxed); }
  ~in_flight() { c.fetch_sub(1, std::memory_order_release); }
};

inline hv leaf_value(const node& nd, std::uint64_t path, context& cx, std::atomic<int>& flight) {
  in_flight guard(flight);
  cx.leaves.fetch_add(1, std::memory_order_relaxed);
  if (cx.leaf_paths) cx.leaf_paths->push_back(path);
  std::uint64_t h = path;
  for (std::uint32_t i = 0; i < nd.work; ++i) h = wt::mix(h + i);
  if (cx.throwers && cx.throwers->count(path)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "leaf %016" PRIx64, path);
    throw leaf_error(buf);
  }
  return atom(h);
}

inline hv caught_value(const leaf_error& e) {
  std::uint64_t h = 7;
  for (const char* c = e.what(); *c; ++c) h = wt::mix(h ^ std::uint64_t(*c));
  return atom(h);
}

// --- the serial evaluation: plain calls and loops ---
inline hv eval_serial(const node& nd, std::uint64_t path, context& cx, std::atomic<int>& flight) {
  switch (nd.k) {
    case kind::leaf: return leaf_value(nd, path, cx, flight);
    case kind::join:
    case kind::spawn: {
      hv a = eval_serial(nd.kids[0], child_path(path, 0), cx, flight);
      hv b = eval_serial(nd.kids[1], child_path(path, 1), cx, flight);
      return combine(a, b);
    }
    case kind::scope: {
      hv acc = atom(path ^ 0x5C09E);
      for (std::uint32_t j = 0; j < nd.n; ++j) acc = combine(acc, eval_serial(nd.kids[j], child_path(path, j), cx, flight));
      return acc;
    }
    case kind::pfor: {
      hv acc = atom(path ^ 0xF04);
      for (std::uint32_t j = 0; j < nd.n; ++j) acc = combine(acc, eval_serial(nd.kids[0], child_path(path, j), cx, flight));
      return acc;
    }
    case kind::preduce: {
      hv acc = atom(path ^ 0x4ED);
      for (std::uint32_t j = 0; j < nd.n; ++j) acc = combine(acc, eval_serial(nd.kids[0], child_path(path, j), cx, flight));
      return acc;
    }
    case kind::trycatch: {
      std::atomic<int> mine{0};
      in_flight guard(flight);
      try {
        return combine(atom(path), eval_serial(nd.kids[0], child_path(path, 0), cx, mine));
      } catch (const leaf_error& e) {
        return caught_value(e);
      }
    }
  }
  return {};
}

// --- the parallel evaluation ---
inline hv eval_par(const node& nd, std::uint64_t path, context& cx, std::atomic<int>& flight) {
  switch (nd.k) {
    case kind::leaf: return leaf_value(nd, path, cx, flight);
    case kind::join: {
      auto [a, b] = weft::join([&] { return eval_par(nd.kids[0], child_path(path, 0), cx, flight); },
                               [&] { return eval_par(nd.kids[1], child_path(path, 1), cx, flight); });
      return combine(a, b);
    }
    case kind::spawn: {
      if (nd.explicit_sync) {
        auto t = weft::spawn([&] { return eval_par(nd.kids[1], child_path(path, 1), cx, flight); });
        const hv a = eval_par(nd.kids[0], child_path(path, 0), cx, flight);
        return combine(a, t.sync());
      }
      hv a, b;
      {
        auto t = weft::spawn([&] { b = eval_par(nd.kids[1], child_path(path, 1), cx, flight); });
        a = eval_par(nd.kids[0], child_path(path, 0), cx, flight);
      }  // ~spawned syncs (and throws the task's exception; during unwinding, drops the task)
      return combine(a, b);
    }
    case kind::scope: {
      std::vector<hv> out(nd.n);
      {
        weft::scope s;
        for (std::uint32_t j = 0; j < nd.n; ++j)
          s.spawn([&, j] { out[j] = eval_par(nd.kids[j], child_path(path, j), cx, flight); });
        if (nd.explicit_sync) s.sync();
      }  // otherwise ~scope syncs (and throws)
      hv acc = atom(path ^ 0x5C09E);
      for (const hv& v : out) acc = combine(acc, v);
      return acc;
    }
    case kind::pfor: {
      std::vector<hv> out(nd.n);
      with_range(nd, [&](auto lo, auto hi) {
        using I = std::common_type_t<decltype(lo), decltype(hi)>;
        weft::parallel_for(
            lo, hi,
            [&](auto i) {
              const auto j = std::size_t(std::make_unsigned_t<I>(I(i) - I(lo)));
              out[j] = eval_par(nd.kids[0], child_path(path, j), cx, flight);
            },
            weft::grain{nd.grain});
      });
      hv acc = atom(path ^ 0xF04);
      for (const hv& v : out) acc = combine(acc, v);
      return acc;
    }
    case kind::preduce: {
      return with_range(nd, [&](auto lo, auto hi) {
        using I = std::common_type_t<decltype(lo), decltype(hi)>;
        return weft::parallel_reduce(
            lo, hi, atom(path ^ 0x4ED),
            [&](auto i) {
              const auto j = std::size_t(std::make_unsigned_t<I>(I(i) - I(lo)));
              return eval_par(nd.kids[0], child_path(path, j), cx, flight);
            },
            combine, weft::grain{nd.grain});
      });
    }
    case kind::trycatch: {
      std::atomic<int> mine{0};
      in_flight guard(flight);
      try {
        return combine(atom(path), eval_par(nd.kids[0], child_path(path, 0), cx, mine));
      } catch (const leaf_error& e) {
        if (mine.load(std::memory_order_acquire) != 0) cx.violations.fetch_add(1);
        return caught_value(e);
      }
    }
  }
  return {};
}

struct outcome {
  bool threw = false;
  hv value;
  std::string message;
};

template <class Eval>
outcome evaluate(Eval&& eval, context& cx, std::atomic<int>& flight) {
  outcome o;
  try {
    o.value = eval();
  } catch (const leaf_error& e) {
    o.threw = true;
    o.message = e.what();
  }
  (void)cx;
  (void)flight;
  return o;
}

struct program {
  std::uint64_t seed = 0;  // also the root's path
  node root;
  std::unordered_set<std::uint64_t> throwers;
  outcome expected;
  long serial_leaves = 0;
};

inline program make_program(std::uint64_t seed, unsigned throwers) {
  program p;
  p.seed = seed;
  wt::rng r(seed);
  const unsigned max_depth = 6 + r.below(3);
  p.root = generate(r, 0, max_depth, wt::pick(3000.0, 600.0));
  // Serial pre-pass: the leaves in serial order, to choose the throwing ones.
  std::vector<std::uint64_t> paths;
  {
    context cx;
    cx.leaf_paths = &paths;
    std::atomic<int> flight{0};
    (void)eval_serial(p.root, seed, cx, flight);
  }
  for (unsigned t = 0; t < throwers && !paths.empty(); ++t) p.throwers.insert(paths[r.below(std::uint32_t(paths.size()))]);
  context cx;
  cx.throwers = &p.throwers;
  std::atomic<int> flight{0};
  p.expected = evaluate([&] { return eval_serial(p.root, seed, cx, flight); }, cx, flight);
  p.serial_leaves = cx.leaves.load();
  return p;
}

// Evaluates p's tree in parallel through `run` (called with a thunk; returns what the thunk
// returns: e.g. pool.run, or a direct call from a non-worker) and checks it against the serial
// evaluation: the same checksum or the same exception, no leaf running when the exception leaves a
// try/catch or the run.
template <class Run>
void check_against_serial(const program& p, Run&& run) {
  context cx;
  cx.throwers = &p.throwers;
  std::atomic<int> flight{0};
  outcome got = evaluate([&] { return run([&] { return eval_par(p.root, p.seed, cx, flight); }); }, cx, flight);
  EXPECT_EQ(flight.load(), 0) << "leaves still running when run() returned";
  EXPECT_EQ(cx.violations.load(), 0) << "an exception reached a try/catch before its subtree finished";
  EXPECT_EQ(got.threw, p.expected.threw);
  if (got.threw && p.expected.threw) {
    EXPECT_EQ(got.message, p.expected.message) << "not the serial elision's exception";
  } else if (!got.threw && !p.expected.threw) {
    EXPECT_EQ(got.value.h, p.expected.value.h);
    EXPECT_EQ(got.value.p, p.expected.value.p);
    if (p.throwers.empty()) EXPECT_EQ(cx.leaves.load(), p.serial_leaves);
  } else {
    ADD_FAILURE() << (got.threw ? "threw " + got.message : std::string("returned")) << ", serial "
                  << (p.expected.threw ? "threw " + p.expected.message : std::string("returned"));
  }
}

}  // namespace wt::randprog
