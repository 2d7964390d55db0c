// The program of a bank-conflict demo (steps 03 and 04): for each variant, one checked launch
// (output poisoned first, compared with the mapping's expected values), a timed series of launches,
// and the access model's predicted wavefronts; --json writes them.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "bank_demo.hpp"

namespace gemm {

struct BankDemoDescription {
  std::string name;
  std::string title;
  bank_demo::TileShape tile;
  std::vector<bank_demo::Variant> variants;
  // Launches variant `index` writing W*H*kBlocks ints to `out`.
  std::function<void(int index, int* out, cudaStream_t stream)> launch;
};

int run_bank_demo(int argc, char** argv, const BankDemoDescription& demo);

}  // namespace gemm
