// The FP8 steps' functions that the checks "this step keeps the step before's grid and trace"
// compare (hopper_checks.hpp: expect_same_dealing, expect_same_traces), one struct per step, for
// test_mapping_20.cpp .. test_mapping_22.cpp; and the store-path functions of the steps with
// TMA-only twins (expect_store_path_follows_the_problem).
#pragma once

#include "../../steps/19_fp8/mapping.hpp"
#include "../../steps/20_overlapped_epilogue/mapping.hpp"
#include "../../steps/21_uniform_datapath/mapping.hpp"
#include "../../steps/22_tile_width/mapping.hpp"

namespace gemm::fp8_testing {

template <typename Config, const auto& kConfigTable, auto kLaunchShape, auto kSharedBytes, auto kUnits, auto kTileAt,
          auto kToParams, auto kTraceLaunchShape, auto kTraceWarp>
struct Fp8Step {
  using ConfigType = Config;
  static constexpr const auto& kConfigs = kConfigTable;
  static constexpr auto launch_shape = kLaunchShape;
  static constexpr auto shared_bytes = kSharedBytes;
  static constexpr auto units = kUnits;
  static constexpr auto tile_at = kTileAt;
  static Params to_params(const Config& c) { return kToParams(c, Params{}); }
  static constexpr auto trace_launch_shape = kTraceLaunchShape;
  static constexpr auto trace_warp = kTraceWarp;
};

using Step19 = Fp8Step<step19::Config, step19::kConfigs, &step19::launch_shape, &step19::shared_bytes, &step19::units,
                       &step19::tile_at, &step19::to_params, &step19::trace_launch_shape, &step19::trace_warp>;
using Step20 = Fp8Step<step20::Config, step20::kConfigs, &step20::launch_shape, &step20::shared_bytes, &step20::units,
                       &step20::tile_at, &step20::to_params, &step20::trace_launch_shape, &step20::trace_warp>;
using Step21 = Fp8Step<step21::Config, step21::kConfigs, &step21::launch_shape, &step21::shared_bytes, &step21::units,
                       &step21::tile_at, &step21::to_params, &step21::trace_launch_shape, &step21::trace_warp>;
using Step22 = Fp8Step<step22::Config, step22::kConfigs, &step22::launch_shape, &step22::shared_bytes, &step22::units,
                       &step22::tile_at, &step22::to_params, &step22::trace_launch_shape, &step22::trace_warp>;

// The store-path functions of the steps whose kernels are compiled twice (a TMA-only twin), for
// hopper_checks.hpp's expect_store_path_follows_the_problem.
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
