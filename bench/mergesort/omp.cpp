#include <omp.h>

#include "mergesort.hpp"

namespace {

namespace ms = bench::mergesort;
using ms::key;

// The join of every merge and every sort: the first half a task, the second inline, taskwait.
void merge(const key* x, std::size_t nx, const key* y, std::size_t ny, key* out) {
    if (nx < ny) {
        std::swap(x, y);
        std::swap(nx, ny);
    }
    if (nx == 0) return;
    const std::size_t mx = nx / 2;
    const key p = x[mx];
    const std::size_t my = ms::lower(y, ny, p);
    out[mx + my] = p;
#pragma omp task firstprivate(x, mx, y, my, out)
    merge(x, mx, y, my, out);
    merge(x + mx + 1, nx - mx - 1, y + my, ny - my, out + mx + my + 1);
#pragma omp taskwait
}

void sort(key* a, key* b, std::size_t n, bool to_b) {
    if (n <= 1) {
        if (n == 1 && to_b) b[0] = a[0];
        return;
    }
    const std::size_t h = n / 2;
#pragma omp task firstprivate(a, b, h, to_b)
    sort(a, b, h, !to_b);
    sort(a + h, b + h, n - h, !to_b);
#pragma omp taskwait
    if (to_b)
        merge(a, h, a + h, n - h, b);
    else
        merge(b, h, b + h, n - h, a);
}

bench::output run(const bench::args& a) {
    const std::vector<key> keys = ms::input(a);
    ms::arrays s(keys.size());
    auto t = bench::measure(a, [&] { s.load(keys); }, [&] {
#pragma omp parallel
#pragma omp single
        sort(s.a.get(), s.b.get(), s.n, false);
        return 0;
    });
    return ms::finish(t.time_s, ms::check(s.a.get(), s.n), keys);
}

}  // namespace

BENCH_KERNEL("mergesort", run);
