// bench/common/temp.hpp: a kernel's temporary array, allocated through its system's allocator
// (S::allocator<T>: weft::allocator under weft, so that weft::malloc charges it to the pool and
// counters::heap_peak_bytes sees it, SPEC §5; std::allocator in every other system).  The NAR
// kernels (mmtemp, strassen, dtree, fft, meshspmv) allocate every temporary this way, so the
// weft binary's heap high-water mark under --policy serial is S1, the serial space of NAR §2.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace bench {

// n elements of a trivial type T, uninitialised, freed on destruction (the allocation is sized,
// as weft::free needs).  Move-only.
template <class S, class T>
class temp_array {
    static_assert(std::is_trivially_default_constructible_v<T> &&
                      std::is_trivially_destructible_v<T>,
                  "temp_array holds trivial types only (it constructs nothing)");
    using alloc_t = typename S::template allocator<T>;

public:
    explicit temp_array(std::size_t n) : n_(n), p_(n ? alloc_t().allocate(n) : nullptr) {}
    temp_array(temp_array&& o) noexcept
        : n_(std::exchange(o.n_, 0)), p_(std::exchange(o.p_, nullptr)) {}
    temp_array(const temp_array&) = delete;
    temp_array& operator=(const temp_array&) = delete;
    temp_array& operator=(temp_array&&) = delete;
    ~temp_array() {
        if (p_) alloc_t().deallocate(p_, n_);
    }

    T* data() noexcept { return p_; }
    const T* data() const noexcept { return p_; }
    std::size_t size() const noexcept { return n_; }
    T& operator[](std::size_t i) noexcept { return p_[i]; }
    const T& operator[](std::size_t i) const noexcept { return p_[i]; }

private:
    std::size_t n_;
    T* p_;
};

// f(i) for every i in [lo, hi) as a balanced tree of S::join down to single calls: NAR's
// "a new child thread is forked to execute each recursive call" (Fig 1.1) for the kernels whose
// recursion has more than two calls (mmtemp's 8, strassen's 7).  f returns nothing.
template <class S, class F>
void fork_each(std::size_t lo, std::size_t hi, const F& f) {
    if (hi - lo == 1) {
        f(lo);
        return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    S::join([&] { fork_each<S>(lo, mid, f); }, [&] { fork_each<S>(mid, hi, f); });
}

}  // namespace bench
