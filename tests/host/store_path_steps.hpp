// The store-path functions of the steps whose kernels are compiled twice, the second time with C
// stored by TMA alone (the steps with has_tma_only_kernel), gathered for hopper_checks.hpp's
// expect_store_path_follows_the_problem: one alias a step, StorePathsNN.
#pragma once

#include "../../steps/20_overlapped_epilogue/mapping.hpp"
#include "../../steps/21_uniform_datapath/mapping.hpp"
#include "../../steps/22_tile_width/mapping.hpp"

namespace gemm::fp8_testing {

template <typename Path, const auto& kConfigTable, auto kStorePath, auto kHasTmaOnlyKernel, auto kUnderNextTile,
          auto kLaunchesTmaOnlyKernel, auto kTmaStoresC>
struct StorePathStep {
  using StorePath = Path;
  static constexpr const auto& kConfigs = kConfigTable;
  static constexpr auto store_path = kStorePath;
  static constexpr auto has_tma_only_kernel = kHasTmaOnlyKernel;
  static constexpr auto epilogue_under_next_tile = kUnderNextTile;
  static constexpr auto launches_tma_only_kernel = kLaunchesTmaOnlyKernel;
  static constexpr auto tma_stores_c = kTmaStoresC;
};

using StorePaths20 = StorePathStep<step20::StorePath, step20::kConfigs, &step20::store_path, &step20::has_tma_only_kernel,
                                   &step20::epilogue_under_next_tile, &step20::launches_tma_only_kernel,
                                   &step20::tma_stores_c>;
using StorePaths21 = StorePathStep<step21::StorePath, step21::kConfigs, &step21::store_path, &step21::has_tma_only_kernel,
                                   &step21::epilogue_under_next_tile, &step21::launches_tma_only_kernel,
                                   &step21::tma_stores_c>;
using StorePaths22 = StorePathStep<step22::StorePath, step22::kConfigs, &step22::store_path, &step22::has_tma_only_kernel,
                                   &step22::epilogue_under_next_tile, &step22::launches_tma_only_kernel,
                                   &step22::tma_stores_c>;

}  // namespace gemm::fp8_testing
