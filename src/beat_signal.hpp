// weft — heartbeat delivery by signal (config::heartbeat_delivery = signal; HB §2 asks for a beat
// every N us, and HB §4 discusses interrupt-based delivery): each thread that runs the heartbeat
// policy's work owns a one-shot POSIX timer (CLOCK_MONOTONIC, N us, re-armed by the poll that
// takes the beat: beat_timer_rearm) that sends the signal
// beat_signal_number() to that thread alone (SIGEV_THREAD_ID).  The handler sets the heartbeat bit
// of the thread's own poll word and counts the beat; the thread's next poll promotes (sched_deque.cpp).
// Unlike the timer thread (heartbeat.cpp) no third thread has to be scheduled for a beat to be
// sent: the kernel's timer interrupt queues it and the thread takes it on its next return to user
// space.  Who arms and disarms: docs/PROTOCOLS.md section 6b.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace weft::detail {

// The real-time signal the beats use (SIGRTMIN + 5).
int beat_signal_number() noexcept;

// Installs the process's handler for beat_signal_number() (once per process; it stays installed,
// so that a beat still pending when a timer stops finds a handler).  Throws std::runtime_error when
// the program has its own handler for that signal.
void install_beat_handler();
// The lock install_beat_handler holds, held across fork() with weft's other locks (global_pool.cpp):
// a fork while another thread installed left it locked in the child, whose first signal-delivery
// pool then waited for ever (stop 44's hunt).  It takes no other lock while held.
void lock_beat_handler_install() noexcept;
void unlock_beat_handler_install() noexcept;

// The calling thread's timer, made on first use and deleted when the thread exits.  False (errno
// set) when the kernel gives no timer.
bool beat_timer_prepare() noexcept;

// Sends the calling thread a beat `period` from now (its timer must be prepared; one-shot, see
// beat_timer_rearm) and remembers `period` for the re-arms; each beat sets
// the heartbeat bit of this thread's poll word (tls_hot) and adds to `requested` the timer's
// expirations since the last beat (1 + the overrun: expirations merged while the signal pended).
void beat_timer_arm(std::atomic<std::uint64_t>& requested, std::chrono::nanoseconds period) noexcept;

// The timer is one-shot: the poll that takes a beat, after its promotion (or the steal that clears
// one), calls this to send the next one a period after the last expiry it was armed for (a period
// from now if that is already past), so the beats keep the period on average — but at least half a
// period from now, so that the worker's own work separates two beats however long one took to
// handle (HB §3's work bound).  Nothing when the timer is disarmed.
void beat_timer_rearm() noexcept;

// Stops the calling thread's timer.  A beat already pending is taken on this call's return from
// the kernel, before it returns: after it, no beat of this timer reaches the thread.  `requested`
// stays the counter a stray beat would count in (a test sees it), unless `forget`.
void beat_timer_disarm(bool forget = false) noexcept;

// Unblocks beat_signal_number() on the calling thread (a worker inherits its creator's mask).
void beat_signal_unblock() noexcept;

}  // namespace weft::detail
