// bench/common/system_record.cpp: the recorder's state and the file it writes
// (bench/common/system_record.hpp).  Single-threaded: the recorder runs the kernel serially.
//
// Cost of a strand.  Every interval between two recorder events is a difference of two counter
// reads; on the development VM (AMD EPYC under KVM) a read costs 40-120 cycles, more than a whole
// fib call or a uts node (28 ns), so raw intervals overstate fine-grained strands 2-10x; and on a
// loaded machine an interval may hold an OS preemption (4 ms strands in a first recording of
// nqueens).  So run_tasks records 3 passes and keeps each interval's least time (the event
// sequence of a pure kernel is the same in every pass), then removes the same amount c from every
// interval, chosen so that the recorded work equals the fastest of 5 uninstrumented runs:
// c = (raw total - that time) / intervals, an interval never below 0.  c may be negative: the
// least of 3 samples of a 10-ns interval is biased low, and nqueens' minima add up to less than
// a plain run.  The header names c, the raw total and the plain time.
#include "system_record.hpp"

#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "bench.hpp"

namespace bench {
namespace record {
namespace {

// A strand time: raw counter cycles and how many intervals they were measured in.
struct span_time {
    std::uint64_t cycles = 0;
    std::uint32_t intervals = 0;
};

// One node of the file, in the order contexts end (children before parents).
struct node {
    char kind = 'L';                // L, E (an empty loop), P or F
    span_time before, after;        // a leaf's whole time is `before`
    std::uint32_t left = 0, right = 0;       // P
    std::uint64_t first = 0, count = 0;      // F: bodies[first, first + count)
};

struct context {
    span_time before, after;
    bool forked = false;
    bool empty_loop = false;  // ran a loop of no iterations: no fork, but the runtime enters a loop
    node fork;  // the fork's children once it has ended
};

struct recorder {
    std::vector<context> stack;
    std::vector<node> nodes;
    std::vector<std::uint32_t> bodies;
    std::uint64_t strands = 0;  // node instances recorded (contexts left)
    // Leaves of equal raw time are one node (the DAG is a template; weft-sim shares nodes):
    // uts' 10 M nodes, most of them leaves, become about 2 M lines.
    std::unordered_map<std::uint64_t, std::uint32_t> leaf_ids, empty_loop_ids;
    std::uint64_t last = 0;            // counter value where the current interval began
    std::uint64_t read_cycles = 0;     // one counter read
    double cycles_per_ns = 0;
    double plain_ns = 0;               // the fastest uninstrumented run of the timed region
    std::vector<std::uint64_t> minima;  // per interval, in event order: the least over passes
    std::size_t next_interval = 0;
    bool last_pass = true;
};
recorder rec;

void charge() {
    const std::uint64_t now = __rdtsc();
    if (rec.stack.empty()) return;
    std::uint64_t d = now - rec.last;
    const std::size_t k = rec.next_interval++;
    if (k == rec.minima.size()) {
        rec.minima.push_back(d);
    } else if (k > rec.minima.size()) {
        throw std::logic_error("weft-bench-record: the passes of the timed region differ (a kernel whose run is not a pure function of its input)");
    } else {
        d = rec.minima[k] = std::min(rec.minima[k], d);
    }
    if (!rec.last_pass) return;
    context& c = rec.stack.back();
    span_time& t = c.forked ? c.after : c.before;
    t.cycles += d;
    ++t.intervals;
}

void restart() { rec.last = __rdtsc(); }

// Cycles between consecutive reads: the least of 5 averages over 100,000 reads.  (The minimum of
// two back-to-back reads is no estimate: 1 cycle on the VM's AMD EPYC.)
std::uint64_t measure_read_cycles() {
    std::uint64_t best = UINT64_MAX;
    for (int trial = 0; trial < 5; ++trial) {
        std::uint64_t sink = 0;
        const std::uint64_t a = __rdtsc();
        for (int i = 0; i < 100000; ++i) sink += __rdtsc();
        const std::uint64_t b = __rdtsc();
        asm volatile("" : : "r"(sink));
        best = std::min(best, (b - a) / 100000);
    }
    return best;
}

// Counter cycles per nanosecond against steady_clock over 20 ms.
double measure_cycles_per_ns() {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = __rdtsc();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20)) {
    }
    const std::uint64_t c1 = __rdtsc();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    return double(c1 - c0) / ns;
}

// The file: node costs less `per_interval` cycles per interval, in units of 0.1 ns.
void write(std::FILE* f, double per_interval, const char* how) {
    const double units_per_cycle = 10.0 / rec.cycles_per_ns;
    auto units = [&](const span_time& t) {
        const double c = double(t.cycles) - per_interval * t.intervals;
        return static_cast<unsigned long long>(c > 0 ? c * units_per_cycle + 0.5 : 0);
    };
    std::fprintf(f, "weft-dag 1\n# recorded by weft-bench-record; time unit 0.1 ns; %s\n", how);
    for (const node& n : rec.nodes) {
        if (n.kind == 'L' || n.kind == 'E') {
            std::fprintf(f, "%c %llu\n", n.kind, units(n.before));
        } else if (n.kind == 'P') {
            std::fprintf(f, "P %llu %u %u %llu\n", units(n.before), n.left, n.right, units(n.after));
        } else {
            std::fprintf(f, "F %llu %llu %llu", units(n.before), units(n.after),
                         static_cast<unsigned long long>(n.count));
            for (std::uint64_t i = 0; i < n.count; ++i) std::fprintf(f, " %u", rec.bodies[n.first + i]);
            std::fputc('\n', f);
        }
    }
}

}  // namespace

