// Step 04, shared-memory banks with a rectangular tile: 32 ints wide x 16 high, a block of 32 x 16
// threads.
//
// Read transposed, the tile is 16 wide: consecutive lanes step down a column of the stored tile,
// 32 words apart, and the two half-warps read two neighbouring columns. With no padding each half
// lands in one bank (16-way conflict); one word of padding spreads the column over 16 banks but the
// two halves now overlap (2-way); two words put one half on even banks and the other on odd banks.
// The index math is common/host/bank_demo.hpp; this file chooses the tile and the variants.
#pragma once

#include "bank_demo.hpp"

namespace step04 {

using gemm::bank_demo::Order;
using gemm::bank_demo::Variant;

constexpr gemm::bank_demo::TileShape kTile{32, 16};

constexpr Variant kVariants[] = {
    {"row_row", Order::row, Order::row, false, 0, "store and load tile[ty][tx]: a warp walks a row"},
    {"col_col", Order::column, Order::column, false, 0, "the tile stored column-major, tile[32][16]: tile[tx][ty]"},
    {"row_col", Order::row, Order::transposed, false, 0, "store tile[ty][tx], load the transpose"},
    {"dynamic_row_row", Order::row, Order::row, true, 0, "row_row with extern __shared__"},
    {"dynamic_col_col", Order::column, Order::column, true, 0, "col_col with extern __shared__"},
    {"dynamic_row_col", Order::row, Order::transposed, true, 0, "row_col with extern __shared__"},
    {"padded1_row_col", Order::row, Order::transposed, false, 1, "row_col, rows padded by 1 word: tile[16][33]"},
    {"padded1_dynamic_row_col", Order::row, Order::transposed, true, 1, "padded1_row_col with extern __shared__"},
    {"padded2_row_col", Order::row, Order::transposed, false, 2, "row_col, rows padded by 2 words: tile[16][34]"},
    {"padded2_dynamic_row_col", Order::row, Order::transposed, true, 2, "padded2_row_col with extern __shared__"},
};
constexpr int kVariantCount = int(sizeof(kVariants) / sizeof(kVariants[0]));

inline void trace_warp(int variant, const gemm::Dim3& block, int warp, const gemm::TraceSink& emit) {
  gemm::bank_demo::trace_warp(kTile, kVariants[variant], block, warp, emit);
}

}  // namespace step04
