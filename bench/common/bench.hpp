// bench/common/bench.hpp: shared infrastructure of the C++ benchmark binaries.
//
// The contract every kernel keeps is bench/KERNELS.md.  A kernel is one function
// `bench::output fn(const bench::args&)` registered with BENCH_KERNEL("name", fn) in the
// system's source file (bench/<kernel>/<system>.cpp); the binary of that system finds it
// through the per-binary registry, so adding a kernel needs no edit anywhere else.
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace bench {

// ---------------------------------------------------------------------------------------
// Random numbers, identical in C++ and Rust (KERNELS.md, "Random numbers").

inline std::uint64_t splitmix64(std::uint64_t& state) noexcept {
    state += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// A double in [0, 1): the top 53 bits of one splitmix64 step times 2^-53.
inline double uniform01(std::uint64_t& state) noexcept {
    return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
}

// splitmix64(state) % n (n > 0).
inline std::uint64_t below(std::uint64_t& state, std::uint64_t n) noexcept {
    return splitmix64(state) % n;
}

// A generator with state a ^ (b * 0x9E3779B97F4A7C15) stepped once by splitmix64.
inline std::uint64_t hash2(std::uint64_t a, std::uint64_t b) noexcept {
    std::uint64_t state = a ^ (b * 0x9E3779B97F4A7C15ULL);
    return splitmix64(state);
}

// ---------------------------------------------------------------------------------------
// Command line and result.

// The parsed command line:
//   BIN --kernel K --size S --workers P [--policy NAME] [--variant V] [--reps R]
struct args {
    std::string kernel;
    std::string size;      // "test", "quick" or "full"
    std::string policy;    // weft only; empty = the library default
    std::string variant;   // empty = the kernel's only/default variant
    unsigned workers = 1;
    unsigned reps = 1;     // timed repetitions after one input generation and warm-up
};

enum class size_class { test, quick, full };

// The size class of a.size; throws usage_error on anything else (main validates first).
size_class size_of(const args& a);

// Picks the value for the size class: pick(a, test_value, quick_value, full_value).
template <class T>
T pick(const args& a, T test, T quick, T full) {
    switch (size_of(a)) {
        case size_class::test: return test;
        case size_class::quick: return quick;
        case size_class::full: return full;
    }
    return full;
}

// A bad command line (unknown variant, bad worker count, ...): the binary exits with 2.
struct usage_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// What a kernel hands back: the timed run's seconds, its checksum (decimal), and whether
// the checksum equals the oracle.
struct output {
    double time_s = 0.0;
    std::string checksum;
    bool ok = false;
    std::string expected;  // the oracle's checksum, for the message on a mismatch
    std::string extra_json;  // more members of the JSON line, each starting with a comma
};

using kernel_fn = output (*)(const args&);

// ---------------------------------------------------------------------------------------
// Registry (one table per binary; function-local static, so static initialisation order
// between translation units does not matter).

// Whether a kernel has the named variant in this binary, for `BIN --kernel list --variant V`
// (null: none that a listing names; stress's steal-cost:L:R has parameters and is not listed).
using variant_test = bool (*)(const std::string& variant);

struct kernel_entry {
    const char* name;
    kernel_fn fn;
    variant_test has_variant;
};

std::vector<kernel_entry>& registry();

struct registrar {
    registrar(const char* name, kernel_fn fn, variant_test has_variant = nullptr) {
        registry().push_back({name, fn, has_variant});
    }
};

#define BENCH_DETAIL_CAT2(a, b) a##b
#define BENCH_DETAIL_CAT(a, b) BENCH_DETAIL_CAT2(a, b)
// BENCH_KERNEL("fib", run_fib);  at namespace scope in the system's kernel file;
// BENCH_KERNEL("stream", run_stream, has_variant)  for a kernel with listed variants.
#define BENCH_KERNEL(name, ...)                                                       \
    static const ::bench::registrar BENCH_DETAIL_CAT(bench_registrar_, __COUNTER__) { \
        name, __VA_ARGS__                                                             \
    }

// ---------------------------------------------------------------------------------------
// Per-system hooks, defined once per binary by bench/common/system_<system>.cpp.

// The system's name as printed in the JSON ("serial", "weft", "tbb", "omp-gcc", ...).
const char* system_name();
// Validates the command line for this system and sets the thread count up (throws
// usage_error / std::invalid_argument on a bad one: exit code 2).
void system_setup(const args& a);
// The policy name printed in the JSON ("" for systems without policies).
std::string system_policy();
// The names --policy accepts, as `--policy list` prints them (weft: the library's implemented
// policies; the other systems throw usage_error: exit code 2).
std::vector<std::string> system_policy_names();
// Throws usage_error when --policy is given (the systems without policies).
void reject_policy(const args& a);
// Runs the kernel (its input generation, warm-up, timed run and oracle) in the system's
// context (tbb: inside a task_arena of --workers slots; others: a plain call).
output system_run(kernel_fn fn, const args& a);
// Called by measure() right before / right after the timed run (weft: reset the counters,
// then take them).
void system_before_timed();
void system_after_timed();
// Extra members of the JSON line, each starting with a comma (weft: ,"stats":{...}).
std::string system_extra_json();

// ---------------------------------------------------------------------------------------
// Timing.

// Keeps the compiler from treating v as known (and so from merging repeated identical
// computations such as the reps of a kernel).
template <class T>
inline T opaque(T v) noexcept {
    static_assert(std::is_integral_v<T> || std::is_pointer_v<T>);
    asm volatile("" : "+r"(v));
    return v;
}

// Seconds of one call of f, on std::chrono::steady_clock.
template <class F>
double time_it(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    std::forward<F>(f)();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
}

template <class R>
struct timed {
    double time_s;  // the last repetition's
    R result;       // the last repetition's
};

// One timed repetition: its seconds and the system's members of its JSON line (weft: its
// counters, system_extra_json() right after it).
struct rep_sample {
    double time_s;
    std::string system_json;
};

// What measure() saw in this process: every timed repetition, and whether all of them returned
// the same result (each repetition must, or the last one's checksum would hide a wrong one).
struct rep_record {
    std::vector<rep_sample> samples;
    bool results_agree = true;
};

rep_record& timed_reps();

// The warm-up rule of KERNELS.md: prepare(); run() once untimed unless the size is full;
// then a.reps times prepare(); run() timed (the system hooks around each); verify() untimed,
// every repetition recorded in timed_reps().  prepare() is untimed and restores whatever run()
// modifies (e.g. copies the input matrix back) and clears or poisons the outputs, so that a
// repetition that skips work cannot inherit the right answer from the warm-up or an earlier
// repetition.  verify() is untimed and returns the repetition's checksum material, computed
// from the outputs run() left (the checksum pass is not part of the timed region: KERNELS.md,
// "Timing"); every repetition's must equal the first's (results_agree), and the last one's is
// checked against the oracle.  One input generation and one oracle serve all repetitions.
template <class Prepare, class Run, class Verify>
auto measure(const args& a, Prepare&& prepare, Run&& run, Verify&& verify)
    -> timed<decltype(verify())> {
    using R = decltype(verify());
    static_assert(!std::is_void_v<R>, "a kernel's verify returns its checksum material");
    if (size_of(a) != size_class::full) {
        prepare();
        run();
    }
    rep_record& log = timed_reps();
    std::optional<R> first;
    for (unsigned rep = 0;; ++rep) {
        prepare();
        system_before_timed();
        const auto t0 = std::chrono::steady_clock::now();
        run();
        const auto t1 = std::chrono::steady_clock::now();
        system_after_timed();
        const double s = std::chrono::duration<double>(t1 - t0).count();
        log.samples.push_back({s, system_extra_json()});
        R r = verify();
        if constexpr (std::equality_comparable<R>) {
            if (rep == 0) first = r;
            else if (!(r == *first)) log.results_agree = false;
        }
        if (rep + 1 >= a.reps) return timed<R>{s, std::move(r)};
    }
}

// A kernel whose timed run returns its checksum material (fib, nqueens, ...: the result of the
// computation itself); verify() hands back what the repetition's run() returned.
template <class Prepare, class Run>
auto measure(const args& a, Prepare&& prepare, Run&& run) -> timed<decltype(run())> {
    using R = decltype(run());
    static_assert(!std::is_void_v<R>, "a kernel run returns its checksum material");
    std::optional<R> last;
    return measure(
        a, std::forward<Prepare>(prepare), [&] { last.emplace(run()); },
        [&] { return std::move(*last); });
}

template <class Run>
auto measure(const args& a, Run&& run) -> timed<decltype(run())> {
    return measure(a, [] {}, std::forward<Run>(run));
}

// The value prepare() fills a kernel's double outputs with before each repetition: exactly
// representable, convertible to uint64 without undefined behaviour, and far from any result, so
// that a cell a repetition leaves unwritten changes the checksum.
inline constexpr double poison = 1099511627776.0;  // 2^40

// The wrapping sum of step() over reps calls (kernels that repeat one product reps times).
template <class Step>
std::uint64_t sum_of_reps(std::uint64_t reps, Step&& step) {
    std::uint64_t s = 0;
    for (std::uint64_t r = 0; r < reps; ++r) s += step();
    return s;
}

// Builds the output of a kernel whose checksum is an integer, against the oracle.
template <class T>
output result(double time_s, T checksum, T oracle) {
    static_assert(std::is_integral_v<T>);
    output out;
    out.time_s = time_s;
    out.checksum = std::to_string(checksum);
    out.ok = checksum == oracle;
    out.expected = std::to_string(oracle);
    return out;
}

// Throws usage_error unless the variant is empty (kernels that have only one variant).
void require_default_variant(const args& a);

}  // namespace bench
