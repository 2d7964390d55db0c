// Step 13: the kernel's index functions, run on the host. Whole blocks emulated with them (the
// pipeline's copies into their stages, load_matrix_sync as the wmma API defines its row_major and
// col_major layouts, mma_sync, the staging tile and the C update) must give the product in every
// layout and configuration; the trace must copy every element of every tile once, from inside the
// matrices, to 16-byte-aligned places; the stages must never be refilled while they are read.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../../steps/13_wmma_pipeline/mapping.hpp"

namespace {

using gemm::GemmShape;
using gemm::Layout;
using step13::Config;
using step13::OperandTile;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

// Small integers: every product and sum below is exact in float.
float a_value(int m, int k) { return float((m * 7 + k * 3) % 11) - 5.0f; }
float b_value(int k, int n) { return float((k * 5 + n * 2) % 13) - 6.0f; }

// Shapes the aligned-rows rule accepts in `layout`, ragged against every tile, with more k-tiles
// than any configuration has stages.
std::vector<GemmShape> shapes_for(Layout layout) {
  std::vector<GemmShape> shapes;
  for (const GemmShape& s : {GemmShape{40, 24, 48}, GemmShape{104, 72, 64}, GemmShape{136, 264, 328},
                             GemmShape{8, 8, 8}, GemmShape{33, 17, 200}})
    if (gemm::tc_aligned_rows_rule(s, layout).empty()) shapes.push_back(s);
  return shapes;
}

// The shared buffer of one block, as the kernel lays it out (elements of the input type for the
// stages; the staging tiles are checked through the trace).
struct Block {
  const Config& c;
  Layout layout;
  GemmShape s;
  std::vector<float> a, b;  // as stored
  std::vector<float> stages;
  Block(const Config& config, Layout l, GemmShape shape) : c(config), layout(l), s(shape) {
    const step13::Stored as = step13::a_stored(s, l), bs = step13::b_stored(s, l);
    a.resize(size_t(as.rows) * as.cols);
    b.resize(size_t(bs.rows) * bs.cols);
    for (int r = 0; r < as.rows; ++r)
      for (int col = 0; col < as.cols; ++col)
        a[size_t(r) * as.cols + col] = l == Layout::tn ? a_value(col, r) : a_value(r, col);
    for (int r = 0; r < bs.rows; ++r)
      for (int col = 0; col < bs.cols; ++col)
        b[size_t(r) * bs.cols + col] = l == Layout::nt ? b_value(col, r) : b_value(r, col);
    stages.assign(size_t(step13::staging_offset_bytes(c) / step13::kElementBytes), NAN);
  }
  // The copies of k-tile kt into its stage, every thread's, as copy_tile issues them.
  void copy_k_tile(int block_m, int block_n, int kt) {
    const int base = step13::stage_of(kt, c) * step13::stage_elements(layout, c);
    const OperandTile ta = step13::a_tile(layout, c), tb = step13::b_tile(layout, c);
    copy(ta, step13::a_stored(s, layout), a, block_m * c.bm, kt, base);
    copy(tb, step13::b_stored(s, layout), b, block_n * c.bn, kt, base + step13::tile_elements(ta));
  }
  void copy(const OperandTile& t, const step13::Stored& st, const std::vector<float>& matrix, int origin, int kt,
            int base) {
    for (int thread = 0; thread < step13::threads(c); ++thread)
      for (int index = thread; index < step13::tile_chunks(t); index += step13::threads(c)) {
        const step13::Copy copy = step13::copy_at(t, st, c, origin, kt, index);
        const long long source = step13::copy_source(copy, st);
        if (copy.inside) {
          ASSERT_EQ(source % step13::kChunk, 0) << "a chunk's source must start on 16 bytes";
          ASSERT_LE(source + step13::kChunk, (long long)matrix.size());
        }
        const int to = base + step13::copy_destination(t, copy);
        ASSERT_EQ(to % step13::kChunk, 0) << "a chunk's destination must start on 16 bytes";
        ASSERT_LE(copy.tile_col + step13::kChunk, t.cols) << "a chunk must not write the padding";
        for (int e = 0; e < step13::kChunk; ++e) stages[size_t(to + e)] = copy.inside ? matrix[size_t(source + e)] : 0.0f;
      }
  }
};

// load_matrix_sync as the wmma API defines it: element (r, col) of a row_major fragment at p with
// leading dimension ldm is p[r * ldm + col], of a col_major one p[col * ldm + r].
float fragment_element(const std::vector<float>& shared, int p, int ldm, bool row_major, int r, int col) {
  return shared[size_t(row_major ? p + r * ldm + col : p + col * ldm + r)];
}

void check_block_product(const Config& c, Layout layout, const GemmShape& s) {
  Block block(c, layout, s);
  const OperandTile ta = step13::a_tile(layout, c), tb = step13::b_tile(layout, c);
  const gemm::LaunchShape launch = step13::launch_shape(s, c);
  const int tiles = step13::k_tiles(s, c), stage_size = step13::stage_elements(layout, c);
  std::vector<int> written(size_t(s.m) * s.n, 0);
  for (int block_m = 0; block_m < launch.grid.y; ++block_m)
    for (int block_n = 0; block_n < launch.grid.x; ++block_n) {
      std::vector<float> acc(size_t(c.bm) * c.bn, 0.0f);  // the block's accumulators, by tile position
      for (int kt = 0; kt < step13::k_tile_copied_in(0, c) && kt < tiles; ++kt) block.copy_k_tile(block_m, block_n, kt);
      for (int kt = 0; kt < tiles; ++kt) {
        // The kernel copies k-tile kt + STAGES - 1 after the barrier and before its mma of k-tile kt:
        // emulated in that order, a refill of the stage being read would show in the product.
        if (step13::k_tile_copied_in(kt, c) < tiles) block.copy_k_tile(block_m, block_n, step13::k_tile_copied_in(kt, c));
        const int a_base = step13::stage_of(kt, c) * stage_size, b_base = a_base + step13::tile_elements(ta);
        for (int warp = 0; warp < step13::warps(c); ++warp)
          for (int kk = 0; kk < c.bk; kk += step13::kFragment)
            for (int i = 0; i < c.wm / step13::kFragment; ++i)
              for (int j = 0; j < c.wn / step13::kFragment; ++j) {
                const int row0 = step13::fragment_row(warp, c, i), col0 = step13::fragment_col(warp, c, j);
                const int pa = a_base + step13::fragment_offset(ta, row0, kk);
                const int pb = b_base + step13::fragment_offset(tb, col0, kk);
                ASSERT_EQ(pa % 16, 0) << "wmma needs 32-byte-aligned fragments";
                ASSERT_EQ(pb % 16, 0) << "wmma needs 32-byte-aligned fragments";
                for (int r = 0; r < 16; ++r)
                  for (int col = 0; col < 16; ++col) {
                    float sum = 0.0f;
                    for (int k = 0; k < 16; ++k)
                      sum += fragment_element(block.stages, pa, step13::tile_stride(ta), ta.k_major, r, k) *
                             fragment_element(block.stages, pb, step13::tile_stride(tb), !tb.k_major, k, col);
                    acc[size_t(row0 + r) * c.bn + col0 + col] += sum;
                  }
              }
      }
      for (int r = 0; r < c.bm; ++r)
        for (int col = 0; col < c.bn; ++col) {
          ASSERT_FALSE(std::isnan(acc[size_t(r) * c.bn + col])) << "a fragment read an element no copy wrote";
          const int gm = block_m * c.bm + r, gn = block_n * c.bn + col;
          if (gm >= s.m || gn >= s.n) continue;
          double want = 0;
          for (int k = 0; k < s.k; ++k) want += double(a_value(gm, k)) * b_value(k, gn);
          ASSERT_EQ(double(acc[size_t(r) * c.bn + col]), want) << "C(" << gm << ", " << gn << ") of " << s.m << "x"
                                                               << s.n << "x" << s.k;
          ++written[size_t(gm) * s.n + gn];
        }
    }
  for (int w : written) ASSERT_EQ(w, 1);
}

gemm::TraceProblem problem13(const Config& c, const GemmShape& s, Layout layout, float beta = 0) {
  gemm::TraceProblem p;
  p.shape = s;
  p.layout = layout;
  p.beta = beta;
  p.params = step13::to_params(c);
  return p;
}

// Every instruction of every warp of the launch.
template <typename F>
void for_each_instruction(const gemm::TraceProblem& p, F&& f) {
  const gemm::LaunchShape launch = step13::launch_shape(p.shape, step13::config_from(p.params));
  gemm::Dim3 block;
  for (block.y = 0; block.y < launch.grid.y; ++block.y)
    for (block.x = 0; block.x < launch.grid.x; ++block.x)
      for (int warp = 0; warp < step13::warps(step13::config_from(p.params)); ++warp)
        step13::trace_warp(p, block, warp, [&](const gemm::TraceInstruction& i) { f(block, warp, i); });
}

}  // namespace

