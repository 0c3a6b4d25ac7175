// Deterministic random numbers: splitmix64 (Steele et al., 2014), the same on every platform and
// standard library, so a seed names one schedule everywhere.
#pragma once

#include <cstdint>

namespace weft_sim {

inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return mix64(state_++); }
  // Uniform in [0, n); the modulo bias is below 2^-40 for the n used here (n <= 2^24).
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// A run's second stream (Costs::steal_jitter's and speed_spread's draws): seeded with the run's seed
// mixed with a constant of its own, so that its draws leave the first stream's, and so a seed's
// victim choices, as they were without it.
inline Rng jitter_stream(std::uint64_t seed) { return Rng(mix64(seed ^ 0x6a69747465722121ull)); }  // "jitter!!"

}  // namespace weft_sim
