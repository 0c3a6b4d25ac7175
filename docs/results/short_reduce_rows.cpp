// LS's declarative spmv written out on its own: a parallel_for over CSR rows, each row a
// parallel_reduce over its nonzeros, against the serial loop, at 1 worker (lazy-bf, the default).
// Arguments: ROUNDS NNZ_PER_ROW [ROWS] (40,000 rows, 5,000 columns; 4,000,000 rows' products in all,
// so ROWS = 4000 keeps the matrix in cache).  Each round times 400,000 / ROWS serial sweeps, then as
// many weft sweeps in one run; prints the medians and the median of the rounds' weft/serial ratios.
//   g++ -std=c++20 -O3 -DNDEBUG -Iinclude docs/results/short_reduce_rows.cpp build/libweft.a \
//       -lboost_context -pthread -o /tmp/short_reduce_rows
//   /tmp/short_reduce_rows 15 10          # 10-term rows: time
//   valgrind --tool=callgrind --toggle-collect='par(*' --toggle-collect='serial(*' \
//       /tmp/short_reduce_rows 1 10        # instructions of each (callgrind_annotate --inclusive=yes)
// docs/results/loops.md, "A short reduction's head (stop 50)".
#include <weft/weft.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
std::uint64_t below(std::uint64_t& g, std::uint64_t n) {
  g = g * 6364136223846793005ull + 1442695040888963407ull;
  return (g >> 33) % n;
}
struct csr {
  std::vector<std::size_t> row_ptr;
  std::vector<std::uint32_t> col;
  std::vector<double> val, x;
};
}  // namespace

__attribute__((noinline)) double serial(const csr& m, std::vector<double>& y, std::size_t rows) {
  for (std::size_t r = 0; r < rows; ++r) {
    double s = 0;
    for (std::size_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) s += m.val[k] * m.x[m.col[k]];
    y[r] = s;
  }
  double t = 0;
  for (double v : y) t += v;
  return t;
}

__attribute__((noinline)) double par(const csr& m, std::vector<double>& y, std::size_t rows) {
  weft::parallel_for(std::size_t{0}, rows, [&](std::size_t r) {
    y[r] = weft::parallel_reduce(
        m.row_ptr[r], m.row_ptr[r + 1], 0.0, [&](std::size_t k) { return m.val[k] * m.x[m.col[k]]; },
        [](double a, double b) { return a + b; });
  });
  double t = 0;
  for (double v : y) t += v;
  return t;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fputs("usage: short_reduce_rows ROUNDS NNZ_PER_ROW [ROWS]\n", stderr);
    return 2;
  }
  const int rounds = std::max(1, std::atoi(argv[1]));
  const std::size_t nnz = std::size_t(std::max(1, std::atoi(argv[2])));
  const std::size_t rows = argc > 3 ? std::size_t(std::max(1, std::atoi(argv[3]))) : 40000, cols = 5000;
  const int sweeps = int(std::max<std::size_t>(1, 400000 / rows));
  csr m;
  std::uint64_t g = 7;
  m.row_ptr.push_back(0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t e = 0; e < nnz; ++e) {
      m.col.push_back(std::uint32_t(below(g, cols)));
      m.val.push_back(double(std::int64_t(below(g, 17)) - 8));
    }
    m.row_ptr.push_back(m.col.size());
  }
  m.x.resize(cols);
  for (double& v : m.x) v = double(std::int64_t(below(g, 9)) - 4);
  std::vector<double> y(rows);
  weft::config c;
  c.workers = 1;
  weft::pool pool(c);
  std::vector<double> ts, tw, ratio;
  double sum_serial = 0, sum_weft = 0;
  for (int k = 0; k < rounds; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < sweeps; ++i) sum_serial += serial(m, y, rows);
    const auto t1 = std::chrono::steady_clock::now();
    pool.run([&] {
      for (int i = 0; i < sweeps; ++i) sum_weft += par(m, y, rows);
    });
    const auto t2 = std::chrono::steady_clock::now();
    ts.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    tw.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    ratio.push_back(tw.back() / ts.back());
  }
  // The values are small integers: every summation order gives the same sums.
  if (sum_serial != sum_weft) {
    std::fprintf(stderr, "short_reduce_rows: weft's sum %.17g differs from the serial %.17g\n", sum_weft, sum_serial);
    return 3;
  }
  std::sort(ts.begin(), ts.end());
  std::sort(tw.begin(), tw.end());
  std::sort(ratio.begin(), ratio.end());
  std::printf("rows %zu x %zu nonzeros, %d sweeps a round, %d rounds: serial %.2f ms, weft %.2f ms (medians), "
              "weft/serial median %.3f (min %.3f, max %.3f)\n",
              rows, nnz, sweeps, rounds, ts[ts.size() / 2], tw[tw.size() / 2], ratio[ratio.size() / 2], ratio.front(),
              ratio.back());
}
