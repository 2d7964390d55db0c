// Step 14: the kernel's index functions, run on the host against the documented behaviour of the
// instructions they feed (PTX ISA): cp.async copies whole chunks into the swizzled tiles,
// ldmatrix (.trans) hands each lane the elements mma.m16n8k16 expects, and the accumulator layout
// puts every result where C wants it. Emulating a whole block with them must give the product;
// the swizzle must leave every ldmatrix matrix and every quarter-warp of copies conflict-free.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "../../steps/14_mma_ldmatrix/mapping.hpp"
#include "pipeline_checks.hpp"

namespace {

using gemm::GemmShape;
using gemm::Layout;
using step14::Config;
using step14::OperandTile;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

// Stored matrices whose values code their logical position.
float a_value(int m, int k) { return float((m * 7 + k * 3) % 11) - 5.0f; }
float b_value(int k, int n) { return float((k * 5 + n * 2) % 13) - 6.0f; }

struct Problem {
  GemmShape s;
  Layout layout;
  std::vector<float> a, b;  // as stored
  Problem(GemmShape shape, Layout l) : s(shape), layout(l) {
    const step14::Stored as = step14::a_stored(s, l), bs = step14::b_stored(s, l);
    a.resize(size_t(as.rows) * as.cols);
    b.resize(size_t(bs.rows) * bs.cols);
    for (int r = 0; r < as.rows; ++r)
      for (int c = 0; c < as.cols; ++c) a[size_t(r) * as.cols + c] = l == Layout::tn ? a_value(c, r) : a_value(r, c);
    for (int r = 0; r < bs.rows; ++r)
      for (int c = 0; c < bs.cols; ++c) b[size_t(r) * bs.cols + c] = l == Layout::nt ? b_value(c, r) : b_value(r, c);
  }
};

// cp.async of one operand tile for k-tile kt, as the kernel issues it (thread t: copies t, t + threads, ...).
std::vector<float> copy_tile(const OperandTile& t, const step14::Stored& st, const std::vector<float>& matrix,
                             int mn_origin, const Config& c, int kt) {
  std::vector<float> tile(size_t(step14::tile_elements(t)), NAN);
  for (int index = 0; index < step14::tile_chunks(t); ++index) {
    const step14::Copy copy = step14::copy_at(t, mn_origin, index);
    const bool inside = step14::copy_inside(t, copy, st, c, kt);
    const long long source = step14::copy_source(t, copy, st, c, kt);
    for (int e = 0; e < step14::kChunk; ++e) {
      float& slot = tile[size_t(step14::tile_offset(t, copy.row, copy.chunk) + e)];
      EXPECT_TRUE(std::isnan(slot)) << "two copies write one element";
      slot = inside ? matrix[size_t(source + e)] : 0.0f;
    }
  }
  for (float v : tile) EXPECT_FALSE(std::isnan(v)) << "an element of the tile is never written";
  return tile;
}

// ldmatrix.x4 (PTX ISA): lanes 8j..8j+7 give the rows of matrix j; lane t receives, in register j,
// elements 2(t%4) and 2(t%4)+1 of row t/4; with .trans, element t/4 of rows 2(t%4) and 2(t%4)+1.
struct Registers {
  float v[32][4][2];
};
Registers ldmatrix_x4(const std::vector<float>& tile, const OperandTile& t, bool trans,
                      step14::Spot (*spot)(bool, int, int, int), int origin, int k0) {
  int row_start[32];
  for (int lane = 0; lane < 32; ++lane) {
    const step14::Spot s = spot(t.k_major, origin, k0, lane);
    row_start[lane] = step14::tile_offset(t, s.row, s.chunk);
  }
  Registers r{};
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < 4; ++j)
      for (int h = 0; h < 2; ++h) {
        const int row = trans ? 2 * (lane % 4) + h : lane / 4, col = trans ? lane / 4 : 2 * (lane % 4) + h;
        r.v[lane][j][h] = tile[size_t(row_start[8 * j + row] + col)];
      }
  return r;
}

