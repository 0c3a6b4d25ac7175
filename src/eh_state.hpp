// weft — the C++ runtime's per-thread exception state, as the runtime moves or sets it aside: a
// fiber's switch carries it (fiber_thread.hpp), a stolen task runs without the count of its
// thread's exceptions in flight (runtime::execute_stolen, blocked_join.cpp).
#pragma once

namespace weft::detail {

// The C++ runtime's per-thread exception state (the Itanium ABI's __cxa_eh_globals, as libstdc++ and
// libc++ lay it out: the exceptions being handled, innermost first, and the count
// std::uncaught_exceptions() reads).  It belongs to the code that runs, not to the OS thread: a
// fiber that switches out inside a catch handler or while an exception unwinds (a join in a
// destructor) and resumes on another worker must take it along, or both workers' states go wrong
// for good — later scopes took themselves for unwinding and dropped their tasks' errors (stop 40's
// bug hunt: 39-190 of 200 errors lost under adf, dfd, fifo).  resume_thread swaps it.  A task
// stolen in a wait inside an exception's cleanup runs with the count set aside (execute_stolen).
struct eh_state {
  void* caught = nullptr;
  unsigned int uncaught = 0;
};
// This OS thread's state.  Out of line and opaque to the optimizer (abi::__cxa_get_globals is
// declared `const`, so a call could be reused across a switch).
eh_state* thread_eh_state() noexcept;

}  // namespace weft::detail
