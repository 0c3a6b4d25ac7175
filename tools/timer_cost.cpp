// weft-timer-cost — what a periodic timer thread costs threads that hold every core (issue 9: "a
// beat must not need a core of its own").  No weft inside: THREADS threads each compute a naive
// fib(N) (one per core by default), alone and beside a thread that sleeps until a deadline every
// PERIOD us and does nothing else — the heartbeat's timer thread with no beat to send.  The two
// configurations alternate, RUNS times; printed: the medians, their ratio, and the busy threads' time
// lost per wake-up of the timer ((ratio - 1) * time * THREADS / wake-ups).  On the 2-core VMs a
// wake-up that lands on a busy core costs it tens of microseconds (docs/results/heartbeat-delivery.md),
// which is why heartbeat_delivery = spare sends no beat from the timer while every core runs a busy
// worker (src/heartbeat.cpp).
//
//   weft-timer-cost [RUNS] [PERIOD_US] [THREADS] [FIB_N]
#include <sched.h>
#include <sys/prctl.h>

#include "args.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace {

long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

long fib_iterative(long n) {
  long a = 0, b = 1;
  for (long i = 0; i < n; ++i) b = std::exchange(a, b) + b;
  return a;
}

struct sample {
  double seconds;
  long wakeups;
};

// THREADS threads compute fib(n); with a timer thread waking every `period` when period > 0.  The
// timer waits as heartbeat.cpp's does (a condition variable's wait_until, 1 us timer slack).
sample one_run(unsigned threads, long n, std::chrono::microseconds period) {
  std::atomic<bool> stop{false};
  std::atomic<long> wakeups{0}, sink{0};
  std::mutex m;
  std::condition_variable cv;
  std::thread timer;
  if (period.count() > 0)
    timer = std::thread([&] {
#ifdef PR_SET_TIMERSLACK
      ::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
#endif
      auto next = std::chrono::steady_clock::now();
      std::unique_lock lk(m);
      while (!stop.load()) {
        next += period;
        cv.wait_until(lk, next, [&] { return stop.load(); });
        wakeups.fetch_add(1, std::memory_order_relaxed);
      }
    });
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> busy;
  for (unsigned i = 0; i < threads; ++i) busy.emplace_back([&] { sink += fib(n); });
  for (auto& t : busy) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  {
    std::lock_guard lk(m);
    stop = true;
  }
  cv.notify_all();
  if (timer.joinable()) timer.join();
  if (sink.load() != long(threads) * fib_iterative(n)) std::abort();  // the work is checked, so it is done
  return {secs, wakeups.load()};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? unsigned(CPU_COUNT(&set)) : 1u;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 0;
  std::chrono::microseconds period{};
  unsigned threads = 0;
  long n = 0;
  try {
    if (argc > 5) throw std::invalid_argument("at most four arguments");
    runs = tools::number_or(argc, argv, 1, "RUNS", 7, 1, 100000);
    period = std::chrono::microseconds(tools::number_or(argc, argv, 2, "PERIOD_US", 40L, 1L, 100'000'000L));
    threads = tools::number_or(argc, argv, 3, "THREADS", usable_cpus(), 1u, 4096u);
    n = tools::number_or(argc, argv, 4, "FIB_N", 38L, 1L, 50L);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "weft-timer-cost: %s\n", e.what());
    std::fprintf(stderr, "usage: weft-timer-cost [RUNS>=1] [PERIOD_US>=1] [THREADS>=1] [FIB_N 1..50]\n");
    return 2;
  }
  std::vector<double> alone, beside, wakes;
  for (int r = 0; r < runs; ++r) {
    alone.push_back(one_run(threads, n, std::chrono::microseconds(0)).seconds);
    const sample s = one_run(threads, n, period);
    beside.push_back(s.seconds);
    wakes.push_back(double(s.wakeups));
  }
  const double a = median(alone), b = median(beside), w = median(wakes);
  std::printf("%u busy threads on %u usable CPUs, fib(%ld) each, %d alternating runs (medians):\n", threads,
              usable_cpus(), n, runs);
  std::printf("  alone                      %.4f s\n", a);
  std::printf("  beside a %ld us timer thread %.4f s  (%.0f wake-ups)  ratio %.3f\n", long(period.count()), b, w, b / a);
  std::printf("  busy threads' time lost per wake-up: %.1f us\n", w > 0 ? (b - a) * threads / w * 1e6 : 0.0);
  return 0;
}
