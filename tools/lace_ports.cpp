// weft-lace-ports — three of Lace's benchmark programs (trolando/lace, benchmarks/fib,
// benchmarks/knapsack and benchmarks/dfs) written again for weft, to compare the cost of a join with
// Lace's SPAWN/CALL/SYNC on the same program and the same input, and a spawn with a join
// (docs/results/fine-grained.md).
//
//   weft-lace-ports fib N [-w P] [-p POLICY|elision] [-f value|ref|scope|spawn]
//   weft-lace-ports knapsack FILE [-w P] [-p POLICY|elision] [-f value|ref]
//   weft-lace-ports knapsack-input ITEMS CAPACITY SEED     (an input file in Lace's format)
//   weft-lace-ports dfs DEPTH WIDTH GRAIN REPS [-w P] [-p POLICY|elision] [-f join|scope|spawn]
//
// One join per SPAWN/CALL/SYNC: Lace spawns one call, runs the other at once (CALL) and then
// SYNCs; here that is join(the CALLed call, the SPAWNed call), since weft's second branch is the
// latent one a thief may take, as Lace's spawned task is.  `-p elision` runs the serial elision
// (the two calls in the same order, no runtime); without -p the library default policy (or
// WEFT_POLICY).  Like Lace's programs, it prints the result and "Time: <seconds>" of the
// computation alone (the pool is started before the clock, as Lace's lace_start is).
#include <weft/weft.hpp>

#include "../bench/common/bench.hpp"  // splitmix64, for the generated knapsack inputs
#include "args.hpp"

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

// The two calls of a Lace SPAWN/CALL/SYNC: `call` runs first, `spawned` is the stealable one.
template <bool Parallel, class Call, class Spawned>
inline auto fork2(Call&& call, Spawned&& spawned) {
  if constexpr (Parallel) {
    return weft::join(std::forward<Call>(call), std::forward<Spawned>(spawned));
  } else {
    auto a = call();
    auto b = spawned();
    return std::pair{a, b};
  }
}

// How a port writes its branches (`-f`, fib and knapsack):
//  - value (default): as Lace's program does it — SPAWN and CALL copy the task's arguments, and a C
//    task cannot throw: the branches capture by value and the first is declared noexcept;
//  - ref: as C++ is most often written — `[&]` captures, branches that may throw.
// The difference is the cost of the first branch's exception landing pad and of arguments kept in
// memory for the frame to point at (docs/results/fine-grained.md, "The first branch's landing pad").
enum class capture { value, ref };

// benchmarks/fib/fib-lace.c: SPAWN(pfib, n-1); k = CALL(pfib, n-2); m = SYNC(pfib); m + k.
template <capture C>
int pfib(int n) {
  if (n < 2) return n;
  if constexpr (C == capture::value) {
    auto [k, m] = weft::join([n]() noexcept { return pfib<C>(n - 2); }, [n] { return pfib<C>(n - 1); });
    return m + k;
  } else {
    auto [k, m] = weft::join([&] { return pfib<C>(n - 2); }, [&] { return pfib<C>(n - 1); });
    return m + k;
  }
}

// The same program with Lace's SPAWN/CALL/SYNC written as a weft::scope (`-f scope`): one scope per
// node, one spawn, the other call, one sync — issue 9's item 5 on the smallest task there is.
int pfib_scope(int n) {
  if (n < 2) return n;
  int m = 0;
  weft::scope s;
  s.spawn([&m, n] { m = pfib_scope(n - 1); });
  const int k = pfib_scope(n - 2);
  s.sync();
  return m + k;
}

// The same program with Lace's SPAWN/CALL/SYNC written with a typed spawn (`-f spawn`): the handle
// in the node's frame, the CALL, the sync — Lace's own three steps.  The CALL is declared noexcept,
// as the value form's first branch is (a C task cannot throw): code that may throw between a spawn
// and its sync is an exception landing pad for the handle (README "Cheap joins").
int pfib_spawn(int n) {
  if (n < 2) return n;
  auto t = weft::spawn([n] { return pfib_spawn(n - 1); });
  const int k = [n]() noexcept { return pfib_spawn(n - 2); }();
  return t.sync() + k;
}

// Its serial elision is Lace's benchmarks/fib/fib-seq.c, written the same way here.  (Through
// fork2<false>'s lambdas GCC inlines the recursion into itself and merges repeated pure subcalls:
// fib(34) in 1.2 ms instead of 14, work that no runtime's join lets it skip.)
int pfib_seq(int n) { return n < 2 ? n : pfib_seq(n - 1) + pfib_seq(n - 2); }

