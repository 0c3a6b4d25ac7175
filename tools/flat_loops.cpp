// weft-flat-loops — flat parallel loops against OpenMP's `omp for` (issue 10, SPEC §3 loops).
//
//   weft-flat-loops KERNEL SYSTEM WORKERS REPS
//     KERNEL   stream  (y[i] = a*x[i] + b*y[i], 2^22 doubles: one multiply-add per element)
//              stream-cache (the same on 2^15 doubles, 512 KiB in all: a sweep of ~7 us from cache,
//                      where a chunk's alignment and a loop's fixed costs show; REPS ~ 2001)
//              poly    (a degree-16 polynomial per element, 2^20 doubles: a few ns per element)
//              stencil (a 2-D 5-point Jacobi sweep, 2048 x 2048, parallel over rows)
//              spmv    (CSR sparse matrix times vector, parallel over 2^18 rows, 4-16 nonzeros a row)
//     SYSTEM   serial | weft (the pool's policy: WEFT_POLICY, else the default) | omp-static |
//              omp-dynamic (schedule(dynamic): libgomp's chunk of 1) | omp-dynamic64 |
//              paired (the serial loop and weft's parallel_for alternated sweep by sweep in one
//                      process, inside one pool.run: see below)
//   Prints: kernel system workers median_seconds checksum — the median of REPS timed sweeps after
//   one untimed warm-up sweep.  Every system runs the same body; only the loop construct differs.
//   tools/flat_loops.sh alternates the systems process by process and reports medians of ratios.
//   `paired` prints: kernel paired workers weft_median_seconds checksum serial_median_seconds
//   median_of_ratios — each ratio weft's sweep over the serial sweep just before it.  On a shared
//   host whose speed swings by 2x within minutes (docs/results/loops.md, "The flat CSR spmv at one
//   worker"), a ratio of two sweeps a few ms apart moves far less than a ratio of two processes.
#include <weft/weft.hpp>

#include <omp.h>

#include "args.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

enum class sys { serial, weft, omp_static, omp_dynamic, omp_dynamic64, paired };

// for i in [0, n): body(i), the way the system runs a flat loop.  No grain for weft.
template <class Body>
void run_loop(sys s, long n, const Body& body) {
  switch (s) {
    case sys::serial:
      for (long i = 0; i < n; ++i) body(i);
      break;
    case sys::weft:
      // A temporary, as a loop written with its lambda inline passes it (the form this tool
      // measures): a named body is called in place, through its address (README, Loops).
      weft::parallel_for(0L, n, Body(body));
      break;
    case sys::omp_static:
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) body(i);
      break;
    case sys::omp_dynamic:
#pragma omp parallel for schedule(dynamic)
      for (long i = 0; i < n; ++i) body(i);
      break;
    case sys::paired:  // measure() runs the two systems itself
      std::abort();
    case sys::omp_dynamic64:
#pragma omp parallel for schedule(dynamic, 64)
      for (long i = 0; i < n; ++i) body(i);
      break;
  }
}

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

template <int LogN>
struct stream {
  static constexpr long n = 1L << LogN;
  std::vector<double> x = std::vector<double>(n), y = std::vector<double>(n, 1.0);
  stream() {
    for (long i = 0; i < n; ++i) x[i] = double(i % 1000) * 1e-3;
  }
  void sweep(sys s) {
    const double* xp = x.data();
    double* yp = y.data();
    run_loop(s, n, [=](long i) { yp[i] = 0.25 * xp[i] + 0.5 * yp[i]; });
  }
  double checksum() const { return sum(y); }
};

struct poly {
  static constexpr long n = 1L << 20;
  std::vector<double> x = std::vector<double>(n), y = std::vector<double>(n);
  poly() {
    for (long i = 0; i < n; ++i) x[i] = double(i % 997) / 997.0;
  }
  void sweep(sys s) {
    const double* xp = x.data();
    double* yp = y.data();
    run_loop(s, n, [=](long i) {
      double t = xp[i], p = 0;
      for (int k = 16; k > 0; --k) p = p * t + 1.0 / k;  // Horner: 16 dependent multiply-adds
      yp[i] = p;
    });
  }
  double checksum() const { return sum(y); }
};

struct stencil {
  static constexpr long side = 2048;
  std::vector<double> a = std::vector<double>(side * side), b = std::vector<double>(side * side);
  stencil() {
    for (long i = 0; i < side * side; ++i) a[i] = double((i * 7919) % 1024) / 1024.0;
  }
  void sweep(sys s) {
    const double* in = a.data();
    double* out = b.data();
    run_loop(s, side - 2, [=](long r) {
      const long row = (r + 1) * side;
      for (long c = 1; c < side - 1; ++c)
        out[row + c] = 0.2 * (in[row + c] + in[row + c - 1] + in[row + c + 1] + in[row + c - side] + in[row + c + side]);
    });
  }
  double checksum() const { return sum(b); }
};

