// Integer mixers shared by the hash tables and the deterministic choices (seeded generators,
// per-read ranks, the QD jitter): defined once.
#pragma once

#include <cstdint>

namespace gpp {

/// splitmix64 (Steele, Lea, Flood 2014): the output for a generator whose state is `state`
/// before the step (the state advances by 0x9E3779B97F4A7C15 per output).
constexpr std::uint64_t splitmix64(std::uint64_t state) {
  std::uint64_t z = state + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The golden-ratio increment of splitmix64's state.
inline constexpr std::uint64_t kSplitmix64Gamma = 0x9E3779B97F4A7C15ULL;

/// MurmurHash3's 64-bit finaliser (fmix64): every input bit reaches every output bit.
constexpr std::uint64_t murmur3_fmix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace gpp
