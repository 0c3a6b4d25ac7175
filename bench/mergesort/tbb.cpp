#include <tbb/parallel_invoke.h>

#include "mergesort.hpp"

namespace {

namespace ms = bench::mergesort;
using ms::key;

// Both halves of every merge and of every sort are a tbb::parallel_invoke.
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
    tbb::parallel_invoke(
        [&] { merge(x, mx, y, my, out); },
        [&] { merge(x + mx + 1, nx - mx - 1, y + my, ny - my, out + mx + my + 1); });
}

void sort(key* a, key* b, std::size_t n, bool to_b) {
    if (n <= 1) {
        if (n == 1 && to_b) b[0] = a[0];
        return;
    }
    const std::size_t h = n / 2;
    tbb::parallel_invoke([&] { sort(a, b, h, !to_b); }, [&] { sort(a + h, b + h, n - h, !to_b); });
    if (to_b)
        merge(a, h, a + h, n - h, b);
    else
        merge(b, h, b + h, n - h, a);
}

bench::output run(const bench::args& a) {
    const std::vector<key> keys = ms::input(a);
    ms::arrays s(keys.size());
    auto t = bench::measure(a, [&] { s.load(keys); }, [&] {
        sort(s.a.get(), s.b.get(), s.n, false);
        return 0;
    });
    return ms::finish(t.time_s, ms::check(s.a.get(), s.n), keys);
}

}  // namespace

BENCH_KERNEL("mergesort", run);
