// The shared-memory bank demos (steps 03 and 04): the index math of a tile of ints written and read
// by a block of W x H threads (thread (tx, ty), tx fastest), shared by the kernels, the traces, the
// host tests and the viewer.
//
// A variant's array: H rows of W + pad ints (tile[H][W + pad]), or, for the column-major variants,
// W rows of H ints (tile[W][H]). Each order names the cell (row, column) of that array a thread
// touches:
//   row        thread (tx, ty) -> tile[ty][tx]                  (a warp walks a row: 32 banks)
//   column     thread (tx, ty) -> tile[tx][ty] of tile[W][H]    (the tile stored column-major)
//   transposed idx = ty*W + tx, r = idx / H, c = idx % H -> tile[c][r]
//              (reading the tile as its transpose; for a square tile this is tile[tx][ty])
// The static variants declare the 2-D array and index it tile[row][col]; the dynamic variants get a
// flat extern __shared__ array and index it with word_index = row * row_stride + col, the word the
// compiler computes for the 2-D array. Both touch the same words, hence the same banks.
#pragma once

#include "hd.hpp"
#include "trace.hpp"

namespace gemm::bank_demo {

enum class Order { row, column, transposed };

struct Variant {
  const char* name;
  Order store, load;
  bool dynamic;  // extern __shared__ (size at launch) instead of a static array
  int pad;       // extra words per tile row
  const char* what;
};

struct TileShape {
  int width, height;  // W, H: threads per block along x and y, ints per tile row and column
};

// Repetitions of {store, barrier, load, barrier} inside the kernel, so that the loop of shared
// accesses and barriers, not the launch and the final store, dominates the time.
constexpr int kRepeats = 64;
// Blocks per launch: each writes its own W x H part of the output.
constexpr int kBlocks = 2048;

// A cell of the variant's array: tile[row][col].
struct Cell {
  int row, col;
};

// Whether the variant stores the tile column-major (its array is then tile[W][H], one row per
// column of the tile). Its store and load orders are then both Order::column.
GEMM_HD constexpr bool column_major(const Variant& v) { return v.store == Order::column; }
GEMM_HD constexpr bool orders_share_one_array(const Variant& v) {
  return (v.store == Order::column) == (v.load == Order::column);
}

// The declared shape of the variant's array: rows, and ints per row (the row stride, padding included).
GEMM_HD constexpr int array_rows(const TileShape& tile, const Variant& v) {
  return column_major(v) ? tile.width : tile.height;
}
GEMM_HD constexpr int row_stride(const TileShape& tile, const Variant& v) {
  return (column_major(v) ? tile.height : tile.width) + v.pad;
}

// Words of the array (the dynamic variants ask for this many ints at launch).
GEMM_HD constexpr int tile_words(const TileShape& tile, const Variant& v) {
  return array_rows(tile, v) * row_stride(tile, v);
}

// The cell of the array that thread (tx, ty) touches in this order.
GEMM_HD constexpr Cell cell(const TileShape& tile, Order order, int tx, int ty) {
  switch (order) {
    case Order::row: return {ty, tx};
    case Order::column: return {tx, ty};
    case Order::transposed: {
      const int idx = ty * tile.width + tx;
      return {idx % tile.height, idx / tile.height};
    }
  }
  return {0, 0};
}

// The word of a cell in the row-major array: what tile[row][col] compiles to, and what the dynamic
// variants compute themselves.
GEMM_HD constexpr int word_index(const TileShape& tile, const Variant& v, const Cell& at) {
  return at.row * row_stride(tile, v) + at.col;
}
GEMM_HD constexpr int word_index(const TileShape& tile, const Variant& v, Order order, int tx, int ty) {
  return word_index(tile, v, cell(tile, order, tx, ty));
}

// The value thread (tx, ty) stores at repetition r: unique per word and repetition, so that the
// host can tell which word a thread read.
GEMM_HD constexpr int stored_value(int word, int repetition) { return word * kRepeats + repetition; }

// What thread (tx, ty) writes to the output: the sum over repetitions of what it loaded.
GEMM_HD constexpr int expected_output(const TileShape& tile, const Variant& v, int tx, int ty) {
  const int word = word_index(tile, v, v.load, tx, ty);
  return word * kRepeats * kRepeats + kRepeats * (kRepeats - 1) / 2;
}

// Where thread (tx, ty) of block b writes its result: coalesced, one int per thread.
GEMM_HD constexpr int output_index(const TileShape& tile, int block, int tx, int ty) {
  return (block * tile.height + ty) * tile.width + tx;
}

// The launch: kBlocks blocks of W x H threads; dynamic variants ask for the tile at launch.
inline LaunchShape launch_shape(const TileShape& tile, const Variant& v) {
  LaunchShape launch;
  launch.grid = {kBlocks, 1, 1};
  launch.block = {tile.width, tile.height, 1};
  launch.shared_bytes = v.dynamic ? tile_words(tile, v) * int(sizeof(int)) : 0;
  return launch;
}

// One warp's instructions in program order: kRepeats x {st.shared, ld.shared}, then st.global.
inline void trace_warp(const TileShape& tile, const Variant& v, const Dim3& block, int warp, const TraceSink& emit) {
  const WarpLanes lanes = warp_lanes(launch_shape(tile, v).block, block, warp);
  auto thread = [&](int lane) { return lanes.coord[size_t(lane)].thread; };
  for (int r = 0; r < kRepeats; ++r) {
    emit(make_instruction(Space::shared, Access::store, Operand::tile, 4, r, "st.shared tile[store word]", lanes.exists,
                          [&](int lane) { return word_index(tile, v, v.store, thread(lane).x, thread(lane).y); }));
    emit(make_instruction(Space::shared, Access::load, Operand::tile, 4, r, "ld.shared tile[load word]", lanes.exists,
                          [&](int lane) { return word_index(tile, v, v.load, thread(lane).x, thread(lane).y); }));
  }
  emit(make_instruction(Space::global, Access::store, Operand::out, 4, kRepeats, "st.global out[...]", lanes.exists,
                        [&](int lane) { return output_index(tile, block.x, thread(lane).x, thread(lane).y); }));
}

}  // namespace gemm::bank_demo