// The mma.m16n8k16 fragments (PTX ISA): lane t, g = t/4, q = t%4.
// A: a0 (g, 2q..), a1 (g+8, 2q..), a2 (g, 2q+8..), a3 (g+8, 2q+8..); B: b0 (k 2q.., n g), b1 (k 2q+8.., n g).
float a_fragment_element(const Registers& r, int m, int k) {
  const int lane = (m % 8) * 4 + (k % 8) / 2, reg = (m / 8) + 2 * (k / 8);
  return r.v[lane][reg][k % 2];
}
float b_fragment_element(const Registers& r, int pair_tile, int k, int n) {  // n < 8 within n8 tile pair_tile
  const int lane = n * 4 + (k % 8) / 2, reg = 2 * pair_tile + k / 8;
  return r.v[lane][reg][k % 2];
}

void emulate_block(const Config& c, GemmShape s, Layout layout, int block_m, int block_n) {
  const Problem p(s, layout);
  const OperandTile at = step14::a_tile(layout, c), bt = step14::b_tile(layout, c);
  const step14::Stored as = step14::a_stored(s, layout), bs = step14::b_stored(s, layout);
  std::vector<double> acc(size_t(c.bm) * c.bn, 0.0);
  for (int kt = 0; kt < step14::k_tiles(s, c); ++kt) {
    const std::vector<float> a_tile = copy_tile(at, as, p.a, block_m * c.bm, c, kt);
    const std::vector<float> b_tile = copy_tile(bt, bs, p.b, block_n * c.bn, c, kt);
    for (int warp = 0; warp < step14::warps(c); ++warp)
      for (int kk = 0; kk < c.bk; kk += step14::kMmaK)
        for (int i = 0; i < c.wm / step14::kMmaM; ++i) {
          const int m0 = step14::fragment_row(warp, c, i);
          const Registers a = ldmatrix_x4(a_tile, at, !at.k_major, step14::a_ldmatrix_spot, m0, kk);
          for (int j = 0; j < c.wn / step14::kMmaN; ++j) {
            const int n0 = step14::fragment_col(warp, c, j);
            const Registers b = ldmatrix_x4(b_tile, bt, !bt.k_major, step14::b_ldmatrix_spot,
                                            step14::fragment_col(warp, c, j - j % 2), kk);
            for (int lane = 0; lane < 32; ++lane)
              for (int reg = 0; reg < 4; ++reg) {
                const int row = step14::accumulator_row(lane, reg), col = step14::accumulator_col(lane, reg);
                double sum = 0;
                for (int k = 0; k < step14::kMmaK; ++k)
                  sum += double(a_fragment_element(a, row, k)) * b_fragment_element(b, j % 2, k, col);
                acc[size_t(m0 + row) * c.bn + n0 + col] += sum;
              }
          }
        }
  }
  for (int m = 0; m < c.bm; ++m)
    for (int n = 0; n < c.bn; ++n) {
      const int gm = block_m * c.bm + m, gn = block_n * c.bn + n;
      double want = 0;
      if (gm < s.m && gn < s.n)
        for (int k = 0; k < s.k; ++k) want += double(a_value(gm, k)) * b_value(k, gn);
      ASSERT_EQ(acc[size_t(m) * c.bn + n], want) << gemm::to_string(layout) << " block " << block_m << "," << block_n
                                                 << " element " << m << "," << n;
    }
}

// Bank groups (16 bytes = 4 banks) of the 8 rows one ldmatrix matrix reads, or one quarter-warp's chunks.
int distinct_bank_groups(const std::vector<int>& element_offsets) {
  std::set<int> groups;
  for (int offset : element_offsets) groups.insert((offset * step14::kElementBytes / 16) % 8);
  return int(groups.size());
}

}  // namespace

TEST(Mapping14, EmulatedBlocksComputeTheProduct) {
  const Config small = {64, 64, 64, 32, 32, 3};
  for (const Config& wide : {step14::kConfigs[0], step14::kConfigs[1]})  // BK 64 and BK 32
    for (Layout layout : kLayouts) {
      // Ragged edges in M and N (as the shape rule allows per layout) and K past one k-tile.
      emulate_block(small, {72, 136, 136}, layout, 1, 2);
      emulate_block(wide, {136, 264, 40}, layout, 1, 1);
      emulate_block(wide, {128, 256, 96}, layout, 0, 0);
    }
}

