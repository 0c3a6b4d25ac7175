// bench/common/system_record.cpp: the recorder's state and the file it writes
// (bench/common/system_record.hpp).  Single-threaded: the recorder runs the kernel serially.
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

// One open context: its strand time before and after its fork, and the fork's node line.
struct context {
    std::uint64_t before = 0, after = 0;  // cycles
    bool forked = false;
    std::string fork_line;  // "P L R" or "F n ids..." once the fork has ended
};

struct recorder {
    bool on = false;
    std::vector<context> stack;
    std::string out;          // the node lines, children before parents
    std::uint32_t nodes = 0;
    std::uint64_t strands = 0;  // node instances recorded (contexts left)
    // Leaves of equal cost are one line (the DAG is a template; weft-sim shares nodes): uts'
    // 10 M nodes, most of them leaves, become about 2 M lines.
    std::unordered_map<std::uint64_t, std::uint32_t> leaf_ids;
    std::uint64_t last = 0;   // counter value where the current strand interval began
    std::uint64_t read_cost = 0;  // cycles of one counter read, taken off every interval
    double units_per_cycle = 0;   // 0.1-ns units per counter cycle
};
recorder rec;

// Charges the cycles since the last event to the innermost open context.
void charge() {
    const std::uint64_t now = __rdtsc();
    const std::uint64_t d = now - rec.last;
    const std::uint64_t c = d > rec.read_cost ? d - rec.read_cost : 0;
    if (!rec.stack.empty()) (rec.stack.back().forked ? rec.stack.back().after : rec.stack.back().before) += c;
}

void restart() { rec.last = __rdtsc(); }

std::uint64_t units(std::uint64_t cycles) {
    return std::uint64_t(double(cycles) * rec.units_per_cycle + 0.5);
}

// Cycles between two consecutive reads (the least of 5 averages over 100,000 reads): every
// interval the recorder measures holds one read besides the kernel's code.  The minimum of two
// back-to-back reads is no estimate (1 cycle on this VM's AMD EPYC, where a read costs ~115).
std::uint64_t measure_read_cost() {
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

}  // namespace

bool active() { return rec.on; }

void enter_context() {
    charge();
    rec.stack.emplace_back();
    restart();
}

std::uint32_t leave_context() {
    charge();
    const context c = std::move(rec.stack.back());
    rec.stack.pop_back();
    const std::uint64_t before = units(c.before), after = units(c.after);
    ++rec.strands;
    if (!c.forked) {
        const auto [it, added] = rec.leaf_ids.try_emplace(before + after, rec.nodes);
        if (!added) {
            restart();
            return it->second;
        }
        rec.out.append("L ").append(std::to_string(before + after)).append("\n");
    } else if (c.fork_line[0] == 'P') {  // "P WORK LEFT RIGHT AFTER"
        rec.out.append("P ").append(std::to_string(before)).append(c.fork_line, 1);
        rec.out.append(" ").append(std::to_string(after)).append("\n");
    } else {  // "F WORK AFTER N IDS..."
        rec.out.append("F ").append(std::to_string(before)).append(" ").append(std::to_string(after));
        rec.out.append(c.fork_line, 1).append("\n");
    }
    restart();
    return rec.nodes++;
}

void begin_fork() {
    charge();
    if (rec.stack.back().forked)
        throw std::logic_error(
            "weft-bench-record: a context forks twice (weft-sim's DAG nodes have one fork each); "
            "record kernels whose every branch and iteration forks at most once (fib, nqueens, uts)");
    rec.stack.back().forked = true;
    restart();
}

void end_pair(std::uint32_t left, std::uint32_t right) {
    charge();
    std::string& line = rec.stack.back().fork_line;
    line.assign("P ").append(std::to_string(left)).append(" ").append(std::to_string(right));
    restart();
}

void end_loop(const std::vector<std::uint32_t>& bodies) {
    charge();
    context& c = rec.stack.back();
    if (bodies.empty()) {  // an empty loop is no fork: the context stays one strand
        c.before += c.after;
        c.after = 0;
        c.forked = false;
    } else {
        c.fork_line = "F " + std::to_string(bodies.size());
        for (std::uint32_t b : bodies) c.fork_line.append(" ").append(std::to_string(b));
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
    record::rec = record::recorder{};
    record::rec.read_cost = record::measure_read_cost();
    record::rec.units_per_cycle = 10.0 / record::measure_cycles_per_ns();
    record::rec.on = true;
    record::restart();
}

void system_after_timed() {
    record::rec.on = false;
    const char* path = std::getenv("WEFT_BENCH_RECORD");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path, "w"), &std::fclose);
    if (!f) throw std::runtime_error(std::string("WEFT_BENCH_RECORD: cannot write '") + path + "'");
    std::fprintf(f.get(), "weft-dag 1\n# recorded by weft-bench-record; time unit 0.1 ns; counter read cost %llu cycles taken off each strand\n",
                 static_cast<unsigned long long>(record::rec.read_cost));
    std::fputs(record::rec.out.c_str(), f.get());
    record::rec.out.clear();
}

std::string system_extra_json() {
    return ",\"recorded_lines\":" + std::to_string(record::rec.nodes) +
           ",\"recorded_instances\":" + std::to_string(record::rec.strands);
}

}  // namespace bench
