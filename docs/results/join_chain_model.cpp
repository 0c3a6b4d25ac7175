// A model of the never-promoted join's memory traffic, to see where fib's time goes (issue 9;
// docs/results/fine-grained.md, "after").  Not part of the build.  Each fib variant does what a
// weft join does to memory, no more: the poll, the frame's payload and state word, the task-stack
// top, the joins counter, the pop, the promoted test.
//   A  top in thread-local storage, the payload a pointer to n (weft today, with fib's [&] capture)
//   B  as A, the top passed as an argument (Lace's head in a register)
//   C  as A without the joins counter
//   D  as B with n's value in the payload (n never leaves a register)
//   E  as A with n's value in the payload
// Caveat (2026-11-24, fine-grained.md "The first branch's landing pad"): the model has no exception
// landing pad, and its gains from D and E came with code-shape changes (gcc shrink-wraps the base
// case and turns the last call into a loop) that the real join only got once its first branch
// needed no landing pad.  Measured on the real runtime, the top passed in a register gains ≤ 5 %
// (context_join_experiment.patch); n by value with a noexcept first branch gains 21 %.
// Build and run:  g++ -O3 -std=c++20 -fno-inline-functions-called-once docs/results/join_chain_model.cpp -o /tmp/chain && /tmp/chain 38
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
struct alignas(64) frame { std::atomic<std::uintptr_t> state; std::uint8_t marks; void* payload[5]; };
struct hot { std::atomic<unsigned> poll; frame* top; unsigned long joins; };
extern constinit thread_local hot tls __attribute__((tls_model("initial-exec")));
constinit thread_local hot tls{};
static frame frames[256];
void slow(int);
__attribute__((noinline)) void slow(int) { std::abort(); }
// A: top in TLS (weft today)
unsigned long fibA(unsigned n) {
  if (n < 2) return n;
  hot& h = tls;
  if (h.poll.load(std::memory_order_relaxed)) slow(n);
  frame* fr = h.top;
  fr->payload[0] = &n;
  fr->state.store(8, std::memory_order_relaxed);
  h.top = fr + 1; ++h.joins;
  unsigned long a = fibA(n - 1);
  h.top = fr;
  if (fr->marks) slow(n);
  return a + fibA(n - 2);
}
// B: top passed as an argument (Lace)
unsigned long fibB(frame* fr, unsigned n) {
  if (n < 2) return n;
  hot& h = tls;
  if (h.poll.load(std::memory_order_relaxed)) slow(n);
  fr->payload[0] = &n;
  fr->state.store(8, std::memory_order_relaxed);
  ++h.joins;
  unsigned long a = fibB(fr + 1, n - 1);
  if (fr->marks) slow(n);
  return a + fibB(fr, n - 2);
}
// C: as A, no joins counter
unsigned long fibC(unsigned n) {
  if (n < 2) return n;
  hot& h = tls;
  if (h.poll.load(std::memory_order_relaxed)) slow(n);
  frame* fr = h.top;
  fr->payload[0] = &n;
  fr->state.store(8, std::memory_order_relaxed);
  h.top = fr + 1;
  unsigned long a = fibC(n - 1);
  h.top = fr;
  if (fr->marks) slow(n);
  return a + fibC(n - 2);
}
unsigned long fibD(frame* fr, unsigned n) {
  if (n < 2) return n;
  hot& h = tls;
  if (h.poll.load(std::memory_order_relaxed)) slow(n);
  fr->payload[0] = reinterpret_cast<void*>(std::uintptr_t(n));
  fr->state.store(8, std::memory_order_relaxed);
  ++h.joins;
  unsigned long a = fibD(fr + 1, n - 1);
  if (fr->marks) slow(n);
  return a + fibD(fr, n - 2);
}
unsigned long fibE(unsigned n) {
  if (n < 2) return n;
  hot& h = tls;
  if (h.poll.load(std::memory_order_relaxed)) slow(n);
  frame* fr = h.top;
  fr->payload[0] = reinterpret_cast<void*>(std::uintptr_t(n));
  fr->state.store(8, std::memory_order_relaxed);
  h.top = fr + 1; ++h.joins;
  unsigned long a = fibE(n - 1);
  h.top = fr;
  if (fr->marks) slow(n);
  return a + fibE(n - 2);
}
unsigned long fibS(unsigned n) { return n < 2 ? n : fibS(n - 1) + fibS(n - 2); }
template <class F> double t(F f) { auto a = std::chrono::steady_clock::now(); volatile unsigned long r = f(); (void)r; return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count(); }
int main(int argc, char** argv) {
  unsigned n = argc > 1 ? atoi(argv[1]) : 38;
  tls.top = frames;
  for (int i = 0; i < 3; ++i)
    std::printf("S %.3f A %.3f B %.3f C %.3f D %.3f E %.3f\n", t([&] { return fibS(n); }), t([&] { return fibA(n); }), t([&] { return fibB(frames, n); }), t([&] { return fibC(n); }), t([&] { return fibD(frames, n); }), t([&] { return fibE(n); }));
}
