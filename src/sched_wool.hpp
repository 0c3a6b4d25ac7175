// weft — `wool`'s per-worker state (WOOL §III.B): the public window of a worker's task stack, and
// the constants that size it.  Only sched_wool.cpp uses them; they are in a header so that the
// component tests (tests/test_wool_window.cpp) can check the window after driving the scheduler
// directly.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "worker.hpp"

namespace weft::detail {

inline constexpr std::size_t initial_public = 4;     // public slots at start
inline constexpr std::size_t trip_distance = 2;      // the trip wire: the 2nd highest public slot
inline constexpr std::size_t grow_by = 4;            // slots made public per notification
inline constexpr std::uint32_t privatize_after = 64;  // consecutive public inlines before shrinking

// A worker's public window (WOOL §III.B): `bot` is shared with thieves; `pub`, `trip` describe the
// public window (slots [0, pub) are public; a steal at or above `trip` trips the wire).
struct wool_window final : mechanism_state {
  explicit wool_window(frame* bottom) : bot(bottom) {}
  alignas(64) std::atomic<frame*> bot;
  std::atomic<std::size_t> trip{0};
  std::size_t pub = 0;
  std::uint32_t inlined_public = 0;
};

}  // namespace weft::detail
