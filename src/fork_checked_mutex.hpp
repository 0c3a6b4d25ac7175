// weft — a mutex whose lock notices it is in the child of a fork() that left its holder behind.
#pragma once

#include <mutex>

namespace weft::detail {

class runtime;

// A mutex of a pool (the fiber engine's scheduler lock, its stacks, the pool's lend_mu_) whose lock,
// when the mutex is taken, first checks that the process has not forked since the pool `rt` was
// made.  In the child of a fork() called inside a task, the thread that forked is the pool's only
// thread, and a lock another thread held at the fork (a worker, the heartbeat's timer thread) is
// held for ever: that child waited for it.  It ends, saying so (runtime::end_forked_child).  The
// check costs a taken lock one more try; in the parent, made_before_fork() is false and the lock
// waits as a mutex does.  (idle.cpp defines lock_slow, beside end_forked_child.)
class fork_checked_mutex {
 public:
  explicit fork_checked_mutex(const runtime& rt) noexcept : rt_(rt) {}
  void lock() {
    if (m_.try_lock()) return;
    lock_slow();
  }
  void unlock() { m_.unlock(); }

 private:
  void lock_slow();
  std::mutex m_;
  const runtime& rt_;
};

}  // namespace weft::detail
