// weft — the platform primitives the spinning, timing and heartbeat parts of the runtime use.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace weft::detail {

// One spin-wait step: tells the core we are spinning (x86 `pause`, Arm `yield`).
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Monotonic nanoseconds (idle-time accounting, the idle loop's sleep deadline).
inline std::uint64_t now_ns() noexcept {
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count());
}

// The CPUs this process may run on (its affinity mask; hardware threads where that is unknown): what
// the spare heartbeat delivery counts as cores (src/heartbeat.cpp).  Defined in src/lifecycle.cpp.
std::size_t usable_cpus() noexcept;

}  // namespace weft::detail
