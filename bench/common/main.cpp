// bench/common/main.cpp: the command line of bench/KERNELS.md.
//
//   BIN --kernel K|list --size test|quick|full --workers P [--policy NAME] [--variant V]
//       [--reps R]
//   BIN --kernel list [--variant V]   (the kernel names, one a line; with V only the kernels
//                                      that have variant V in this binary)
//   BIN --policy list        (weft only: the implemented policy names, one a line)
//
// --reps R times R repetitions after one input generation and warm-up and prints one JSON line
// per repetition (with "rep": 0 .. R-1 when R > 1), so a driver pays the setup once per R
// samples.
// Exit codes: 0 ok, 2 bad arguments (message on stderr), 3 wrong checksum, 1 anything else.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "bench.hpp"

namespace bench {

std::vector<kernel_entry>& registry() {
    static std::vector<kernel_entry> table;
    return table;
}

rep_record& timed_reps() {
    static rep_record record;
    return record;
}

size_class size_of(const args& a) {
    if (a.size == "test") return size_class::test;
    if (a.size == "quick") return size_class::quick;
    if (a.size == "full") return size_class::full;
    throw usage_error("--size must be test, quick or full (got '" + a.size + "')");
}

void require_default_variant(const args& a) {
    if (!a.variant.empty())
        throw usage_error("kernel " + a.kernel + " has no variant '" + a.variant +
                          "' (it has only the default variant)");
}

}  // namespace bench

namespace {

constexpr const char* usage_text =
    "usage: %s --kernel K|list --size test|quick|full --workers P [--policy NAME] "
    "[--variant V] [--reps R]\n       %s --policy list\n";

std::string json_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out;
}

// A positive integer option (--workers, --reps) of at most max.
unsigned parse_count(const char* option, const std::string& s, unsigned long max) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        throw bench::usage_error(std::string(option) + " must be a positive integer (got '" + s +
                                 "')");
    errno = 0;
    const unsigned long v = std::strtoul(s.c_str(), nullptr, 10);
    if (errno != 0 || v == 0 || v > max)
        throw bench::usage_error(std::string(option) + " must be between 1 and " +
                                 std::to_string(max) + " (got '" + s + "')");
    return static_cast<unsigned>(v);
}

// The kernel names, sorted; with a variant, only those of the kernels that have it.
std::vector<std::string> sorted_names(const std::string& variant = "") {
    std::vector<std::string> names;
    for (const auto& e : bench::registry())
        if (variant.empty() || (e.has_variant != nullptr && e.has_variant(variant)))
            names.emplace_back(e.name);
    std::sort(names.begin(), names.end());
    return names;
}

// One JSON line of KERNELS.md: the kernel's output with one repetition's time and system
// members ("rep" only when rep >= 0).
void print_line(const bench::args& a, const bench::output& out, double time_s,
                const std::string& system_json, long rep) {
    char time_buf[64];
    std::snprintf(time_buf, sizeof time_buf, "%.9g", time_s);
    std::string line = "{\"kernel\":\"" + json_escape(a.kernel) + "\",\"system\":\"" +
                       json_escape(bench::system_name()) + "\",\"policy\":\"" +
                       json_escape(bench::system_policy()) +
                       "\",\"workers\":" + std::to_string(a.workers) + ",\"size\":\"" +
                       json_escape(a.size) + "\",\"variant\":\"" + json_escape(a.variant) +
                       "\",\"time_s\":" + time_buf + ",\"checksum\":\"" +
                       json_escape(out.checksum) + "\",\"ok\":" + (out.ok ? "true" : "false") +
                       (rep >= 0 ? ",\"rep\":" + std::to_string(rep) : std::string()) +
                       out.extra_json + system_json + "}";
    std::printf("%s\n", line.c_str());
}

