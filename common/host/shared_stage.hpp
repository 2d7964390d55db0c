// What a step puts in one stage of shared memory, for the viewer's shared-memory panel and the host
// tests (plain C++). Each step that stages tiles fills a SharedStage from its own mapping functions
// (steps/shared_stages.hpp, registered in the step's steps/NN_name/traced.hpp): where each element
// of the A and B tiles lies in the stage, and for the Hopper steps the TMA boxes that copy a k-tile
// into it and the wgmma descriptors that read it.
//
// Addresses are bytes of the block's dynamic shared buffer as the step's trace addresses it (the
// trace's shared operand, smem_A or smem_B), stage s at s * stage_bytes. The Hopper steps align the
// buffer to the swizzle's 1024-byte period; here it starts at 0, which is what that alignment makes
// equivalent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace.hpp"

namespace gemm {

// One operand's tile in a stage: element (mn, k) is row mn of A's tile (or column mn of B's) at k
// within the k-tile.
struct StagedTile {
  Operand operand = Operand::A;  // A or B
  int mn = 0, k = 0;             // the tile: BM (A) or BN (B) by BK
  int element_bytes = 2;
  bool k_major = true;           // the tile's rows in shared memory run along k (else along m or n)
  long long offset = 0;          // its first byte in stage 0
  long long bytes = 0;           // its extent, padding included
  std::vector<int> byte_of;      // element (mn, k) at offset + byte_of[mn * k_extent + k] (+ the stage's)
  std::string arrangement;       // how the step lays it out, for the caption
  int byte(int row, int col) const { return byte_of[size_t(row) * size_t(k) + size_t(col)]; }
};

// One TMA copy of a k-tile: a box of the stored matrix (inner runs along its rows), landing at
// `landing` bytes into the operand's tile with the 128-byte swizzle (hopper_shared.hpp).
struct TmaBoxCopy {
  Operand operand = Operand::A;
  int box = 0;                    // its index in the tile
  int inner0 = 0, outer0 = 0;     // its first element in the stored matrix (column, row)
  int inner = 0, outer = 0;       // its extent in elements
  int stored_inner = 0, stored_outer = 0;  // the stored matrix: elements beyond it are written as zeros
  long long landing = 0;          // bytes from the tile's start
  int bytes = 0;                  // the box's bytes in shared memory
  int swizzle_span = 128;         // its rows' bytes, which the swizzle permutes (32 for step 26's tail box)
  int issuer = 0;                 // the cluster rank of the block that issues it
  int multicast = 1;              // the blocks it is written into (B's boxes in a cluster: every block of it)
  int mn0 = 0, k0 = 0;            // the tile's first element in (m or n, k) of the whole problem
  bool k_major = true;            // inner runs along k
};

// One wgmma k-step's read of an operand: the descriptor the kernel builds for it.
struct WgmmaRead {
  Operand operand = Operand::A;
  int consumer = 0;               // the consumer warpgroup (A: its 64 rows; B: every consumer reads it all)
  int k_step = 0;
  std::uint64_t descriptor = 0;   // start address relative to the stage buffer
  bool k_major = true;
  int mn0 = 0, rows = 64;         // the tile rows it reads: 64 of A, BN of B (64 for a narrow tile)
  int k0 = 0, k = 16;             // the k's of the k-tile it reads (32 bytes of each row)
  std::string how;                // how the kernel forms the descriptor, for the panel
};

struct SharedStage {
  int stages = 1;
  long long stage_bytes = 0;      // stage s starts at s * stage_bytes
  int k_tiles = 1;                // of the problem
  int stage = 0;                  // the stage the asked k-tile lands in
  std::vector<StagedTile> tiles;  // A's, then B's
  std::vector<TmaBoxCopy> boxes;  // TMA steps: the copies of the asked k-tile for the block's tile
  std::vector<WgmmaRead> reads;   // wgmma steps: every k-step of that stage, per consumer
  std::string tile_text;          // which tile of C the block's copies are for ("" without TMA)
};

}  // namespace gemm
