// weft — invariant checks of the runtime's protocols (issue 8, "verification that keeps it true").
// On in the sanitizer and chaos builds (CMake: WEFT_CHECKS, forced on by WEFT_SANITIZE or
// WEFT_CHAOS), where the random programs run every protocol under ThreadSanitizer, ASan and
// injected delays; compiled to nothing otherwise, so a join's fast path is the same instructions
// (tools/join_cost.sh).  A failed check prints what broke and where, then aborts: a broken
// invariant means a thief and the owner disagree about a frame, and going on would corrupt memory.
//
// Checks read shared words with relaxed loads only: an acquire load added by a check would give
// ThreadSanitizer a happens-before edge the protocol itself does not have, and could hide a race.
#pragma once

namespace weft::detail {

// Prints "weft: internal invariant broken: <what> (<file>:<line>)" to stderr and aborts.
[[noreturn]] void invariant_failed(const char* what, const char* file, int line) noexcept;

// The runtime's one way to end the process when going on is impossible (a broken invariant, a pool
// destroyed under a run, a spawn handle out of order, a forked child with nothing left to do):
// "weft: " and the printf-formatted message, a newline, on stderr as one write, then abort.  Not
// for a signal handler (it formats; stack_guard.cpp writes its overflow message by hand).
[[noreturn]] void fatal(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace weft::detail

#if defined(WEFT_CHECKS) && WEFT_CHECKS
#define WEFT_ASSERT(cond, what) \
  ((cond) ? static_cast<void>(0) : ::weft::detail::invariant_failed(what, __FILE__, __LINE__))
#else
// Not evaluated (the condition may name check-only helpers), but still parsed.
#define WEFT_ASSERT(cond, what) static_cast<void>(sizeof(static_cast<bool>(cond)))
#endif