// benchmarks/knapsack/knapsack-lace.c.
struct item {
  int value;
  int weight;
};

// Lace's compare(): decreasing value/weight, the ratio computed in double.
int by_ratio(const void* pa, const void* pb) {
  const auto* a = static_cast<const item*>(pa);
  const auto* b = static_cast<const item*>(pb);
  const double c = static_cast<double>(a->value) / a->weight - static_cast<double>(b->value) / b->weight;
  return c > 0 ? -1 : c < 0 ? 1 : 0;
}

// Lace's read_input(): "#items capacity value1 weight1 ...", then qsort by ratio (std::qsort with
// Lace's comparison, so that ties end in the same order as in Lace's program).
constexpr int max_items = 256;  // Lace's program reads at most 256 items; knapsack-input writes no more
std::vector<item> read_items(const char* path, int& capacity) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path, "r"), &std::fclose);
  int n = 0;
  if (!f || std::fscanf(f.get(), "%d %d", &n, &capacity) != 2 || n < 0 || n > max_items)
    throw std::invalid_argument(std::string("knapsack input '") + path +
                                "': cannot read '#items capacity' (at most 256 items)");
  // Lace's reader takes any int; a negative capacity made every branch over capacity from the start
  // and the program printed "Best value is -2147483648" (INT_MIN), exit 0.
  if (capacity < 0)
    throw std::invalid_argument(std::string("knapsack input '") + path + "': the capacity must be at least 0, got " +
                                std::to_string(capacity));
  std::vector<item> items(static_cast<std::size_t>(n));
  for (item& it : items)
    if (std::fscanf(f.get(), "%d %d", &it.value, &it.weight) != 2 || it.weight <= 0)
      throw std::invalid_argument(std::string("knapsack input '") + path +
                                  "': an item needs 'value weight' with weight >= 1");
  std::qsort(items.data(), items.size(), sizeof(item), by_ratio);
  return items;
}

// Lace's knapsack task with its pruning commented out (as it is in Lace): the best value of the
// first n items from e on with capacity c, value v so far.  SPAWN(without e); with = CALL(with e);
// without = SYNC.  Lace also computes an upper bound that nothing uses; the compiler drops it.
template <bool Parallel, capture C = capture::value>
int knapsack(const item* e, int c, int n, int v) {
  if (c < 0) return INT_MIN;
  if (n == 0 || c == 0) return v;
  if constexpr (C == capture::value) {
    auto [with, without] =
        fork2<Parallel>([=]() noexcept { return knapsack<Parallel, C>(e + 1, c - e->weight, n - 1, v + e->value); },
                        [=] { return knapsack<Parallel, C>(e + 1, c, n - 1, v); });
    return with > without ? with : without;
  } else {
    auto [with, without] =
        fork2<Parallel>([&] { return knapsack<Parallel, C>(e + 1, c - e->weight, n - 1, v + e->value); },
                        [&] { return knapsack<Parallel, C>(e + 1, c, n - 1, v); });
    return with > without ? with : without;
  }
}

// benchmarks/dfs/dfs-lace.c: REPS walks of a balanced tree of depth d and width w whose leaves run
// loop() (GRAIN iterations of five integer operations).  Lace SPAWNs a node's w children and then
// SYNCs them; the same tree is written here two ways, the comparison of issue 9's item 5:
//  - `-f scope` (Lace's form): one weft::scope per node, w spawns, one sync;
//  - `-f join` (default): the w children as a balanced tree of w − 1 joins.
// Lace's internal nodes return 0; here every node returns the sum of its leaves, so that each form's
// result can be checked against the serial elision's.
int dfs_width = 0;
int dfs_grain = 0;
constexpr int dfs_max_width = 64;

[[gnu::noinline]] unsigned dfs_loop() {  // unsigned: the products wrap, as they may
  unsigned s = 0;
  for (unsigned i = 0; i < unsigned(dfs_grain); ++i) {
    s += i;
    s *= i;
    s ^= i;
    s *= i;
    s += i;
  }
  return s;
}

unsigned dfs_seq(int d) {
  if (d == 0) return dfs_loop();
  unsigned s = 0;
  for (int i = 0; i < dfs_width; ++i) s += dfs_seq(d - 1);
  return s;
}

