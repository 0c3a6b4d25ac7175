// weft-sim: simulate policies on a DAG over a sweep of P, seeds and cost values.
//   weft-sim --dag fib:30 --policy lazy-bf,ws --P 1,2,8,64,256 --seed 1 [--runs R]
//            [--costs default|calibrated|file:PATH] [--cost name=value[,value...] ...] [--json out.json] [--quiet]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "generators.hpp"
#include "parse.hpp"
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
  double max_instances = 5e8;  // node instances per run (a run simulates ~5-10 M a second)
  std::uint64_t max_memory = 0;  // bytes the command may use beyond its start; 0: what the machine has free
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

// Decimal digits only (no sign, space or exponent), in [lo, hi].
std::uint64_t parse_integer(const std::string& what, const std::string& s, std::uint64_t lo, std::uint64_t hi) {
  const std::optional<std::uint64_t> v = whole_uint(s);
  if (!v || *v < lo || *v > hi)
    throw std::invalid_argument(what + ": '" + s + "' is not an integer in " + std::to_string(lo) + ".." +
                                std::to_string(hi));
  return *v;
}

// The most simulated processors.  No step scans the workers any more (README, "Speed"), but a
// run's events grow with P: each idle processor steps once per failed steal attempt while some
// deque holds an item (fib:25 at 16,384: 7-23 million attempts, 0.3-4 s a policy).  2^20, the
// former limit, took hours when steps scanned every worker (stop 42's bug hunt).
constexpr unsigned kMaxWorkers = 16384;

unsigned parse_unsigned(const std::string& what, const std::string& s, unsigned max = 1u << 20) {
  return unsigned(parse_integer(what, s, 1, max));
}

template <class T>
void reject_repeats(const std::string& what, const std::vector<T>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (v[i] == v[j]) {
        std::ostringstream m;
        m << what << ": " << v[i] << " is named twice";
        throw std::invalid_argument(m.str());
      }
}

Options parse(int argc, char** argv) {
  Options o;
  std::vector<std::string> given;  // the options seen: each but --cost is taken once
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + ": missing value");
      return argv[++i];
    };
    // A second --P (or --dag, --json, ...) silently replaced the first; lists go in one value.
    if (a != "--cost" && a.starts_with("--")) {
      for (const auto& g : given)
        if (g == a) throw std::invalid_argument(a + ": given twice (each option is taken once; a list is one value, e.g. --P 1,2,8)");
      given.push_back(a);
    }
    if (a == "--dag") o.dag = value();
    else if (a == "--policy") o.policies = split_list(value());
    else if (a == "--P") {
      o.workers.clear();
      for (const auto& p : split_list(value())) o.workers.push_back(parse_unsigned("--P", p, kMaxWorkers));
    } else if (a == "--seed") o.seed = parse_integer("--seed", value(), 0, UINT64_MAX);
    else if (a == "--runs") o.runs = parse_unsigned("--runs", value());
    else if (a == "--costs") o.costs_preset = value();
    else if (a == "--cost") {
      const std::string c = value();
      const auto eq = c.find('=');
      if (eq == std::string::npos) throw std::invalid_argument("--cost: expected name=value[,value...]");
      // Values in their plain decimal form, so that a value named twice is found however it is
      // written: "steal=1,01" ran the same runs twice (stop 48's sim hunt).  What is not a whole
      // number is kept as written for set_cost's message.
      std::vector<std::string> values = split_list(c.substr(eq + 1));
      for (auto& v : values)
        if (const std::optional<std::uint64_t> n = whole_uint(v)) v = std::to_string(*n);
      o.cost_sweeps.push_back({c.substr(0, eq), std::move(values)});
    } else if (a == "--json") {
      o.json = value();
      if (o.json.empty()) throw std::invalid_argument("--json: the path is empty");  // wrote nothing before
    } else if (a == "--max-instances") {
      o.max_instances = double(parse_integer("--max-instances", value(), 1, UINT64_MAX));
    } else if (a == "--max-memory") {
      o.max_memory = parse_integer("--max-memory", value(), 1, UINT64_MAX);
    } else if (a == "--quiet") o.quiet = true;
    else if (a == "--help" || a == "-h") {
      std::cout << "weft-sim --dag SPEC --policy LIST --P LIST [--seed S] [--runs R]\n"
                   "         [--costs default|calibrated|file:PATH] [--cost name=v[,v...]]... [--json FILE] [--quiet]\n"
                   "         [--max-instances N]   (default 500000000: a DAG with more node instances is refused)\n"
                   "         [--max-memory BYTES]  (default: the memory available at start, MemAvailable + SwapFree)\n"
                   "DAGs: " << dag_help() << "\npolicies: " << policy_names(true) << "\n";
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + a + "' (see --help)");
  }
  for (const auto& p : o.policies) policy_by_name(p);  // reject bad names before any work
  reject_repeats("--policy", o.policies);
  reject_repeats("--P", o.workers);
  std::vector<std::string> swept;
  for (const auto& sweep : o.cost_sweeps) {
    swept.push_back(sweep.first);
    reject_repeats("--cost " + sweep.first, sweep.second);
  }
  reject_repeats("--cost", swept);
  if (o.seed > UINT64_MAX - (o.runs - 1))
    throw std::invalid_argument("--seed: seed + runs - 1 is past 2^64 - 1 (the runs take seeds seed .. seed + runs - 1)");
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