TEST(Mapping14, ConfigurationForTheGpuFitsItsSharedMemory) {
  constexpr int kH100 = 232448, kA100 = 166912, kSm86 = 101376;  // opt-in bytes per block
  EXPECT_TRUE(step14::config_for_gpu(kH100) == step14::kConfigs[0]);
  EXPECT_GT(step14::shared_bytes(step14::kConfigs[0]), kA100);  // the default needs an H100
  for (int limit : {kA100, kSm86}) {
    const Config c = step14::config_for_gpu(limit);
    EXPECT_LE(step14::shared_bytes(c), limit);
    EXPECT_TRUE(c == step14::kConfigs[1]) << limit;
  }
  EXPECT_LE(step14::shared_bytes(step14::config_for_gpu(49152)), 49152);
  EXPECT_TRUE(step14::config_from(step14::to_params(step14::kConfigs[2])) == step14::kConfigs[2]);
}

// Without --param the tile is chosen by shape: the widest tile that gives more than half of the
// SMs a block, and between the default and its transpose the one with fewer waves.
TEST(Mapping14, TileChosenByShapeKeepsHalfTheSmsBusy) {
  const Config& wide = step14::kConfigs[0];
  const Config& tall = step14::kConfigs[step14::kTallConfig];
  const Config& half = step14::kConfigs[step14::kHalfConfig];
  const Config& small = step14::kConfigs[step14::kSmallConfig];
  constexpr int kSms = 132;  // H100 SXM
  if (wide.bm == 128 && wide.bn == 256) {
    EXPECT_EQ(step14::config_for_shape({512, 512, 512}, kSms), small);
    EXPECT_EQ(step14::config_for_shape({1000, 1000, 1000}, kSms), small);   // 32 wide tiles, 64 half ones
    EXPECT_EQ(step14::config_for_shape({1280, 1280, 1280}, kSms), half);    // 50 wide, 100 half
    EXPECT_EQ(step14::config_for_shape({1024, 2048, 1024}, kSms), half);    // 64 wide, 128 half
    EXPECT_EQ(step14::config_for_shape({1536, 1536, 1536}, kSms), wide);    // 72 wide
    EXPECT_EQ(step14::config_for_shape({4096, 4096, 4096}, kSms), wide);    // 4 waves either way
    EXPECT_EQ(step14::config_for_shape({4088, 4104, 4096}, kSms), tall);    // 5 waves wide, 4 tall
  }
  for (const int sms : {132, 108, 46, 2})
    for (int m = 1; m <= 9000; m += 613)
      for (int n = 1; n <= 9000; n += 701) {
        const GemmShape s{m, n, 64};
        const Config chosen = step14::config_for_shape(s, sms);
        const bool wide_busy = 2 * step14::tile_count(s, wide) > sms;
        if (wide_busy) {
          EXPECT_TRUE(chosen == wide || chosen == tall) << m << "x" << n;
          EXPECT_LE(step14::waves(s, chosen, sms), step14::waves(s, wide, sms)) << m << "x" << n;
        } else {
          EXPECT_EQ(chosen, 2 * step14::tile_count(s, half) > sms ? half : small) << m << "x" << n;
        }
      }
  // On a GPU without the default's shared memory, no choice needs more than what runs there.
  const Config fallback = step14::config_for_gpu(100 * 1024);
  for (const GemmShape& s : {GemmShape{1000, 1000, 64}, GemmShape{1280, 1280, 64}, GemmShape{4088, 4104, 64}})
    EXPECT_LE(step14::shared_bytes(step14::config_for_shape(s, kSms, fallback)), step14::shared_bytes(fallback));
  for (const Config& c : step14::kConfigs) EXPECT_EQ(step14::config_from(step14::to_params(c)), c);
}

TEST(Mapping14, SwizzleIsConflictFree) {
  for (const Config& c : step14::kConfigs) {
    ASSERT_STREQ(step14::config_rule(c), "");
    for (Layout layout : kLayouts)
      for (const OperandTile& t : {step14::a_tile(layout, c), step14::b_tile(layout, c)}) {
        // Every (row, chunk) has its own place in its row.
        for (int row = 0; row < t.rows; ++row) {
          std::set<int> places;
          for (int chunk = 0; chunk < t.chunks; ++chunk) places.insert(step14::swizzled_chunk(row, chunk, t.chunks));
          ASSERT_EQ(int(places.size()), t.chunks);
          ASSERT_LT(*places.rbegin(), t.chunks);
        }
        // A quarter-warp of copies (8 consecutive indices) writes 8 different bank groups.
        for (int first = 0; first < step14::tile_chunks(t); first += 8) {
          std::vector<int> offsets;
          for (int index = first; index < first + 8; ++index) {
            const step14::Copy copy = step14::copy_at(t, 0, index);
            offsets.push_back(step14::tile_offset(t, copy.row, copy.chunk));
          }
          ASSERT_EQ(distinct_bank_groups(offsets), 8) << "copies from " << first;
        }
      }
  }
}