void pause() { recording = false; }
void resume() { recording = true; }

void note_plain_run(double ns) {
    if (rec.plain_ns == 0 || ns < rec.plain_ns) rec.plain_ns = ns;
}

// A pass starts with no open context and no nodes; only the last one builds the file's nodes.
void begin_pass(bool last) {
    if (rec.next_interval != 0 && rec.next_interval != rec.minima.size())
        throw std::logic_error("weft-bench-record: the passes of the timed region differ (a kernel whose run is not a pure function of its input)");
    rec.next_interval = 0;
    rec.last_pass = last;
    rec.nodes.clear();
    rec.bodies.clear();
    rec.leaf_ids.clear();
    rec.empty_loop_ids.clear();
    rec.strands = 0;
    restart();
}

void enter_context() {
    charge();
    rec.stack.emplace_back();
    restart();
}

std::uint32_t leave_context() {
    charge();
    context c = rec.stack.back();
    rec.stack.pop_back();
    ++rec.strands;
    if (!c.forked) {
        auto& ids = c.empty_loop ? rec.empty_loop_ids : rec.leaf_ids;
        const auto [it, added] = ids.try_emplace(c.before.cycles, std::uint32_t(rec.nodes.size()));
        if (added) rec.nodes.push_back(node{c.empty_loop ? 'E' : 'L', c.before, {}, 0, 0, 0, 0});
        restart();
        return it->second;
    }
    c.fork.before = c.before;
    c.fork.after = c.after;
    rec.nodes.push_back(c.fork);
    restart();
    return std::uint32_t(rec.nodes.size() - 1);
}

void begin_fork() {
    charge();
    if (rec.stack.back().forked) {
        // An exit, not an exception: the kernels' first branches are noexcept (README, "Cheap
        // joins"), and an exception leaving one ends the process in std::terminate.
        std::fputs("weft-bench-record: a context forks twice (weft-sim's DAG nodes have one fork each); "
                   "record kernels whose every branch and iteration forks at most once (fib, nqueens, uts)\n",
                   stderr);
        std::exit(2);
    }
    rec.stack.back().forked = true;
    restart();
}

void end_pair(std::uint32_t left, std::uint32_t right) {
    charge();
    node& f = rec.stack.back().fork;
    f.kind = 'P';
    f.left = left;
    f.right = right;
    restart();
}

