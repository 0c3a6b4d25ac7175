// bench/common/schedule.hpp: the `--variant` of the flat-loop kernels (flat_spmv, stencil,
// stream; KERNELS.md, "Variants"): which OpenMP schedule their one loop's `omp for` uses.
//
// OpenMP is the only system with more than one way to run a flat loop, so the variant is the
// OpenMP adapter's: absent means `schedule(static)` (one contiguous block per thread, the
// papers' `omp for`), `dynamic` means `schedule(dynamic)` (chunks of one iteration handed out
// from a shared counter).  Every other system runs its one loop construct (weft: its policy,
// no grain; tbb: the auto partitioner; serial: a plain loop) and refuses `dynamic` (exit 2), so
// the driver reports it as a missing column there instead of timing the same code twice.
#pragma once

#include <string>

#include "bench.hpp"

namespace bench {

enum class omp_schedule { static_blocks, dynamic_chunks };

template <class S>
constexpr bool has_flat_schedules = requires { S::flat_schedule = omp_schedule::dynamic_chunks; };

// The variant test of the flat-loop kernels' registration (`BIN --kernel list --variant V`).
template <class S>
bool has_schedule_variant(const std::string& variant) {
    return has_flat_schedules<S> && variant == "dynamic";
}

// Sets S's flat-loop schedule from a.variant; throws usage_error (exit 2) on a variant the
// kernel or the system does not have.
template <class S>
void select_flat_schedule(const args& a) {
    constexpr bool has_schedules = has_flat_schedules<S>;
    if (a.variant.empty()) {
        if constexpr (has_schedules) S::flat_schedule = omp_schedule::static_blocks;
        return;
    }
    if (a.variant != "dynamic")
        throw usage_error("kernel " + a.kernel + " has no variant '" + a.variant +
                          "' (its only other variant is 'dynamic', OpenMP's schedule(dynamic))");
    if constexpr (has_schedules)
        S::flat_schedule = omp_schedule::dynamic_chunks;
    else
        throw usage_error("kernel " + a.kernel + ": variant 'dynamic' is an OpenMP schedule; " +
                          system_name() + " has one way to run a loop (no variants)");
}

}  // namespace bench