bool progress_shown = false;  // a progress line ends without a newline: an error starts its own line
// What the command is doing, for the out-of-memory message ("building --dag fib:30", "simulating ...").
std::string doing;

// The most nodes on a path from the root to a leaf (a run holds a frame per level open): at most
// the template's size, as children come before parents.
std::uint32_t nesting_depth(const Dag& d) {
  std::vector<std::uint32_t> depth(d.size(), 1);
  for (std::uint32_t i = 0; i < d.size(); ++i) {
    const Node& n = d.node(i);
    if (n.kind == NodeKind::pair) {
      depth[i] = 1 + std::max(depth[n.left], depth[n.right]);
    } else if (n.kind == NodeKind::loop && n.count > 0) {
      if (n.left != kNoNode) depth[i] = 1 + depth[n.left];  // one body for every iteration
      else
        for (std::uint64_t k = 0; k < n.count; ++k) depth[i] = std::max(depth[i], 1 + depth[d.iteration(n, k)]);
    }
  }
  return depth[d.root()];
}

// Memory.  Without a limit on the process, a run needing more than the machine has (alg5:N's and
// nar-lb's chains, fifo's breadth-first threads on a big DAG) was ended by the kernel's OOM killer
// with no message at all.  So the process takes a limit on its address space (RLIMIT_AS) of what
// it holds at start plus --max-memory, by default the memory available then (MemAvailable +
// SwapFree, or less under a cgroup's limit): past it an allocation fails, and the bad_alloc
// handler says what ran out.  A lower limit already set (ulimit -v) is kept.  Before the first run
// a lower bound on a run's memory (a frame per level of the deepest path, least_run_bytes) is
// checked against what is left, so a DAG far too deep is refused at once, not minutes into a run.
struct MemoryLimit {
  double start = 0;                // the address space at start (VmSize)
  double limit = HUGE_VAL;         // the address space the process may reach
  std::string what = "no limit";   // where `limit` comes from, for the messages
  std::string raise = "--max-memory";  // the setting that raises it
};
MemoryLimit memory;

