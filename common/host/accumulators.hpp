// Who holds each element of C when a tensor-core step's k-loop ends: the accumulator registers its
// epilogue reads. Each tensor-core step writes it (in its mapping.hpp, warp_accumulators) with the
// same functions its kernel's epilogue calls (accumulator_row/col, fragment_row/col, tile_at...);
// the viewer's thread map draws it and the host tests check that every element of C is held once.
#pragma once

#include <functional>

namespace gemm {

// The instruction whose results a register holds: WMMA's mma_sync (the API leaves the lane layout
// of its fragments unspecified), mma.sync (a documented per-lane layout) or Hopper's wgmma (one
// instruction for a warpgroup of 4 warps).
enum class MmaKind { wmma, mma_sync, wgmma };
struct MmaShape {
  MmaKind kind = MmaKind::wgmma;
  int m = 0, n = 0, k = 0;
};

// One element of C that one lane's register holds.
struct HeldElement {
  int row = 0, col = 0;  // of C; past C's edge where a tile is cut by it (the kernel computes, never stores those)
  int lane = -1;         // -1: WMMA, whose fragments' lane layout the API leaves to the compiler
  // The register, counted as the kernel's accumulator array is laid out: wgmma acc[reg]; mma.sync
  // acc[i][j][r] as (i * J + j) * 4 + r; WMMA the fragment acc[i][j] as i * J + j (a whole fragment,
  // its registers unnamed).
  int reg = 0;
  int frag_i = -1, frag_j = -1;  // mma.sync and WMMA: the warp's fragment acc[i][j] (-1: wgmma)
  int tile = 0;                  // the tile's place in its block's sequence (0 where a block has one tile)
  int tile_m = 0, tile_n = 0;    // the tile's row and column among C's tiles
  MmaShape mma;                  // the instruction that accumulates it (n: narrower for a narrow tile)
  // FP8 promotion: wgmma sums each interval of `promote` k-tiles into registers of its own, which
  // the thread then adds in f32 into the accumulator named here (0: wgmma adds into it directly).
  int promote = 0;
};
using HeldSink = std::function<void(const HeldElement&)>;

}  // namespace gemm