TEST(Mapping14, LdmatrixMatricesAreConflictFree) {
  for (const Config& c : step14::kConfigs)
    for (Layout layout : kLayouts) {
      const OperandTile at = step14::a_tile(layout, c), bt = step14::b_tile(layout, c);
      for (int warp = 0; warp < step14::warps(c); ++warp)
        for (int kk = 0; kk < c.bk; kk += step14::kMmaK) {
          for (int i = 0; i < c.wm / step14::kMmaM; ++i)
            for (int matrix = 0; matrix < 4; ++matrix) {
              std::vector<int> offsets;
              for (int lane = 8 * matrix; lane < 8 * matrix + 8; ++lane) {
                const step14::Spot s = step14::a_ldmatrix_spot(at.k_major, step14::fragment_row(warp, c, i), kk, lane);
                offsets.push_back(step14::tile_offset(at, s.row, s.chunk));
              }
              ASSERT_EQ(distinct_bank_groups(offsets), 8) << "A, layout " << gemm::to_string(layout);
            }
          for (int j = 0; j < c.wn / 16; ++j)
            for (int matrix = 0; matrix < 4; ++matrix) {
              std::vector<int> offsets;
              for (int lane = 8 * matrix; lane < 8 * matrix + 8; ++lane) {
                const step14::Spot s = step14::b_ldmatrix_spot(bt.k_major, step14::fragment_col(warp, c, 2 * j), kk, lane);
                offsets.push_back(step14::tile_offset(bt, s.row, s.chunk));
              }
              ASSERT_EQ(distinct_bank_groups(offsets), 8) << "B, layout " << gemm::to_string(layout);
            }
        }
    }
}

TEST(Mapping14, FragmentStepsReachEveryFragment) {
  for (const Config& c : step14::kConfigs)
    for (Layout layout : kLayouts) {
      const OperandTile at = step14::a_tile(layout, c), bt = step14::b_tile(layout, c);
      for (int warp = 0; warp < step14::warps(c); ++warp)
        for (int lane = 0; lane < 32; ++lane) {
          const int m0 = step14::fragment_row(warp, c, 0), n0 = step14::fragment_col(warp, c, 0);
          const step14::Spot a0 = step14::a_ldmatrix_spot(at.k_major, m0, 0, lane);
          const step14::Spot b0 = step14::b_ldmatrix_spot(bt.k_major, n0, 0, lane);
          const int a_first = step14::tile_offset(at, a0.row, a0.chunk) * 2, b_first = step14::tile_offset(bt, b0.row, b0.chunk) * 2;
          for (int kk = 0; kk < c.bk; kk += step14::kMmaK) {
            for (int i = 0; i < c.wm / step14::kMmaM; ++i) {
              const step14::Spot s = step14::a_ldmatrix_spot(at.k_major, m0 + i * 16, kk, lane);
              const step14::FragmentStep step = step14::fragment_step(at, i, kk);
              ASSERT_EQ((a_first + step.add) ^ step.xor_bytes, step14::tile_offset(at, s.row, s.chunk) * 2)
                  << "A " << gemm::to_string(layout) << " config " << c.bm << "x" << c.bn << "x" << c.bk;
            }
            for (int j = 0; j < c.wn / 16; ++j) {
              const step14::Spot s = step14::b_ldmatrix_spot(bt.k_major, n0 + j * 16, kk, lane);
              const step14::FragmentStep step = step14::fragment_step(bt, j, kk);
              ASSERT_EQ((b_first + step.add) ^ step.xor_bytes, step14::tile_offset(bt, s.row, s.chunk) * 2)
                  << "B " << gemm::to_string(layout) << " config " << c.bm << "x" << c.bn << "x" << c.bk;
            }
          }
        }
    }
}

