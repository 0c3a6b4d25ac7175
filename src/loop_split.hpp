// weft — splitting a loop frame (src/loops.cpp; LS Algorithm 3): what the deque mechanism calls when
// it promotes a running loop, and the per-worker pool of split-off children.  Declared here for
// loops.cpp and the component tests (tests/test_loop_split.cpp).
#pragma once

#include <cstdint>

#include "weft/detail/frame.hpp"
#include "weft/detail/loop.hpp"

namespace weft::detail {

struct worker;

// The record of the running loop whose frame is `fr` (its payload points at it).
loop_record& loop_of(frame* fr) noexcept;
// Would split_loop give something away?  (the same test, without splitting; it may mark the piece
// as keeping its remainder for good: loops.cpp, keeps_rest)
bool loop_can_split(frame* fr, bool allow_whole) noexcept;
// Is `fr` a loop piece that keeps the rest of its range for good (loops.cpp, keeps_rest)?
bool loop_keeps_rest(frame* fr) noexcept;
// Splits the upper half of the loop's remaining range into a child and promotes it (or, with
// `allow_whole`, a last iteration under grain 1 whole: loops.cpp, split_point); false when there is nothing to give or the
// promotion failed (the range then stays with the loop).
bool split_loop(worker& w, frame* fr, bool allow_whole, std::uint64_t child_chunks);
// A child from `w`'s pool (nullptr when a new block cannot be allocated).
loop_child* alloc_loop_child(worker& w) noexcept;

}  // namespace weft::detail
