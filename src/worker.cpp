// weft — a worker's construction, and the thread-local hot state each worker thread runs on.
#include "pool_runtime.hpp"

namespace weft::detail {

constinit thread_local hot_state tls_hot __attribute__((tls_model(WEFT_TLS_MODEL)));

worker::worker(runtime* owner, unsigned idx, std::size_t capacity)
    : rt(owner), index(idx), stack(capacity), base(stack.begin()),
      rng(0x9E3779B97F4A7C15ull * (idx + 1)) {
  ledger.eager_peak_end = stack.begin();
}

}  // namespace weft::detail