unsigned dfs_join(int d);
unsigned dfs_children(int d, int lo, int hi) {  // the children lo..hi-1 of a node at depth d
  if (hi - lo == 1) return dfs_join(d - 1);
  const int mid = lo + (hi - lo) / 2;
  auto [a, b] = weft::join([&] { return dfs_children(d, lo, mid); }, [&] { return dfs_children(d, mid, hi); });
  return a + b;
}
unsigned dfs_join(int d) { return d == 0 ? dfs_loop() : dfs_children(d, 0, dfs_width); }

// The leaf test sits outside the function that holds the scope, as in the join form: written first
// in that function, gcc saved six registers and made its 0x278-byte frame before testing d, at
// every leaf (docs/results/fine-grained.md, "Spawn without a spawn index").
unsigned dfs_scope(int d);
unsigned dfs_scope_children(int d) {  // a node's children, at depth d > 0
  unsigned r[dfs_max_width];
  weft::scope s;
  for (int i = 0; i < dfs_width; ++i) s.spawn([&r, i, d] { r[i] = dfs_scope(d - 1); });
  s.sync();
  unsigned sum = 0;
  for (int i = 0; i < dfs_width; ++i) sum += r[i];
  return sum;
}
unsigned dfs_scope(int d) { return d == 0 ? dfs_loop() : dfs_scope_children(d); }

// `-f spawn`: Lace's order (the w children spawned first to last, synced last to first) with typed
// handles, which live one to a frame: the children i..w-1 of a node at depth d > 0 are child i
// spawned, the rest, child i synced.
unsigned dfs_spawn(int d);
unsigned dfs_spawn_children(int d, int i) {
  if (i == dfs_width - 1) return dfs_spawn(d - 1);
  auto t = weft::spawn([d] { return dfs_spawn(d - 1); });
  const unsigned rest = dfs_spawn_children(d, i + 1);
  return rest + t.sync();
}
unsigned dfs_spawn(int d) { return d == 0 ? dfs_loop() : dfs_spawn_children(d, 0); }

struct options {
  unsigned workers = 1;
  std::string policy;  // empty: the library default; "elision": no runtime
  std::string form;  // dfs: join (default) | scope | spawn; fib, knapsack: value (default) | ref; fib: scope | spawn
};

options parse_options(int argc, char** argv, int first) {
  options o;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a != "-w" && a != "-p" && a != "-f")
      throw std::invalid_argument("unknown option '" + a + "' (accepted: -w WORKERS, -p POLICY|elision, -f FORM)");
    if (i + 1 >= argc)
      throw std::invalid_argument("option '" + a + "' needs a value (" +
                                  (a == "-w" ? "WORKERS" : a == "-p" ? "POLICY or elision" : "FORM") + ")");
    // A repeated option is refused, not overridden by its last value: `-w 1 ... -w 2` would time
    // 2 workers where the command line also says 1.
    for (int j = first; j < i; j += 2)
      if (argv[j] == a) throw std::invalid_argument("option '" + a + "' is given more than once");
    if (a == "-f") {
      o.form = argv[++i];
    } else if (a == "-w") {
      o.workers = tools::number("-w WORKERS", argv[++i], 1u, 1024u);
    } else {
      o.policy = argv[++i];
    }
  }
  // The serial elision runs on this thread, no pool: a -w beside it was ignored, and the Time line
  // of `-p elision -w 4` read as 4 workers' (-w 1 says what it does and is accepted).
  if (o.policy == "elision" && o.workers != 1)
    throw std::invalid_argument("-w " + std::to_string(o.workers) + " has no use with -p elision (the serial elision runs on "
                                "this thread alone)");
  return o;
}