int run(int argc, char** argv) {
    bench::args a;
    bool have_kernel = false, have_size = false, have_workers = false;
    std::vector<std::string_view> seen;  // the options given so far
    for (int i = 1; i < argc; ++i) {
        const std::string_view opt = argv[i];
        if (opt == "--help" || opt == "-h") {
            std::printf(usage_text, argv[0], argv[0]);
            return 0;
        }
        if (opt != "--kernel" && opt != "--size" && opt != "--workers" && opt != "--policy" &&
            opt != "--variant" && opt != "--reps")
            throw bench::usage_error("unknown argument '" + std::string(opt) + "'");
        if (i + 1 >= argc) throw bench::usage_error(std::string(opt) + " needs a value");
        // A repeated option is refused rather than the last one silently winning: with
        // `--kernel fib ... --kernel nqueens` the line would report nqueens while the caller
        // asked for fib as well.
        if (std::find(seen.begin(), seen.end(), opt) != seen.end())
            throw bench::usage_error(std::string(opt) + " is given more than once");
        seen.push_back(opt);
        const std::string value = argv[++i];
        // An empty --policy is no policy name: it would silently mean the default (weft) or
        // pass reject_policy (the systems without policies).
        if (opt == "--policy" && value.empty())
            throw bench::usage_error("--policy needs a policy name (got an empty one)");
        if (opt == "--kernel") {
            a.kernel = value;
            have_kernel = true;
        } else if (opt == "--size") {
            a.size = value;
            have_size = true;
        } else if (opt == "--workers") {
            a.workers = parse_count("--workers", value, 4096);
            have_workers = true;
        } else if (opt == "--reps") {
            a.reps = parse_count("--reps", value, 10000);
        } else if (opt == "--policy") {
            a.policy = value;
        } else {
            a.variant = value;
        }
    }
    if (a.policy == "list") {
        for (const auto& n : bench::system_policy_names()) std::printf("%s\n", n.c_str());
        return 0;
    }
    if (!have_kernel) throw bench::usage_error("--kernel is required");
    if (a.kernel == "list") {  // with --variant V: the kernels that have V (maybe none)
        for (const auto& n : sorted_names(a.variant)) std::printf("%s\n", n.c_str());
        return 0;
    }
    if (!have_size) throw bench::usage_error("--size is required");
    if (!have_workers) throw bench::usage_error("--workers is required");
    (void)bench::size_of(a);  // validates --size

    bench::kernel_fn fn = nullptr;
    for (const auto& e : bench::registry())
        if (a.kernel == e.name) fn = e.fn;
    if (fn == nullptr) {
        std::string known;
        for (const auto& n : sorted_names()) known += (known.empty() ? "" : ", ") + n;
        throw bench::usage_error("unknown kernel '" + a.kernel + "' for system " +
                                 bench::system_name() + " (known: " + known + ")");
    }

    bench::system_setup(a);
    bench::output out = bench::system_run(fn, a);
    const bench::rep_record& reps = bench::timed_reps();
    if (!reps.results_agree && out.ok) {
        out.ok = false;
        out.expected += " in every repetition (the repetitions' results differ)";
    }
    if (reps.samples.empty()) {  // a kernel that times itself without measure()
        print_line(a, out, out.time_s, bench::system_extra_json(), -1);
    } else {
        for (std::size_t i = 0; i < reps.samples.size(); ++i)
            print_line(a, out, reps.samples[i].time_s, reps.samples[i].system_json,
                       a.reps > 1 ? static_cast<long>(i) : -1);
    }
    std::fflush(stdout);
    if (!out.ok) {
        std::fprintf(stderr, "%s: kernel %s: wrong checksum %s (expected %s)\n", argv[0],
                     a.kernel.c_str(), out.checksum.c_str(), out.expected.c_str());
        return 3;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::invalid_argument& e) {  // bench::usage_error, weft's bad config
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        std::fprintf(stderr, usage_text, argv[0], argv[0]);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
        return 1;
    }
}