TEST(Mapping14, CopiesOfAThreadAreWholeRowsApart) {
  for (const Config& c : step14::kConfigs)
    for (Layout layout : kLayouts)
      for (const OperandTile& t : {step14::a_tile(layout, c), step14::b_tile(layout, c)})
        for (int thread = 0; thread < step14::threads(c); ++thread) {
          const step14::Copy first = step14::copy_at(t, 64, thread);
          for (int i = 0; i < step14::tile_chunks(t) / step14::threads(c); ++i) {
            const step14::Copy copy = step14::copy_at(t, 64, thread + i * step14::threads(c));
            const int rows = i * step14::copy_row_step(t, c);
            const step14::Copy moved = step14::copy_moved(first, rows);
            ASSERT_EQ(moved.row, copy.row);
            ASSERT_EQ(moved.chunk, copy.chunk);
            ASSERT_EQ(moved.stored_row, copy.stored_row);
            ASSERT_EQ(moved.stored_col, copy.stored_col);
            ASSERT_EQ(copy.row, first.row + rows);
            ASSERT_EQ(copy.chunk, first.chunk);
            ASSERT_EQ(copy.stored_row, first.stored_row + rows);
            ASSERT_EQ(copy.stored_col, first.stored_col);
            ASSERT_EQ(step14::tile_offset(t, copy.row, copy.chunk) * 2,
                      step14::tile_offset(t, first.row, first.chunk) * 2 + rows * step14::row_bytes(t));
          }
        }
}

// The kernel steps a running source pointer by copy_stride and k_tile_stride: it must reach what
// copy_source says for every copy of every thread and k-tile, in blocks inside the matrix and on
// its ragged edges (copies outside it get an address too, which cp.async does not read).
TEST(Mapping14, CopyStridesAgreeWithTheCopies) {
  const GemmShape shapes[] = {{256, 512, 192}, {200, 328, 72}, {129, 257, 8}, {17, 9, 136}};
  for (const Config& c : step14::kConfigs)
    for (Layout layout : kLayouts)
      for (const GemmShape& s : shapes)
        for (bool is_a : {true, false}) {
          const OperandTile t = is_a ? step14::a_tile(layout, c) : step14::b_tile(layout, c);
          const step14::Stored st = is_a ? step14::a_stored(s, layout) : step14::b_stored(s, layout);
          const int extent = is_a ? s.m : s.n, block = is_a ? c.bm : c.bn;
          for (int origin = 0; origin < extent; origin += block)
            for (int thread = 0; thread < step14::threads(c); ++thread) {
              const step14::Copy first = step14::copy_at(t, origin, thread);
              const long long base = step14::copy_source(t, first, st, c, 0);
              for (int kt = 0; kt < step14::k_tiles(s, c); ++kt)
                for (int i = 0; i < step14::tile_chunks(t) / step14::threads(c); ++i) {
                  const int rows = i * step14::copy_row_step(t, c);
                  const step14::Copy copy = step14::copy_moved(first, rows);
                  ASSERT_EQ(step14::copy_source(t, copy, st, c, kt),
                            base + i * step14::copy_stride(t, st, c) + kt * step14::k_tile_stride(t, st, c))
                      << "thread " << thread << " copy " << i << " k-tile " << kt;
                }
            }
        }
}

TEST(Mapping14, AccumulatorsCoverTheBlockTileOnce) {
  for (const Config& c : step14::kConfigs) {
    std::vector<int> covered(size_t(c.bm) * c.bn, 0);
    for (int warp = 0; warp < step14::warps(c); ++warp)
      for (int i = 0; i < c.wm / step14::kMmaM; ++i)
        for (int j = 0; j < c.wn / step14::kMmaN; ++j)
          for (int lane = 0; lane < 32; ++lane)
            for (int reg = 0; reg < 4; ++reg)
              ++covered[size_t(step14::fragment_row(warp, c, i) + step14::accumulator_row(lane, reg)) * c.bn +
                        step14::fragment_col(warp, c, j) + step14::accumulator_col(lane, reg)];
    for (int n : covered) ASSERT_EQ(n, 1);
  }
}

