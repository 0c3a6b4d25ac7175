// weft — the chaos build's delay injection (issue 8, "verification that keeps it true").
//
// WEFT_CHAOS_POINT() marks a protocol point: a place between two accesses of a cross-thread
// protocol (docs/PROTOCOLS.md) where the thread could be descheduled, e.g. between a thief's winning
// CAS on the deque's `top` and its STOLEN store.  Under -DWEFT_CHAOS=ON each point, at random,
// yields the thread or spins a few hundred cycles, so that with many workers on one core
// (`taskset -c 0`) the interleavings that a real machine produces once a week happen in every run.
// In every other build the macro is nothing at all: no load, no call, no code.
//
// The random source is a per-thread xorshift generator (no shared state, no locked instruction, so
// the injection itself adds no synchronization that could hide a race), seeded from the thread's
// stack address and a global counter.
#pragma once

#if defined(WEFT_CHAOS) && WEFT_CHAOS

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "platform.hpp"

namespace weft::detail::chaos {

inline std::uint64_t next_random() noexcept {
  static std::atomic<std::uint64_t> seeds{0x853C49E6748FEA9Bull};
  thread_local std::uint64_t s = 0;
  if (s == 0) {
    int here;
    s = (seeds.fetch_add(0x9E3779B97F4A7C15ull, std::memory_order_relaxed) ^
         reinterpret_cast<std::uintptr_t>(&here)) | 1;
  }
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

// 1 in 16 points yields (the thread loses its slice when others wait on one core), 1 in 8 spins for
// 0-511 pauses (a delay shorter than a slice: another core, if any, runs ahead), the rest go on.
inline void point() noexcept {
  const std::uint64_t r = next_random();
  switch (r & 15) {
    case 0:
      std::this_thread::yield();
      break;
    case 1:
    case 2:
      for (std::uint64_t n = (r >> 8) & 511; n > 0; --n) cpu_relax();
      break;
    default:
      break;
  }
}

// A point whose window only a whole lost time slice opens: a thread in the middle of a loop over
// other threads' state while they may end (for_each_poll_word).  A yield does not open it (the
// scheduler may run the yielder again at once); 1 in 4 such points sleep 50-305 us, longer than a
// peer on the same core needs to leave its loop and be joined.  Used sparingly: these points are on
// slow paths only.
inline void descheduled() noexcept {
  const std::uint64_t r = next_random();
  if ((r & 3) == 0) std::this_thread::sleep_for(std::chrono::microseconds(50 + ((r >> 8) & 255)));
}

}  // namespace weft::detail::chaos

#define WEFT_CHAOS_POINT() ::weft::detail::chaos::point()
#define WEFT_CHAOS_DESCHEDULED() ::weft::detail::chaos::descheduled()
#else
#define WEFT_CHAOS_POINT() static_cast<void>(0)
#define WEFT_CHAOS_DESCHEDULED() static_cast<void>(0)
#endif