void end_loop(const std::vector<std::uint32_t>& bodies) {
    charge();
    context& c = rec.stack.back();
    if (bodies.empty()) {  // an empty loop is no fork: the context stays one strand
        c.before.cycles += c.after.cycles;
        c.before.intervals += c.after.intervals;
        c.after = {};
        c.forked = false;
        c.empty_loop = true;
    } else {
        c.fork.kind = 'F';
        c.fork.first = rec.bodies.size();
        c.fork.count = bodies.size();
        rec.bodies.insert(rec.bodies.end(), bodies.begin(), bodies.end());
    }
    restart();
}

}  // namespace record

const char* system_name() { return "record"; }

void system_setup(const args& a) {
    if (a.workers != 1)
        throw usage_error("the record system runs on one thread: --workers must be 1 (got " +
                          std::to_string(a.workers) + ")");
    reject_policy(a);
    const char* path = std::getenv("WEFT_BENCH_RECORD");
    if (path == nullptr || *path == '\0')
        throw usage_error("WEFT_BENCH_RECORD: set it to the path of the DAG file to write");
}

void reject_policy(const args& a) {
    if (!a.policy.empty()) throw usage_error("--policy is only for the weft system");
}

std::string system_policy() { return ""; }

std::vector<std::string> system_policy_names() {
    throw usage_error("--policy is only for the weft system (this is record)");
}

output system_run(kernel_fn fn, const args& a) { return fn(a); }

void system_before_timed() {
    using record::rec;
    rec = record::recorder{};
    rec.read_cycles = record::measure_read_cycles();
    rec.cycles_per_ns = record::measure_cycles_per_ns();
    record::recording = true;
    record::restart();
}

void system_after_timed() {
    using record::rec;
    record::recording = false;
    double raw = 0, intervals = 0;
    // Totals over instances, not lines: count every use of a shared leaf.
    std::vector<std::uint64_t> uses(rec.nodes.size(), 0);
    if (!rec.nodes.empty()) uses.back() = 1;
    for (std::size_t i = rec.nodes.size(); i-- > 0;) {
        const auto& n = rec.nodes[i];
        if (n.kind == 'P') {
            uses[n.left] += uses[i];
            uses[n.right] += uses[i];
        } else if (n.kind == 'F') {
            for (std::uint64_t k = 0; k < n.count; ++k) uses[rec.bodies[n.first + k]] += uses[i];
        }
    }
    for (std::size_t i = 0; i < rec.nodes.size(); ++i) {
        const auto& n = rec.nodes[i];
        raw += double(uses[i]) * double(n.before.cycles + n.after.cycles);
        intervals += double(uses[i]) * (n.before.intervals + n.after.intervals);
    }
    const double warm_cycles = rec.plain_ns * rec.cycles_per_ns;
    double per_interval = double(rec.read_cycles);
    char how[256];
    if (warm_cycles > 0 && intervals > 0) {
        per_interval = (raw - warm_cycles) / intervals;
        std::snprintf(how, sizeof how,
                      "%.1f counter cycles taken off (negative: added to) each of %.0f intervals so that the work equals "
                      "the fastest of 5 uninstrumented runs (%.6f s; raw, least of 3 passes per interval: %.6f s)",
                      per_interval, intervals, rec.plain_ns * 1e-9, raw / rec.cycles_per_ns * 1e-9);
    } else {
        std::snprintf(how, sizeof how,
                      "one counter read (%llu cycles) taken off each interval (plain run %.6f s, raw "
                      "%.6f s: no fit)",
                      static_cast<unsigned long long>(rec.read_cycles), rec.plain_ns * 1e-9,
                      raw / rec.cycles_per_ns * 1e-9);
    }
    const char* path = std::getenv("WEFT_BENCH_RECORD");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path, "w"), &std::fclose);
    if (!f) throw std::runtime_error(std::string("WEFT_BENCH_RECORD: cannot write '") + path + "'");
    record::write(f.get(), per_interval, how);
}

std::string system_extra_json() {
    return ",\"recorded_lines\":" + std::to_string(record::rec.nodes.size()) +
           ",\"recorded_instances\":" + std::to_string(record::rec.strands);
}

}  // namespace bench