TEST(Mapping14, RulesNameTheProblem) {
  EXPECT_NE(std::string(step14::config_rule({128, 128, 48, 64, 64, 4})).find("BK must be 32"), std::string::npos);
  EXPECT_NE(std::string(step14::config_rule({96, 128, 32, 32, 64, 4})).find("multiples of 64"), std::string::npos);
  EXPECT_NE(std::string(step14::config_rule({128, 128, 32, 64, 64, 9})).find("STAGES must be"), std::string::npos);
  EXPECT_NE(std::string(step14::config_rule({128, 128, 32, 64, 64, 2})).find("STAGES must be 3"), std::string::npos);
  EXPECT_NE(std::string(step14::config_rule({128, 128, 32, 64, 64, 6})).find("not compiled in"), std::string::npos);
}

TEST(Mapping14, TraceIsConflictFreeAndCoversC) {
  // The trace the viewer and the access model use: over whole launches, in every layout and for
  // every configuration, each ldmatrix.x4 and each cp.async write costs the minimum 4 wavefronts
  // (the swizzle), and the stores of C write every element once.
  for (const Config& c : step14::kConfigs)
    for (Layout layout : kLayouts) {
      gemm::TraceProblem problem;
      problem.shape = {c.bm + 8, c.bn + 8, 2 * c.bk + 8};  // ragged in M, N and K
      problem.layout = layout;
      problem.params = step14::to_params(c);
      ASSERT_EQ(gemm::tc_aligned_rows_rule(problem.shape, layout), "");
      std::vector<int> written(size_t(problem.shape.m) * size_t(problem.shape.n), 0);
      const gemm::AccessTotals totals =
          gemm::predict_launch(step14::launch_shape(problem.shape, c), [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) {
            step14::trace_warp(problem, block, warp, [&](const gemm::TraceInstruction& i) {
              sink(i);
              if (i.operand == gemm::Operand::C && i.access.access == gemm::Access::store)
                for (int lane = 0; lane < 32; ++lane)
                  if (i.access.lane_active(lane))
                    for (int e = 0; e < i.access.width / 4; ++e) ++written[size_t(i.access.address[size_t(lane)] / 4 + e)];
            });
          });
      EXPECT_EQ(totals.shared_load_wavefronts, 4 * totals.shared_load_requests) << step14::to_params(c).at("BK");
      EXPECT_EQ(totals.shared_store_wavefronts, 4 * totals.shared_store_requests);
      for (int n : written) ASSERT_EQ(n, 1);
    }
}

// f16 output: after neighbouring lanes trade halves of two side-by-side n8 tiles, each lane's 4
// consecutive columns (quad_col) are values it holds or its neighbour (lane ^ 1, same row) handed
// it, and the warp's quads cover the 8 rows x 16 columns of the two tiles once, 8-byte aligned.
TEST(Mapping14, F16QuadsCoverTwoTilesOnce) {
  std::vector<int> covered(8 * 16, 0);
  for (int lane = 0; lane < 32; ++lane) {
    const int partner = lane ^ 1;
    ASSERT_EQ(step14::accumulator_row(lane, 0), step14::accumulator_row(partner, 0));
    const int first = step14::quad_col(lane);
    ASSERT_EQ(first % 4, 0) << "8-byte aligned";
    const bool right = step14::keeps_right_tile(lane);
    ASSERT_NE(right, step14::keeps_right_tile(partner));
    // The four columns: this lane's pair and the partner's pair of the kept tile, in column order.
    const int tile0 = right ? step14::kMmaN : 0;
    std::vector<int> held = {tile0 + step14::accumulator_col(lane, 0), tile0 + step14::accumulator_col(lane, 1),
                             tile0 + step14::accumulator_col(partner, 0), tile0 + step14::accumulator_col(partner, 1)};
    std::sort(held.begin(), held.end());
    for (int e = 0; e < 4; ++e) {
      ASSERT_EQ(held[size_t(e)], first + e) << "lane " << lane;
      ++covered[size_t(step14::accumulator_row(lane, 0)) * 16 + size_t(first + e)];
    }
  }
  for (int n : covered) ASSERT_EQ(n, 1);
}