// Times compute<true> in a pool of the options' workers and policy, or compute<false> alone.
template <class Serial, class Parallel>
std::pair<int, double> timed(const options& o, Serial serial, Parallel parallel) {
  std::unique_ptr<weft::pool> pool;
  if (o.policy != "elision") {
    weft::config cfg{.workers = o.workers};
    if (!o.policy.empty()) cfg.policy = weft::parse_policy(o.policy);
    pool = std::make_unique<weft::pool>(cfg);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const int r = pool ? pool->run(parallel) : serial();
  const auto t1 = std::chrono::steady_clock::now();
  return {r, std::chrono::duration<double>(t1 - t0).count()};
}

int print_knapsack_input(int items, int capacity, std::uint64_t seed) {
  std::printf("%d %d\n", items, capacity);
  for (int i = 0; i < items; ++i) {
    const auto value = 1 + bench::below(seed, 100);
    const auto weight = 1 + bench::below(seed, 100);
    std::printf("%llu %llu\n", static_cast<unsigned long long>(value), static_cast<unsigned long long>(weight));
  }
  return 0;
}

int usage() {
  std::fputs("usage: weft-lace-ports fib N [-w P] [-p POLICY|elision] [-f value|ref|scope|spawn]\n"
             "       weft-lace-ports knapsack FILE [-w P] [-p POLICY|elision] [-f value|ref]\n"
             "       weft-lace-ports knapsack-input ITEMS CAPACITY SEED\n"
             "       weft-lace-ports dfs DEPTH WIDTH GRAIN REPS [-w P] [-p POLICY|elision] [-f join|scope|spawn]\n",
             stderr);
  return 2;
}

int run(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string program = argv[1];
  // Named first: an unknown program was the bare usage line, or, with -f, the fib/knapsack form
  // check's "foo -f: the form must be value or ref".
  if (program != "fib" && program != "knapsack" && program != "knapsack-input" && program != "dfs")
    throw std::invalid_argument("unknown program \"" + program + "\" (accepted: fib, knapsack, knapsack-input, dfs)");
  if (program == "knapsack-input") {
    if (argc != 5) return usage();
    // No more items than read_items (Lace's reader) accepts: a file this program would refuse.
    return print_knapsack_input(tools::number("knapsack-input ITEMS", argv[2], 0, max_items),
                                tools::number("knapsack-input CAPACITY", argv[3], 0, INT_MAX),
                                tools::number("knapsack-input SEED", argv[4], std::uint64_t(0), UINT64_MAX));
  }
  if (program == "dfs") {
    if (argc < 6) return usage();
    const int depth = tools::number("dfs DEPTH", argv[2], 0, 1000);
    dfs_width = tools::number("dfs WIDTH", argv[3], 1, dfs_max_width);
    dfs_grain = tools::number("dfs GRAIN", argv[4], 0, INT_MAX);
    const int reps = tools::number("dfs REPS", argv[5], 1, INT_MAX);
    options o = parse_options(argc, argv, 6);
    if (o.form.empty()) o.form = "join";
    if (o.form != "join" && o.form != "scope" && o.form != "spawn")
      throw std::invalid_argument("dfs -f: the form must be join, scope or spawn");
    const auto [sum, t] = timed(
        o,
        [&] {
          unsigned s = 0;
          for (int r = 0; r < reps; ++r) s += dfs_seq(bench::opaque(depth));
          return static_cast<int>(s);
        },
        [&] {
          unsigned s = 0;
          for (int r = 0; r < reps; ++r)
            s += o.form == "scope" ? dfs_scope(depth) : o.form == "spawn" ? dfs_spawn(depth) : dfs_join(depth);
          return static_cast<int>(s);
        });
    std::printf("dfs(depth %d, width %d, grain %d) x %d = %d\nForm: %s\nTime: %f\n", depth, dfs_width, dfs_grain, reps,
                sum, o.policy == "elision" ? "elision" : o.form.c_str(), t);
    return 0;
  }
  options o = parse_options(argc, argv, 3);
  if (o.form.empty()) o.form = "value";
  const bool with_scope = program == "fib" && o.form == "scope";
  const bool with_spawn = program == "fib" && o.form == "spawn";
  if (o.form != "value" && o.form != "ref" && !with_scope && !with_spawn)
    throw std::invalid_argument(program + (program == "fib" ? " -f: the form must be value, ref, scope or spawn"
                                                            : " -f: the form must be value or ref"));
  const bool by_value = o.form == "value";
  if (program == "fib") {
    const int n = tools::number("fib N", argv[2], 0, 46);  // fib(46) is the largest an int holds
    const auto [m, t] = timed(o, [&] { return pfib_seq(bench::opaque(n)); }, [&] {
      return with_scope   ? pfib_scope(n)
             : with_spawn ? pfib_spawn(n)
             : by_value   ? pfib<capture::value>(n)
                          : pfib<capture::ref>(n);
    });
    std::printf("fib(%d) = %d\nTime: %f\n", n, m, t);
    return 0;
  }
  if (program == "knapsack") {
    int capacity = 0;
    const std::vector<item> items = read_items(argv[2], capacity);
    const int n = static_cast<int>(items.size());
    const auto [best, t] = timed(o, [&] { return knapsack<false>(bench::opaque(items.data()), capacity, n, 0); },
                                 [&] {
                                   return by_value ? knapsack<true, capture::value>(items.data(), capacity, n, 0)
                                                   : knapsack<true, capture::ref>(items.data(), capacity, n, 0);
                                 });
    std::printf("Best value is %d\nTime: %f\n", best, t);
    return 0;
  }
  return usage();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "weft-lace-ports: %s\n", e.what());
    return usage();
  }
}
