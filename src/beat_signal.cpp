// weft — heartbeat delivery by signal: per-thread POSIX timers and their handler (beat_signal.hpp).
#include "beat_signal.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "weft/detail/frame.hpp"

namespace weft::detail {

std::uint64_t current_fork_generation();  // global_pool.cpp

namespace {

// The beat counter of the slot this thread runs (null: the thread takes no beats).  Read by the
// handler on this same thread, so relaxed atomics and signal fences order it (a handler and the
// code it interrupts form one thread of execution).  Trivially destructible and initial-exec: the
// handler reaches it without a TLS allocation (async-signal-safe).
constinit thread_local std::atomic<std::atomic<std::uint64_t>*> tls_beat_requested
    __attribute__((tls_model("initial-exec"))){nullptr};

// Only atomics (lock-free on every target weft builds for), no errno, no call: async-signal-safe,
// and ThreadSanitizer sees no plain access from a handler.  A signal that is no timer expiry (a
// kill() of this number by someone else) is ignored.
void on_beat(int, siginfo_t* info, void*) {
  std::atomic<std::uint64_t>* requested = tls_beat_requested.load(std::memory_order_relaxed);
  if (requested == nullptr || info == nullptr || info->si_code != SI_TIMER) return;
  tls_hot.poll.fetch_or(poll_bit::heartbeat, std::memory_order_relaxed);
  const int merged = info->si_overrun > 0 ? info->si_overrun : 0;
  requested->fetch_add(1 + std::uint64_t(merged), std::memory_order_relaxed);
}

// The calling thread's timer; deleted when the thread exits (thread_local destructor).  Used only
// outside the handler.
// A child of fork() inherits the thread-local but not the timer: the fork generation tells.
struct thread_timer {
  timer_t id{};
  bool made = false;
  std::uint64_t fork_generation = 0;
  ~thread_timer() {
    if (made) ::timer_delete(id);
  }
};
thread_local thread_timer tls_timer;
// The armed period (0: disarmed).  The timer is one-shot: the poll that takes a beat re-arms it
// (beat_timer_rearm), so a thread that does not poll (blocked in a system call, searching for work)
// is sent one signal, not a stream that would keep a retried relative sleep from ever ending.
thread_local std::chrono::nanoseconds tls_period{0};
// The expiry the timer was last armed for (CLOCK_MONOTONIC, ns).  A re-arm aims at this plus one
// period, not at "now plus one period": the time from an expiry to the poll that takes it is then
// absorbed by the next interval instead of added to it, so the beats keep the period N on average
// (the timer thread does the same with its deadlines, heartbeat.cpp).  A beat more than a period
// late is not made up: the next one is a full period after the re-arm.  And never sooner than half a
// period after the re-arm returns: the re-arm comes after the beat's promotion (sched_deque.cpp
// promote_at_beat), so at least N/2 of the worker's own work separates two promotions whatever a
// beat costs to handle — HB §3's work bound, (1 + τ/N)·w, needs work between beats; with this floor
// it is (1 + 2τ/N)·w where τ is a beat's whole cost.  The re-arm's own system call is part of that
// cost and on a KVM guest it is the largest part: timer_settime took 14-44 us on stop 51's Intel VM
// (programming the guest's timer exits to the host), the signal arrived ~30 us after its expiry, and
// a timer set less than the call's duration ahead fired during the call — so before stop 51 (found by
// its beat hunt) a period N shorter than the call left the next beat due on its return, and at N =
// 2 us every join of fib promoted.  The floor therefore counts from the call's return, estimated by
// the previous call's duration (tls_rearm_ns).  Where beats are cheap (bare metal: a call under a us)
// the floor does not bind and the period N is kept.
thread_local std::int64_t tls_deadline_ns = 0;
// How long the last timer_settime of this thread took (ns), including a beat handled during it.
thread_local std::int64_t tls_rearm_ns = 0;

std::int64_t monotonic_ns() noexcept {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);  // the vDSO: no system call
  return std::int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// One-shot (it_interval 0) at the absolute time `deadline_ns`; 0 stops the timer.
void set_timer_at(std::int64_t deadline_ns) noexcept {
  itimerspec spec{};
  spec.it_value.tv_sec = time_t(deadline_ns / 1'000'000'000);
  spec.it_value.tv_nsec = long(deadline_ns % 1'000'000'000);
  ::timer_settime(tls_timer.id, deadline_ns != 0 ? TIMER_ABSTIME : 0, &spec, nullptr);
}

// Arms the timer for `deadline_ns` (tls_deadline_ns) and times the call from `now_ns`, when the
// caller read the clock, for the next re-arm's floor (tls_rearm_ns).
void arm_timer_at(std::int64_t deadline_ns, std::int64_t now_ns) noexcept {
  tls_deadline_ns = deadline_ns;
  set_timer_at(deadline_ns);
  tls_rearm_ns = monotonic_ns() - now_ns;
}

}  // namespace

int beat_signal_number() noexcept { return SIGRTMIN + 5; }

// Checked at every pool's construction, not once per process (found by stop 41's bug hunt: a
// handler the program installed after the first signal-delivery pool took weft's beats from every
// later pool, which then promoted nothing, silently).  Installed once, unless the program reset it.
namespace {
std::mutex installing;  // two pools made at once: one check-and-install at a time
}  // namespace

void lock_beat_handler_install() noexcept { installing.lock(); }
void unlock_beat_handler_install() noexcept { installing.unlock(); }

void install_beat_handler() {
  const std::lock_guard lk(installing);
  struct sigaction old {};
  ::sigaction(beat_signal_number(), nullptr, &old);
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_beat) return;  // ours
  const bool foreign = (old.sa_flags & SA_SIGINFO) || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
  if (foreign)
    throw std::runtime_error("weft: signal " + std::to_string(beat_signal_number()) +
                             " (SIGRTMIN+5) has a handler of the program; heartbeat_delivery = signal needs it. Accepted: "
                             "heartbeat_delivery = thread (WEFT_HEARTBEAT_DELIVERY=thread)");
  struct sigaction sa {};
  sa.sa_sigaction = on_beat;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: a beat that lands in a restartable system call (read, write, futex waits, ...)
  // restarts it instead of failing it with EINTR (docs/ARCHITECTURE.md lists the ones that
  // do not restart).
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  ::sigaction(beat_signal_number(), &sa, nullptr);
}

bool beat_timer_prepare() noexcept {
  if (tls_timer.made && tls_timer.fork_generation == current_fork_generation()) return true;
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = beat_signal_number();
  ev._sigev_un._tid = ::gettid();  // this thread alone (sigev_notify_thread_id in the kernel's headers)
  if (::timer_create(CLOCK_MONOTONIC, &ev, &tls_timer.id) != 0) return false;
  tls_timer.made = true;
  tls_timer.fork_generation = current_fork_generation();
  return true;
}

void beat_timer_arm(std::atomic<std::uint64_t>& requested, std::chrono::nanoseconds period) noexcept {
  tls_beat_requested.store(&requested, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the handler sees the counter before a beat
  tls_period = period;
  const std::int64_t now = monotonic_ns();
  arm_timer_at(now + period.count(), now);
}

void beat_timer_rearm() noexcept {
  if (tls_period.count() == 0) return;
  const std::int64_t now = monotonic_ns(), period = tls_period.count();
  std::int64_t next = tls_deadline_ns + period;
  if (next <= now) next = now + period;
  arm_timer_at(std::max(next, now + tls_rearm_ns + period / 2), now);
}

void beat_timer_disarm(bool forget) noexcept {
  if (!tls_timer.made) return;
  tls_period = std::chrono::nanoseconds(0);
  set_timer_at(0);  // an all-zero it_value stops the timer
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (forget) tls_beat_requested.store(nullptr, std::memory_order_relaxed);
}

void beat_signal_unblock() noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, beat_signal_number());
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace weft::detail
