#include "random.hpp"

namespace gemm {

namespace {
// splitmix64: small, fast, and fully specified.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

void fill_uniform(std::vector<float>& values, std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t state = seed * 0x2545F4914F6CDD1Dull + stream * 0x9E3779B97F4A7C15ull + 1;
  for (float& value : values) {
    // 24 random bits -> [0, 1) exactly representable in float, then to [-1, 1).
    const std::uint64_t bits = splitmix64(state) >> 40;
    value = float(double(bits) * (2.0 / 16777216.0) - 1.0);
  }
}

}  // namespace gemm