TEST(WmmaPipeline, EmulatedBlocksComputeTheProduct) {
  for (const Config& c : step13::kConfigs) {
    ASSERT_STREQ(step13::config_rule(c), "");
    for (Layout layout : kLayouts)
      for (const GemmShape& s : shapes_for(layout)) {
        SCOPED_TRACE(std::string(gemm::to_string(layout)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                     std::to_string(s.k) + " BM=" + std::to_string(c.bm) + " BN=" + std::to_string(c.bn) +
                     " BK=" + std::to_string(c.bk) + " STAGES=" + std::to_string(c.stages));
        check_block_product(c, layout, s);
      }
  }
}

TEST(WmmaPipeline, StagesAreNotRefilledWhileRead) {
  // Group g holds k-tile g's copies. Before reading k-tile kt a thread has committed the prologue's
  // STAGES - 1 groups and one per earlier iteration; waiting until at most groups_in_flight remain
  // must leave k-tile kt complete. The copy issued in iteration kt (after the barrier) must go to
  // a stage that no warp reads in iteration kt: the one k-tile kt - 1 used, which every warp is
  // done with once it passed that barrier.
  for (const Config& c : step13::kConfigs)
    for (int tiles : {1, 2, c.stages - 1, c.stages, c.stages + 1, 3 * c.stages + 2}) {
      std::vector<int> held(size_t(c.stages), -1);  // the k-tile each stage holds
      for (int kt = 0; kt < step13::k_tile_copied_in(0, c) && kt < tiles; ++kt) held[size_t(step13::stage_of(kt, c))] = kt;
      for (int kt = 0; kt < tiles; ++kt) {
        const int committed = step13::k_tile_copied_in(0, c) + kt;
        EXPECT_GE(committed - step13::groups_in_flight(c), kt + 1) << "k-tile " << kt << " may still be in flight";
        EXPECT_GE(step13::groups_in_flight(c), 0);
        const int next = step13::k_tile_copied_in(kt, c);
        if (next < tiles) {
          EXPECT_NE(step13::stage_of(next, c), step13::stage_of(kt, c)) << "refilled while read";
          if (kt > 0) {
            EXPECT_EQ(step13::stage_of(next, c), step13::stage_of(kt - 1, c));
          }
          held[size_t(step13::stage_of(next, c))] = next;
        }
        EXPECT_EQ(held[size_t(step13::stage_of(kt, c))], kt);
      }
    }
}

TEST(WmmaPipeline, TraceCopiesEveryTileElementOnceAndWritesCOnce) {
  // Per block, k-tile and operand: every element of the tile (not the padding) written once by the
  // cp.async writes, every global read inside its stored matrix and 16-byte aligned, every shared
  // write 16-byte aligned and inside the stages. C: each element stored once (and read once when
  // beta != 0). Fragment loads read the stage of their k-tile, 16-byte rows inside the tile.
  for (const Config& c : step13::kConfigs)
    for (Layout layout : kLayouts)
      for (const GemmShape& s : {GemmShape{40, 24, 48}, GemmShape{136, 264, 200}})
        for (float beta : {0.0f, 0.5f}) {
          ASSERT_EQ(gemm::tc_aligned_rows_rule(s, layout), "");
          const gemm::TraceProblem p = problem13(c, s, layout, beta);
          const OperandTile ta = step13::a_tile(layout, c), tb = step13::b_tile(layout, c);
          const step13::Stored sa = step13::a_stored(s, layout), sb = step13::b_stored(s, layout);
          const int stage_size = step13::stage_elements(layout, c);
          std::vector<int> stored(size_t(s.m) * s.n, 0), loaded(size_t(s.m) * s.n, 0);
          std::map<std::tuple<int, int, int>, std::vector<int>> tile_writes;  // (block, kt, operand) -> per element
          for_each_instruction(p, [&](const gemm::Dim3& block, int, const gemm::TraceInstruction& i) {
            const bool is_a = i.operand == gemm::Operand::A || i.operand == gemm::Operand::smem_A;
            for (int lane = 0; lane < 32; ++lane) {
              if (!i.access.lane_active(lane)) continue;
              const long long byte = i.access.address[size_t(lane)], element = byte / i.element_bytes;
              if (i.operand == gemm::Operand::C) {
                ASSERT_GE(element, 0);
                ASSERT_LT(element, (long long)s.m * s.n);
                ++(i.access.access == gemm::Access::store ? stored : loaded)[size_t(element)];
              } else if (i.access.space == gemm::Space::global) {  // a cp.async read
                ASSERT_TRUE(i.access.async_copy);
                const step13::Stored& st = is_a ? sa : sb;
                ASSERT_EQ(byte % 16, 0) << i.label;
                ASSERT_GE(element, 0);
                ASSERT_LE(element + step13::kChunk, (long long)st.rows * st.cols) << i.label;
              } else if (i.access.access == gemm::Access::store && i.operand != gemm::Operand::tile) {  // a cp.async write
                ASSERT_TRUE(i.access.async_copy);
                ASSERT_EQ(byte % 16, 0) << i.label;
                const int stage = step13::stage_of(i.iteration, c) * stage_size;
                const int base = stage + (is_a ? 0 : step13::tile_elements(ta));
                const OperandTile& t = is_a ? ta : tb;
                ASSERT_GE(element, base);
                ASSERT_LE(element + step13::kChunk, base + step13::tile_elements(t)) << i.label;
                auto& writes = tile_writes[{block.y * 1000 + block.x, i.iteration, is_a ? 0 : 1}];
                if (writes.empty()) writes.assign(size_t(step13::tile_elements(t)), 0);
                for (int e = 0; e < step13::kChunk; ++e) ++writes[size_t(element - base + e)];
              } else if (i.access.access == gemm::Access::load && i.operand != gemm::Operand::tile) {  // ldmatrix rows
                ASSERT_EQ(byte % 16, 0) << i.label;
                const int base = step13::stage_of(i.iteration, c) * stage_size + (is_a ? 0 : step13::tile_elements(ta));
                ASSERT_GE(element, base);
                ASSERT_LE(element + step13::kChunk, base + step13::tile_elements(is_a ? ta : tb)) << i.label;
              } else {  // the staging tile: after the stages, inside the buffer
                ASSERT_GE(byte, step13::staging_offset_bytes(c));
                ASSERT_LE(byte + i.access.width, step13::shared_bytes(c));
              }
            }
          });
          for (size_t e = 0; e < stored.size(); ++e) {
            ASSERT_EQ(stored[e], 1) << "C element " << e;
            ASSERT_EQ(loaded[e], beta != 0 ? 1 : 0);
          }
          for (const auto& [key, writes] : tile_writes) {
            const OperandTile& t = std::get<2>(key) == 0 ? ta : tb;
            for (int r = 0; r < t.rows; ++r)
              for (int col = 0; col < step13::tile_stride(t); ++col)
                ASSERT_EQ(writes[size_t(r * step13::tile_stride(t) + col)], col < t.cols ? 1 : 0)
                    << "k-tile " << std::get<1>(key) << " " << r << "," << col;
          }
          const gemm::LaunchShape launch = step13::launch_shape(s, c);
          ASSERT_EQ(tile_writes.size(), size_t(2 * launch.grid.x * launch.grid.y * step13::k_tiles(s, c)));
        }
}

TEST(WmmaPipeline, TraceFollowsThePipeline) {
  // One warp's copies come STAGES - 1 k-tiles ahead of its fragment loads: the copies of k-tile
  // kt + STAGES - 1 are listed after every fragment load of k-tile kt - 1 and before any of k-tile kt.
  for (const Config& c : step13::kConfigs)
    for (Layout layout : kLayouts) {
      const GemmShape s{c.bm, c.bn, c.bk * (c.stages + 3)};
      std::vector<std::pair<bool, int>> order;  // (copy, k-tile) of each shared instruction in turn
      step13::trace_warp(problem13(c, s, layout), {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
        if (i.access.space == gemm::Space::shared && i.operand != gemm::Operand::tile)
          order.push_back({i.access.access == gemm::Access::store, i.iteration});
      });
      int last_loaded = -1;
      for (const auto& [copy, kt] : order) {
        if (!copy) {
          last_loaded = kt;
        } else if (last_loaded >= 0 || kt >= step13::k_tile_copied_in(0, c)) {  // not the prologue
          EXPECT_EQ(kt, step13::k_tile_copied_in(last_loaded + 1, c)) << "copied in the wrong iteration";
        }
      }
      // Every k-tile copied before its first load.
      std::vector<bool> copied(size_t(step13::k_tiles(s, c)), false);
      for (const auto& [copy, kt] : order) {
        if (copy) copied[size_t(kt)] = true;
        else EXPECT_TRUE(copied[size_t(kt)]) << "k-tile " << kt << " loaded before it was copied";
      }
    }
}

TEST(WmmaPipeline, WhatTheAccessesCostInTheBanks) {
  // In every configuration and layout: the cp.async reads take just the sectors their bytes need;
  // every fragment load, an ldmatrix.x4, the least it can, 4 wavefronts, since the 8 rows of one
  // 8 x 8 matrix are a padded row apart (16 bytes beyond a multiple of 128) in both orientations.
  for (const Config& c : step13::kConfigs)
    for (Layout layout : kLayouts) {
      const GemmShape shape{c.bm * 2, c.bn * 2, c.bk * 3};
      int loads = 0;
      step13::trace_warp(problem13(c, shape, layout), {1, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
        if (i.access.space == gemm::Space::global && i.operand != gemm::Operand::C) {
          const gemm::GlobalCost cost = gemm::global_cost(i.access);
          EXPECT_EQ(cost.sectors, cost.ideal_sectors) << i.label;
        }
        if (i.access.space == gemm::Space::shared && i.access.access == gemm::Access::load && i.access.width == 16) {
          EXPECT_EQ(gemm::shared_cost(i.access).wavefronts, 4) << i.label;
          ++loads;
        }
      });
      EXPECT_EQ(loads, 3 * (c.bk / step13::kFragment) * (c.wm + c.wn) / step13::kFragment);
    }
}

TEST(WmmaPipeline, SharedMemoryAndTheChoiceForTheGpu) {
  for (const Config& c : step13::kConfigs) {
    EXPECT_LE(step13::shared_bytes(c), 227 * 1024) << "every configuration fits an H100 block";
    EXPECT_EQ(step13::staging_offset_bytes(c) % 128, 0);
    EXPECT_EQ(step13::launch_shape({1, 1, 8}, c).shared_bytes, step13::shared_bytes(c));
  }
  EXPECT_EQ(step13::config_for_gpu(227 * 1024), step13::kConfigs[0]);  // H100
  for (int limit : {163 * 1024, 99 * 1024, 64 * 1024, 48 * 1024}) {  // A100, sm_86/89, smaller
    const Config chosen = step13::config_for_gpu(limit);
    EXPECT_LE(step13::shared_bytes(chosen), limit);
    for (const Config& c : step13::kConfigs) {  // the first that fits, in list order
      if (c == chosen) break;
      EXPECT_GT(step13::shared_bytes(c), limit);
    }
  }
}

TEST(WmmaPipeline, RulesNameTheProblem) {
  const Config d = step13::kConfigs[0];
  auto rule = [](Config c) { return std::string(step13::config_rule(c)); };
  EXPECT_NE(rule({d.bm, d.bn, 24, d.wm, d.wn, d.stages}).find("multiples of 16"), std::string::npos);
  EXPECT_NE(rule({d.bm, d.bn, d.bk, 40, d.wn, d.stages}).find("multiples of 16"), std::string::npos);
  EXPECT_NE(rule({d.bm, d.bn, d.bk, d.wm, d.wn, 1}).find("STAGES must be 2..8"), std::string::npos);
  EXPECT_NE(rule({d.bm, d.bn, d.bk, d.wm, d.wn, 9}).find("STAGES must be 2..8"), std::string::npos);
  EXPECT_NE(rule({d.bm, d.bn, d.bk, d.wm, d.wn, 7}).find("not compiled in"), std::string::npos);
  EXPECT_EQ(step13::config_from(step13::to_params(d)), d);
}
