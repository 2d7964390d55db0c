// Seeded random inputs, uniform in [-1, 1]. The same seed gives the same matrices on every machine
// (a fixed generator and a fixed conversion, no std::uniform_real_distribution whose output is
// implementation-defined).
#pragma once

#include <cstdint>
#include <vector>

namespace gemm {

// Fills `values` with uniform numbers in [-1, 1] from a stream identified by (seed, stream).
void fill_uniform(std::vector<float>& values, std::uint64_t seed, std::uint64_t stream);

}  // namespace gemm
