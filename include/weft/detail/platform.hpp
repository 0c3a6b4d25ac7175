// weft — the two platform primitives every spinning or timing part of the runtime uses.
#pragma once

#include <chrono>
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

}  // namespace weft::detail