// A "Name:   N kB" field of a /proc file, in bytes; -1 if absent.
double proc_kb(const char* path, const std::string& name) {
  std::ifstream in(path);
  std::string key;
  double kb = 0;
  while (in >> key) {
    if (key == name + ":" && in >> kb) return kb * 1024;
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

// A cgroup's memory limit less what its processes hold (page cache it could reclaim aside); -1
// without a limit.  cgroup v2, else v1.
double cgroup_available() {
  auto number = [](const std::string& path) {
    std::ifstream in(path);
    std::string text;
    in >> text;
    const std::optional<std::uint64_t> v = whole_uint(text);  // "max", or absent: none
    return v ? double(*v) : -1.0;
  };
  auto stat = [](const std::string& path, const std::string& name) {
    std::ifstream in(path);
    std::string key;
    double v = 0;
    while (in >> key >> v)
      if (key == name) return v;
    return 0.0;
  };
  for (const auto& [dir, max, current, inactive] :
       {std::tuple<std::string, std::string, std::string, std::string>{"/sys/fs/cgroup/", "memory.max", "memory.current", "inactive_file"},
        {"/sys/fs/cgroup/memory/", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"}}) {
    const double limit = number(dir + max), used = number(dir + current);
    if (limit < 0 || used < 0 || limit >= 0x1p60) continue;  // v1 writes "no limit" as ~2^63
    return std::max(0.0, limit - used + stat(dir + "memory.stat", inactive));
  }
  return -1;
}

std::string megabytes(double bytes) {
  std::ostringstream m;
  if (bytes < 1e6) m << std::fixed << std::setprecision(1) << bytes / 1e3 << " kB";
  else m << std::fixed << std::setprecision(bytes < 1e7 ? 1 : 0) << bytes / 1e6 << " MB";
  return m.str();
}

void limit_memory(const Options& o) {
  memory.start = std::max(0.0, proc_kb("/proc/self/status", "VmSize"));
  double budget = double(o.max_memory);
  std::string what = "--max-memory " + std::to_string(o.max_memory) + " bytes";
  if (budget == 0) {
    const double available = proc_kb("/proc/meminfo", "MemAvailable");
    if (available < 0) return;  // not Linux's /proc: no limit taken
    budget = available + std::max(0.0, proc_kb("/proc/meminfo", "SwapFree"));
    what = "--max-memory, by default the memory available at start, " + megabytes(budget) + " (MemAvailable + SwapFree)";
    const double cgroup = cgroup_available();
    if (cgroup >= 0 && cgroup < budget) {
      budget = cgroup;
      what = "--max-memory, by default the memory available at start, " + megabytes(budget) + " (the cgroup's limit)";
    }
  }
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) != 0) return;
  const double want = memory.start + budget;
  if (rl.rlim_cur != RLIM_INFINITY && double(rl.rlim_cur) <= want) {
    memory.limit = double(rl.rlim_cur);
    memory.what = "the process's limit, ulimit -v " + std::to_string(std::uint64_t(memory.limit) / 1024) + " kB";
    memory.raise = "ulimit -v";
    return;
  }
  // Past 2^62 bytes no machine's memory: no limit taken (--max-memory 2^64 - 1 converted to rlim_t
  // wrapped to 0, and every run was refused).
  if (want >= 0x1p62) return;
  rl.rlim_cur = std::min(rlim_t(want), rl.rlim_max);
  if (setrlimit(RLIMIT_AS, &rl) != 0) return;
  memory.limit = double(rl.rlim_cur);
  memory.what = what;
}

// The DAG argument that sets how deep it nests, for the refusal.
std::string depth_setting(const std::string& spec) {
  const std::string name = spec.substr(0, spec.find(':'));
  if (name == "alg5") return "alg5's N (alg5:N:F)";
  if (name == "nar-lb") return "nar-lb's D (nar-lb:P:D:A)";
  if (name == "nar") return "nar's DEPTH (nar:G:M:DEPTH)";
  if (name == "uts-geo") return "uts-geo's DEPTH (uts-geo:DEPTH:B)";
  if (name == "uts-bin") return "uts-bin's M·Q (uts-bin:ROOT:M:Q: the nearer 1, the deeper the tree) or its SEED";
  if (name == "file") return "the DAG file's nesting";
  return "the DAG's parameters";
}

// The dummy threads adf and dfd make under a quota K (engine_threads.cpp, NAR §7.2): an allocation
// of m > K bytes first forks floor(m/K) of them as a binary tree, about twice as many threads, each
// a step of its own.  --max-instances bounds them with the node instances: nar-lb:4:7:1e8 with
// quota=1 made 2e8 per block and ran for minutes, with A = 2^40 for days (the bug hunt of
// 2026-11-29).  Counted per template node times its instances (pushed from the root down).
double dummy_threads(const Dag& d, std::uint64_t quota) {
  std::vector<double> times(d.size(), 0);
  times[d.root()] = 1;
  double dummies = 0;
  for (std::size_t i = d.size(); i-- > 0;) {
    const Node& n = d.node(std::uint32_t(i));
    if (times[i] == 0) continue;
    if (n.alloc > quota) dummies += times[i] * 2 * double(n.alloc / quota);
    if (n.kind == NodeKind::pair) {
      times[n.left] += times[i];
      times[n.right] += times[i];
    } else if (n.kind == NodeKind::loop && n.count > 0) {
      if (n.left != kNoNode) times[n.left] += times[i] * double(n.count);
      else
        for (std::uint64_t k = 0; k < n.count; ++k) times[d.iteration(n, k)] += times[i];
    }
  }
  return dummies;
}

// The .partial file for a run stopped by a signal: SIGINT, SIGTERM or SIGHUP (Ctrl-C, kill, a
// closed terminal) ended the process without PartialFile's destructor, leaving OUT.json.partial
// beside the output (stop 52's siminput hunt: one in docs/results/sim after an interrupted
// sim/experiments.sh).  The handler only unlinks and re-raises, both async-signal-safe.  weft-sim
// is one thread, so a handler runs on the thread that stored the pointer and sees the stored value
// (sequenced before it); a lock-free atomic is what [support.signal] lets a handler read.
std::atomic<const char*> partial_to_remove{nullptr};
static_assert(std::atomic<const char*>::is_always_lock_free);

extern "C" void remove_partial_and_reraise(int sig) {
  if (const char* path = partial_to_remove.load()) ::unlink(path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);  // the status a shell expects of a process ended by the signal
}

// A file to remove unless the run got to renaming it (main's --json output).
struct PartialFile {
  std::string path;
  void arm(std::string p) {
    path = std::move(p);
    partial_to_remove.store(path.c_str());  // `path` is not changed again until disarm()
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, remove_partial_and_reraise);
  }
  void disarm() {
    partial_to_remove.store(nullptr);  // before `path` is cleared: the handler never reads a freed string
    path.clear();
  }
  ~PartialFile() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove(path, ec);
    disarm();
  }
};

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  limit_memory(o);
  const auto t0 = std::chrono::steady_clock::now();
  // Everything that can be refused is refused before the first run: the DAG's size, every
  // policy's costs, the output file.
  doing = "building --dag " + o.dag + " (a template node takes " + std::to_string(sizeof(Node)) + " bytes)";
  const Dag dag = make_dag(o.dag);
  doing = "checking --dag " + o.dag;
  const NodeTotals totals = dag.root_totals();
  if (totals.instances > o.max_instances) {
    std::ostringstream m;
    m << std::fixed << std::setprecision(0) << "--dag " << o.dag << ": " << totals.instances << " node instances, more than --max-instances "
      << std::uint64_t(o.max_instances) << " (a run simulates about 5-10 million a second; raise --max-instances to run it)";
    throw std::invalid_argument(m.str());
  }
  if (totals.work > kMaxDagWork)
    throw std::invalid_argument("--dag " + o.dag + ": its work is above 2^60 units, more than the simulator's clocks can hold");
  // What the limit leaves now that the DAG is built (limit_memory).
  const double left = memory.limit - std::max(0.0, proc_kb("/proc/self/status", "VmSize"));
  // The --cost sweeps' combinations are built per policy, and every run's result is kept until the
  // JSON is written: eight costs of ten values each (10^8 combinations) ran out of memory "checking
  // --dag", the message blaming the DAG (the bug hunt of 2026-11-29).
  double combinations = 1;
  for (const auto& sweep : o.cost_sweeps) combinations *= double(sweep.second.size());
  const double runs = double(o.policies.size()) * double(o.workers.size()) * combinations * double(o.runs);
  const double results = 2 * combinations * double(sizeof(Costs)) + runs * double(sizeof(RunRecord) + o.dag.size());
  if (results > left) {
    // Without a --cost sweep the runs come from --policy, --P and --runs alone: the message blamed
    // "--cost: the sweeps make 1 combinations" and told to sweep fewer values (stop 48's sim hunt).
    std::ostringstream m;
    m << std::fixed << std::setprecision(0);
    if (combinations > 1)
      m << "--cost: the sweeps make " << combinations << " combinations of cost values, " << runs
        << " runs with the policies, P and --runs";
    else
      m << "--policy, --P and --runs: " << o.policies.size() << " policies x " << o.workers.size() << " values of P x "
        << o.runs << " seeds make " << runs << " runs";
    m << ", whose costs and results need at least " << megabytes(results) << ", more than the "
      << megabytes(std::max(0.0, left)) << " left of what weft-sim may use (" << memory.what << "): "
      << (combinations > 1 ? "sweep fewer values, or split the sweep over several commands"
                           : "ask for fewer runs, or split them over several commands")
      << ", or raise " << memory.raise;
    throw std::invalid_argument(m.str());
  }
  doing = "expanding the --cost sweeps (" + std::to_string(std::uint64_t(combinations)) + " combinations of cost values)";
  for (const auto& pname : o.policies)
    for (const auto& c : cost_grid(o, pname)) {
      check_costs(c, pname);
      // A poll every `poll` units inside leaf work is a step of its own (Simulator::run_work): W/poll
      // of them.  fib:3:2^40 with poll=1 took 5.5e12 steps, days, its 5 instances accepted (the bug
      // hunt of 2026-11-29).  Not in the thread engine nor under eager promotion, which do not poll.
      const Trigger trigger = policy_by_name(pname).trigger;
      // Refuses a cost `name` = `value` whose extra steps (`steps`, described by `made`) and the
      // DAG's node instances pass --max-instances.
      auto bound_steps = [&](const char* name, std::uint64_t value, const std::string& made, double steps) {
        if (totals.instances + steps <= o.max_instances) return;
        std::ostringstream m;
        m << std::fixed << std::setprecision(0) << "--cost " << name << "=" << value << ": under " << pname << ", --dag "
          << o.dag << "'s " << made << " beside its " << totals.instances << " node instances, more than --max-instances "
          << std::uint64_t(o.max_instances) << " (a run simulates about 5-10 million a second): raise " << name
          << ", or --max-instances to run it";
        throw std::invalid_argument(m.str());
      };
      auto count = [](double n) {
        std::ostringstream m;
        m << std::fixed << std::setprecision(0) << n;
        return m.str();
      };
      if (c.poll > 0 && trigger != Trigger::eager && trigger != Trigger::space_efficient) {
        const double polls = totals.work / double(c.poll);
        bound_steps("poll", c.poll, "work of " + count(totals.work) + " units makes about " + count(polls) +
                                        " polls inside its strands, a step each,", polls);
      }
      if (c.quota == 0 || trigger != Trigger::space_efficient || pname == "fifo") continue;
      const double dummies = dummy_threads(dag, c.quota);
      bound_steps("quota", c.quota, "allocations of more than quota bytes make " + count(dummies) +
                                        " dummy threads (floor(bytes/quota) each, forked as a binary tree)", dummies);
    }
  const std::uint32_t depth = nesting_depth(dag);
  const std::string nesting = "the DAG nests " + std::to_string(depth) +
                              " levels deep, and a run holds a frame of a few hundred bytes per level open";
  // A run's least memory (a frame or thread per level of the deepest path, each worker's state)
  // against what the limit leaves now that the DAG is built: refused before any run.
  if (std::isfinite(memory.limit)) {
    for (const auto& pname : o.policies) {
      const double least = least_run_bytes(policy_by_name(pname), depth, *std::max_element(o.workers.begin(), o.workers.end()));
      if (least > left)
        throw std::invalid_argument("--dag " + o.dag + " nests " + std::to_string(depth) + " levels deep: a run under " +
                                    pname + " needs at least " + megabytes(least) +
                                    " (a frame or thread for every level, open at once), more than the " +
                                    megabytes(std::max(0.0, left)) + " left of what weft-sim may use (" + memory.what +
                                    "): lower " + depth_setting(o.dag) + ", or raise " + memory.raise);
    }
  }
  // The JSON goes to a file beside the output, renamed over it once every run is done: a command
  // refused or stopped (a clock past its limit) leaves an existing file as it was (it was opened,
  // so emptied, before the DAG and costs were checked).
  PartialFile partial;  // declared first: removed after `out` is closed
  std::ofstream out;
  if (!o.json.empty()) {
    std::error_code ec;
    if (std::filesystem::exists(o.json, ec) && !std::filesystem::is_regular_file(o.json, ec))
      throw std::invalid_argument("--json: cannot write '" + o.json + "': not a regular file");
    // The likeliest reason said: a folder that does not exist (the message named no reason).
    const std::filesystem::path folder = std::filesystem::path(o.json).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
      throw std::invalid_argument("--json: cannot write '" + o.json + "': its folder '" + folder.string() + "' " +
                                  (std::filesystem::exists(folder, ec) ? "is not a folder" : "does not exist"));
    partial.arm(o.json + ".partial");
    out.open(partial.path);
    if (!out) throw std::invalid_argument("--json: cannot write '" + o.json + "' (its '.partial' file beside it could not be created)");
  }
  std::fprintf(stderr, "dag %s: %zu template nodes, %.0f instances, work %.4g, span %.4g", dag.name.c_str(),
               dag.size(), totals.instances, totals.work, totals.span);
  if (totals.span > 0) std::fprintf(stderr, ", parallelism %.4g", totals.work / totals.span);
  std::fprintf(stderr, "\n");
  const auto total = std::uint64_t(runs);
  std::vector<RunRecord> records;
  if (!o.quiet) std::cout << table_header() << "\n";
  for (const auto& pname : o.policies)
    for (const auto& costs : cost_grid(o, pname))
      for (unsigned p : o.workers)
        for (unsigned k = 0; k < o.runs; ++k) {
          doing = "simulating --dag " + o.dag + " under " + pname + " at P=" + std::to_string(p) + ", seed " +
                  std::to_string(o.seed + k) + " (" +
                  (pname == "fifo" ? "fifo runs breadth first, holding every forked thread until its children end: "
                                     "up to the DAG's width; " : "") + nesting + ")";
          RunRecord rec{dag.name, pname, p, o.seed + k, costs, totals,
                        dag.span_with_fork_cost(double(costs.promote)), {}};
          rec.result = simulate({&dag, &policy_by_name(pname), costs, p, rec.seed});
          doing = "keeping the runs' results";
          records.push_back(rec);
          const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          progress_shown = true;
          std::fprintf(stderr, "\r[%zu/%llu] %s P=%u seed=%llu  %.1f s   ", records.size(), (unsigned long long)total,
                       pname.c_str(), p, (unsigned long long)rec.seed, secs);
          if (!o.quiet) std::cout << table_row(rec) << "\n" << std::flush;
        }
  std::fprintf(stderr, "\n");
  if (!o.json.empty()) {
    out << "{\"runs\": [\n";
    for (std::size_t i = 0; i < records.size(); ++i)
      out << "  " << to_json(records[i]) << (i + 1 < records.size() ? ",\n" : "\n");
    out << "]}\n";
    out.close();
    if (!out) throw std::runtime_error("--json: writing '" + o.json + "' failed (disk full?)");
    std::error_code ec;
    std::filesystem::rename(partial.path, o.json, ec);
    if (ec) throw std::runtime_error("--json: cannot replace '" + o.json + "': " + ec.message());
    partial.disarm();
  }
  return 0;
} catch (const std::bad_alloc&) {
  // It printed "weft-sim: std::bad_alloc": alg5:N and nar-lb's chains, accepted up to 4e7 levels,
  // need ~0.45 KB a level to run (alg5:2e7, 9 GB).  The limit limit_memory takes makes an
  // allocation fail here before the machine runs out (the kernel's OOM killer ended it silently).
  std::fprintf(stderr,
               "%sweft-sim: out of memory %s: choose smaller DAG parameters or raise the memory limit (now %s; "
               "raise it with %s, or use a machine with more memory)\n",
               progress_shown ? "\n" : "", doing.c_str(), memory.what.c_str(), memory.raise.c_str());
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%sweft-sim: %s\n", progress_shown ? "\n" : "", e.what());
  return 2;
}
