// Deterministic pseudo-random numbers for the partitioner (SplitMix64): identical sequences on
// every platform and compiler, so a mapping is reproducible from its seed.
#pragma once

#include <cstdint>

namespace topocoll::mapping::detail {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Derives independent seeds for independent subproblems (so threads cannot change results).
inline uint64_t combineSeed(uint64_t seed, uint64_t a, uint64_t b) {
  return mix64(seed ^ mix64(a * 0x9e3779b97f4a7c15ULL + b + 1));
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  // Uniform enough in [0, bound): multiply-shift without rejection.
  uint32_t below(uint32_t bound) { return static_cast<uint32_t>(((next() >> 32) * bound) >> 32); }

 private:
  uint64_t state_;
};

}  // namespace topocoll::mapping::detail