struct spmv {
  static constexpr long rows = 1L << 18;
  std::vector<long> start;
  std::vector<int> col;
  std::vector<double> val, x, y = std::vector<double>(rows);
  spmv() {
    std::uint64_t r = 88172645463325252ull;
    auto next = [&] { return r ^= r << 13, r ^= r >> 7, r ^= r << 17; };
    start.push_back(0);
    for (long i = 0; i < rows; ++i) {
      const long nnz = 4 + long(next() % 13);
      for (long k = 0; k < nnz; ++k) col.push_back(int(next() % rows)), val.push_back(double(next() % 100) / 100.0);
      start.push_back(long(col.size()));
    }
    x.resize(rows);
    for (long i = 0; i < rows; ++i) x[i] = double(i % 17) / 17.0;
  }
  void sweep(sys s) {
    const long* st = start.data();
    const int* c = col.data();
    const double* v = val.data();
    const double* xp = x.data();
    double* yp = y.data();
    run_loop(s, rows, [=](long i) {
      double acc = 0;
      for (long k = st[i]; k < st[i + 1]; ++k) acc += v[k] * xp[c[k]];
      yp[i] = acc;
    });
  }
  double checksum() const { return sum(y); }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The median: the middle value, or the mean of the two middle values for an even count.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

template <class K>
int measure(const char* name, const std::string& system, sys s, unsigned workers, int reps) {
  K k;
  std::vector<double> times, serial_times, ratios;
  auto timed_sweep = [&](sys which) {
    const auto t0 = std::chrono::steady_clock::now();
    k.sweep(which);
    return seconds_since(t0);
  };
  auto sweeps = [&] {
    if (s == sys::paired) {
      k.sweep(sys::serial);  // warm-up of both
      k.sweep(sys::weft);
      for (int r = 0; r < reps; ++r) {
        serial_times.push_back(timed_sweep(sys::serial));
        times.push_back(timed_sweep(sys::weft));  // last: the checksum is weft's
        ratios.push_back(times.back() / serial_times.back());
      }
      return;
    }
    k.sweep(s);  // warm-up: pages touched, threads started
    for (int r = 0; r < reps; ++r) times.push_back(timed_sweep(s));
  };
  if (s == sys::weft || s == sys::paired) {
    weft::pool p(weft::config{.workers = workers});
    p.run(sweeps);
  } else {
    omp_set_num_threads(int(workers));
    sweeps();
  }
  std::printf("%s %s %u %.9f %.10g", name, system.c_str(), workers, median(times), k.checksum());
  if (s == sys::paired) std::printf(" %.9f %.4f", median(serial_times), median(ratios));
  std::printf("\n");
  return 0;
}

int usage() {
  std::fputs("usage: weft-flat-loops stream|stream-cache|poly|stencil|spmv serial|weft|omp-static|omp-dynamic|omp-dynamic64|paired WORKERS REPS\n",
             stderr);
  return 2;
}

int run(int argc, char** argv);

}  // namespace

// A bad argument (tools::number, an unknown name) or pool setting (a WEFT_* variable) is reported
// with the usage line, not a terminate.
int main(int argc, char** argv) { return tools::main_with_usage("weft-flat-loops", usage, run, argc, argv); }

namespace {

int run(int argc, char** argv) {
  if (argc != 5) return usage();
  const std::string kernel = argv[1], system = argv[2];
  const unsigned workers = tools::number("WORKERS", argv[3], 1u, 1024u);
  const int reps = tools::number("REPS", argv[4], 1, 100'000'000);
  sys s;
  if (system == "serial") s = sys::serial;
  else if (system == "weft") s = sys::weft;
  else if (system == "omp-static") s = sys::omp_static;
  else if (system == "omp-dynamic") s = sys::omp_dynamic;
  else if (system == "omp-dynamic64") s = sys::omp_dynamic64;
  else if (system == "paired") s = sys::paired;
  else throw std::invalid_argument("unknown SYSTEM \"" + system + "\"");
  if (kernel == "stream") return measure<stream<22>>("stream", system, s, workers, reps);
  if (kernel == "stream-cache") return measure<stream<15>>("stream-cache", system, s, workers, reps);
  if (kernel == "poly") return measure<poly>("poly", system, s, workers, reps);
  if (kernel == "stencil") return measure<stencil>("stencil", system, s, workers, reps);
  if (kernel == "spmv") return measure<spmv>("spmv", system, s, workers, reps);
  throw std::invalid_argument("unknown KERNEL \"" + kernel + "\"");
}

}  // namespace
