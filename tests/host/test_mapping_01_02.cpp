// Steps 01 and 02: every element of C is computed by exactly one thread, for many shapes.
#include <gtest/gtest.h>

#include "../../steps/01_naive/mapping.hpp"
#include "../../steps/02_gmem_coalescing/mapping.hpp"
#include "mapping_coverage.hpp"


TEST(Mapping01, EveryElementExactlyOnce) {
  for (const auto& shape : gemm::testing::coverage_shapes()) 
    gemm::testing::check_one_element_per_thread(shape, step01::launch_shape, step01::c_element, step01::a_index,
                                                step01::b_index, step01::c_index);
}

TEST(Mapping02, EveryElementExactlyOnce) {
  for (const auto& shape : gemm::testing::coverage_shapes()) 
    gemm::testing::check_one_element_per_thread(shape, step02::launch_shape, step02::c_element, step02::a_index,
                                                step02::b_index, step02::c_index);
}

TEST(Mapping01, WarpWalksRows) {
  // Lanes 0 and 1 of the first warp: consecutive threadIdx.x -> consecutive rows, same column.
  const gemm::GemmShape s{64, 64, 64};
  const auto e0 = step01::c_element(s, {{0, 0, 1}, {0, 0, 1}});
  const auto e1 = step01::c_element(s, {{0, 0, 1}, {1, 0, 1}});
  EXPECT_EQ(e1.row, e0.row + 1);
  EXPECT_EQ(e1.col, e0.col);
}

TEST(Mapping02, WarpWalksColumns) {
  const gemm::GemmShape s{64, 64, 64};
  const auto e0 = step02::c_element(s, {{0, 0, 1}, {0, 0, 1}});
  const auto e1 = step02::c_element(s, {{0, 0, 1}, {1, 0, 1}});
  EXPECT_EQ(e1.col, e0.col + 1);
  EXPECT_EQ(e1.row, e0.row);
}
