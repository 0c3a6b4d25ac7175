// weft — join, the fast path.  Read this file top to bottom: it is the whole cost of a join that is
// never promoted (SPEC §3): a poll (one load, one branch), three plain stores to push the frame, the
// first branch, one store to pop, one load and branch to see that nobody promoted it, the second
// branch.  Everything else is out of line.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "frame.hpp"
#include "runtime.hpp"

namespace weft {

// The result of a branch that returns void.
struct unit {
  friend constexpr bool operator==(unit, unit) noexcept { return true; }
};

template <class F, class G>
auto join(F&& f, G&& g);

namespace detail {

template <class F>
using ret_t = std::conditional_t<std::is_void_v<std::invoke_result_t<F&>>, unit,
                                 std::remove_cvref_t<std::invoke_result_t<F&>>>;

template <class F>
WEFT_INLINE ret_t<F> call(F& f) {
  if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
    f();
    return unit{};
  } else {
    return f();
  }
}

// The second branch of a join as a thief sees it: the closure, and room for its result.
template <class G>
struct join_record {
  using result_type = ret_t<G>;
  G* g;
  alignas(result_type) unsigned char result[sizeof(result_type)];

  result_type& value() noexcept { return *std::launder(reinterpret_cast<result_type*>(result)); }

  // Runs on a thief (WOOL Fig. 3 wrap_f): the result goes into the owner's record.
  WEFT_TASK_FN static void run(frame* fr) {
    auto* rec = static_cast<join_record*>(fr->job.load(std::memory_order_relaxed));
    try {
      ::new (static_cast<void*>(rec->result)) result_type(call(*rec->g));
    } catch (...) {
      fr->error = std::current_exception();
    }
  }
};

// Push: plain stores only.  The state store is a release so that, under Wool's protocol, a thief
// that reads TASK(w) also sees `job` (WOOL §I.a: "the write which makes the task stealable is the
// last write"); on x86 a release store is an ordinary mov.
WEFT_INLINE void push(hot_state& h, frame* fr, void* job, task_fn run) noexcept {
  fr->job.store(job, std::memory_order_relaxed);
  fr->state.store(task_state::task(run), std::memory_order_release);
  h.top = fr + 1;
  ++h.joins;
}

// The join of a promoted frame: out of line, it costs synchronization with thieves anyway.
template <class A, class G>
WEFT_NOINLINE std::pair<A, ret_t<G>> join_promoted(hot_state& h, frame* fr, join_record<G>& rec,
                                                   A&& a, G& g) {
  if (reclaim(h, fr) == reclaimed::run_inline) return {std::move(a), call(g)};
  if (fr->error) {
    std::exception_ptr e = std::move(fr->error);
    fr->error = nullptr;
    std::rethrow_exception(e);
  }
  std::pair<A, ret_t<G>> out{std::move(a), std::move(rec.value())};
  rec.value().~ret_t<G>();
  return out;
}

// After the push: run the first branch, pop, and run the second inline unless it was promoted.
template <class F, class G>
WEFT_INLINE std::pair<ret_t<F>, ret_t<G>> join_pushed(hot_state& h, frame* fr, join_record<G>& rec,
                                                      F& f, G& g) {
  ret_t<F> a = [&] {
    try {
      return call(f);
    } catch (...) {
      h.top = fr;
      if (fr->promoted && abandon(h, fr) && !fr->error)
        rec.value().~ret_t<G>();
      fr->error = nullptr;
      throw;
    }
  }();
  h.top = fr;
  if (fr->promoted) [[unlikely]]
    return join_promoted(h, fr, rec, std::move(a), g);
  return {std::move(a), call(g)};
}

template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_external(F& f, G& g);

// A poll found a reason to leave the fast path: not a worker, or the policy wants to look.
template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_slow(F& f, G& g) {
  hot_state& h = tls_hot;
  if (h.self == nullptr) return join_external(f, g);
  join_record<G> rec{&g};
  frame* fr = h.top;
  push(h, fr, &rec, &join_record<G>::run);
  on_poll(h, fr);
  return join_pushed(h, fr, rec, f, g);
}

}  // namespace detail

// f runs first on this worker; g is latent work that the policy may make stealable.
// Returns both results as a std::pair; a void branch gives weft::unit.
template <class F, class G>
WEFT_INLINE auto join(F&& f, G&& g) {
  using namespace detail;
  using Fn = std::remove_reference_t<F>;
  using Gn = std::remove_reference_t<G>;
  hot_state& h = tls_hot;
  if (h.poll.load(std::memory_order_relaxed)) [[unlikely]]
    return join_slow<Fn, Gn>(f, g);
  join_record<Gn> rec{&g};
  frame* fr = h.top;
  push(h, fr, &rec, &join_record<Gn>::run);
  return join_pushed<Fn, Gn>(h, fr, rec, f, g);
}

}  // namespace weft
