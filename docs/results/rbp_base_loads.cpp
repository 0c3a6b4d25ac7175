// The flat CSR spmv row loop (tools/flat_loops.cpp's spmv: 2^18 rows of 4-16 nonzeros) written in
// asm four times, identical but for the register holding the `col` stream's base: %rbp, %rbx, %r13,
// %r12.  Each loop aligned to 64 bytes.  Rounds alternate the four (and reverse their order), each
// ratio is to %rbx in the same round, the median over 120 rounds is printed.
//   g++ -O2 -o /tmp/rbp_base_loads docs/results/rbp_base_loads.cpp && /tmp/rbp_base_loads
// docs/results/loops.md, "The flat CSR spmv at one worker" (stop 39, the Intel Xeon VM): %rbp
// 1.05-1.11, %r13 (the same encoding, a disp8 byte) 0.98-1.02, %r12 0.96-1.02.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

static constexpr long rows = 1L << 18;
static const long* st;
static const int* col;
static const double* val;
static const double* xv;
static double* yv;

#define SWEEP(NAME, REG)                                                              \
  __attribute__((noinline)) void NAME() {                                             \
    for (long i = 0; i < rows; ++i) {                                                 \
      long k = st[i], e = st[i + 1];                                                  \
      double acc = 0;                                                                 \
      if (k < e) {                                                                    \
        asm volatile("push %%" REG "\n\t"                                             \
                     "mov %[c], %%" REG "\n\t"                                        \
                     ".p2align 6\n\t"                                                 \
                     "1:\n\t"                                                         \
                     "movslq 0x0(%%" REG ",%[k],4), %%rcx\n\t"                        \
                     "movsd (%[x],%%rcx,8), %%xmm0\n\t"                               \
                     "mulsd (%[v],%[k],8), %%xmm0\n\t"                                \
                     "add $1, %[k]\n\t"                                               \
                     "addsd %%xmm0, %[acc]\n\t"                                       \
                     "cmp %[k], %[e]\n\t"                                             \
                     "jne 1b\n\t"                                                     \
                     "pop %%" REG "\n\t"                                              \
                     : [k] "+r"(k), [acc] "+x"(acc)                                   \
                     : [c] "r"(col), [x] "r"(xv), [v] "r"(val), [e] "r"(e)            \
                     : "rcx", "xmm0", "memory", "cc");                                \
      }                                                                               \
      yv[i] = acc;                                                                    \
    }                                                                                 \
  }

SWEEP(sweep_rbp, "rbp")
SWEEP(sweep_rbx, "rbx")
SWEEP(sweep_r13, "r13")
SWEEP(sweep_r12, "r12")

template <class F>
static double timed(F f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main() {
  std::vector<long> s{0};
  std::vector<int> c;
  std::vector<double> v, x(rows), y(rows);
  std::uint64_t r = 88172645463325252ull;
  auto next = [&] { return r ^= r << 13, r ^= r >> 7, r ^= r << 17; };
  for (long i = 0; i < rows; ++i) {
    const long nnz = 4 + long(next() % 13);
    for (long k = 0; k < nnz; ++k) c.push_back(int(next() % rows)), v.push_back(double(next() % 100) / 100.0);
    s.push_back(long(c.size()));
  }
  for (long i = 0; i < rows; ++i) x[i] = double(i % 17) / 17.0;
  st = s.data(), col = c.data(), val = v.data(), xv = x.data(), yv = y.data();
  std::vector<double> tb, rbp, r13, r12;
  for (int q = 0; q < 120; ++q) {
    const double b1 = timed(sweep_rbx), a1 = timed(sweep_rbp), m1 = timed(sweep_r13), n1 = timed(sweep_r12);
    const double n2 = timed(sweep_r12), m2 = timed(sweep_r13), a2 = timed(sweep_rbp), b2 = timed(sweep_rbx);
    rbp.push_back((a1 + a2) / (b1 + b2));
    r13.push_back((m1 + m2) / (b1 + b2));
    r12.push_back((n1 + n2) / (b1 + b2));
    tb.push_back(b1);
  }
  auto med = [](std::vector<double> w) {
    std::sort(w.begin(), w.end());
    return w[w.size() / 2];
  };
  std::printf("rbx %.2f ms a sweep; ratios to rbx: rbp %.3f r13 %.3f r12 %.3f\n", med(tb) * 1e3, med(rbp), med(r13), med(r12));
}
