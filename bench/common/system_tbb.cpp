// bench/common/system_tbb.cpp: oneTBB with --workers threads.
//
// tbb::global_control(max_allowed_parallelism, P) caps the whole process at P threads, and
// the kernel runs inside a tbb::task_arena of P slots: the default arena would be sized to
// the hardware and so never give P threads when P exceeds the core count.
#include <memory>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "bench.hpp"

namespace bench {
namespace {
std::unique_ptr<tbb::global_control> limit;
std::unique_ptr<tbb::task_arena> arena;
}  // namespace

const char* system_name() { return "tbb"; }

void system_setup(const args& a) {
    reject_policy(a);
    // Both live until exit.
    limit = std::make_unique<tbb::global_control>(
        tbb::global_control::max_allowed_parallelism, a.workers);
    arena = std::make_unique<tbb::task_arena>(static_cast<int>(a.workers));
}

output system_run(kernel_fn fn, const args& a) {
    output out;
    arena->execute([&] { out = fn(a); });
    return out;
}

}  // namespace bench
