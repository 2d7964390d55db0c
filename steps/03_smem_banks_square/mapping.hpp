// Step 03, shared-memory banks with a square tile: 32 x 32 ints, a block of 32 x 32 threads.
//
// The index math is common/host/bank_demo.hpp (one definition for steps 03 and 04, the kernels, the
// traces and the viewer); this file chooses the tile and the variants.
#pragma once

#include "bank_demo.hpp"

namespace step03 {

using gemm::bank_demo::Order;
using gemm::bank_demo::Variant;

constexpr gemm::bank_demo::TileShape kTile{32, 32};

constexpr Variant kVariants[] = {
    {"row_row", Order::row, Order::row, false, 0, "store and load tile[ty][tx]: a warp walks a row"},
    {"col_col", Order::column, Order::column, false, 0, "store and load tile[tx][ty]: a warp walks a column"},
    {"row_col", Order::row, Order::transposed, false, 0, "store tile[ty][tx], load tile[tx][ty] (the transpose)"},
    {"dynamic_row_row", Order::row, Order::row, true, 0, "row_row with extern __shared__"},
    {"dynamic_col_col", Order::column, Order::column, true, 0, "col_col with extern __shared__"},
    {"dynamic_row_col", Order::row, Order::transposed, true, 0, "row_col with extern __shared__"},
    {"padded_row_col", Order::row, Order::transposed, false, 1, "row_col, rows padded by 1 word: tile[32][33]"},
    {"padded_dynamic_row_col", Order::row, Order::transposed, true, 1, "padded_row_col with extern __shared__"},
};
constexpr int kVariantCount = int(sizeof(kVariants) / sizeof(kVariants[0]));

inline void trace_warp(int variant, const gemm::Dim3& block, int warp, const gemm::TraceSink& emit) {
  gemm::bank_demo::trace_warp(kTile, kVariants[variant], block, warp, emit);
}

}  // namespace step03