// Shapes of whole tiles take the instance without bounds tests, where one is compiled: the default
// tile in NN and NT. Any edge in M, N or K, and every other tile or layout, takes the general one.
TEST(Mapping14, WholeTilesAreShapesWithoutEdges) {
  const Config& wide = step14::kConfigs[0];
  EXPECT_TRUE(step14::whole_tiles({8192, 8192, 8192}, wide));
  EXPECT_TRUE(step14::whole_tiles({128, 256, 64}, wide));
  EXPECT_FALSE(step14::whole_tiles({8192, 8192, 8200}, wide));  // a ragged last k-tile
  EXPECT_FALSE(step14::whole_tiles({8192 - 64, 8192, 8192}, wide));  // a partial last tile row
  EXPECT_FALSE(step14::whole_tiles({4088, 4104, 4096}, wide));
  EXPECT_FALSE(step14::whole_tiles({1000, 1000, 1000}, step14::kConfigs[step14::kSmallConfig]));
  EXPECT_TRUE(step14::has_edge_free_instance(0, Layout::nn));
  EXPECT_TRUE(step14::has_edge_free_instance(0, Layout::nt));
  EXPECT_FALSE(step14::has_edge_free_instance(0, Layout::tn));
  for (int config = 1; config < step14::kConfigCount; ++config)
    for (Layout layout : kLayouts) EXPECT_FALSE(step14::has_edge_free_instance(config, layout));
  // Every copy and every result of a shape of whole tiles is inside the matrices, and every pair
  // of results starts on an even column: what the instance without tests takes for granted,
  // checked with the general tests.
  for (Layout layout : kLayouts) {
    const GemmShape s{256, 512, 192};
    ASSERT_TRUE(step14::whole_tiles(s, wide));
    const OperandTile ta = step14::a_tile(layout, wide), tb = step14::b_tile(layout, wide);
    const step14::Stored sa = step14::a_stored(s, layout), sb = step14::b_stored(s, layout);
    for (int block_m = 0; block_m < s.m; block_m += wide.bm)
      for (int block_n = 0; block_n < s.n; block_n += wide.bn)
        for (int kt = 0; kt < step14::k_tiles(s, wide); ++kt)
          for (int index = 0; index < step14::tile_chunks(ta) || index < step14::tile_chunks(tb); ++index) {
            if (index < step14::tile_chunks(ta)) {
              ASSERT_TRUE(step14::copy_inside(ta, step14::copy_at(ta, block_m, index), sa, wide, kt));
            }
            if (index < step14::tile_chunks(tb)) {
              ASSERT_TRUE(step14::copy_inside(tb, step14::copy_at(tb, block_n, index), sb, wide, kt));
            }
          }
    for (int block_m = 0; block_m < s.m; block_m += wide.bm)
      for (int block_n = 0; block_n < s.n; block_n += wide.bn)
        for (int warp = 0; warp < step14::warps(wide); ++warp)
          for (int i = 0; i < wide.wm / step14::kMmaM; ++i)
            for (int j = 0; j < wide.wn / step14::kMmaN; ++j)
              for (int lane = 0; lane < 32; ++lane)
                for (int reg = 0; reg < 4; reg += 2) {
                  const int row = block_m + step14::fragment_row(warp, wide, i) + step14::accumulator_row(lane, reg);
                  const int col = block_n + step14::fragment_col(warp, wide, j) + step14::accumulator_col(lane, reg);
                  ASSERT_LT(row, s.m);
                  ASSERT_LT(col + 1, s.n);
                  ASSERT_EQ(col % 2, 0);
                }
  }
}

// The viewer's timeline follows the kernel's running stage indices (next_stage) over hundreds of
// k-tiles, for every STAGES the tunables allow: each k-tile is read from the stage stage_of names,
// and each copy lands in the stage the kernel refills.
TEST(Mapping14, TimelineFollowsTheKernelsStages) {
  std::vector<step14::Config> configs(std::begin(step14::kConfigs), std::end(step14::kConfigs));
  for (int stages = 3; stages <= 8; ++stages) {
    step14::Config c = step14::kConfigs[0];
    c.stages = stages;
    configs.push_back(c);
  }
  gemm::pipeline_testing::expect_cp_async_stages_as_the_kernel(
      "14_mma_ldmatrix", configs, {gemm::GemmShape{64, 64, 8}, gemm::GemmShape{130, 70, 100}, gemm::GemmShape{128, 128, 4096}});
}
