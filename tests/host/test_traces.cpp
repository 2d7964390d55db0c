// Launch-level predictions from the steps' traces, against closed-form counts.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "../../steps/traced_steps.hpp"
#include "declared_steps.hpp"

namespace {
const gemm::TracedProgram& program(const std::string& step, const std::string& variant = "") {
  static const auto programs = gemm::traced_programs();
  for (const auto& p : programs)
    if (p.step == step && p.variant == variant) return p;
  throw std::runtime_error("no program " + step);
}
gemm::TraceProblem problem(int m, int n, int k, float beta) {
  gemm::TraceProblem p;
  p.shape = {m, n, k};
  p.beta = beta;
  return p;
}
}  // namespace

TEST(Traces, Step01NaiveSectors) {
  // 256^3: 2048 warps; per k: A 32 sectors (32 rows), B 1 (broadcast); C read (beta != 0) and
  // written 32 rows apart: 32 sectors each.
  const auto totals = gemm::predict(program("01_naive"), problem(256, 256, 256, 0.5f));
  EXPECT_EQ(totals.global_load_sectors, 2048LL * (256 * 33 + 32));
  EXPECT_EQ(totals.global_store_sectors, 2048LL * 32);
  EXPECT_EQ(totals.global_load_requests, 2048LL * (2 * 256 + 1));
  EXPECT_EQ(totals.shared_load_wavefronts, 0);
}

TEST(Traces, Step02CoalescedSectors) {
  // Per k: A 1 sector (broadcast), B 4 (128 contiguous bytes); beta = 0: C is only written.
  const auto totals = gemm::predict(program("02_gmem_coalescing"), problem(256, 256, 256, 0.0f));
  EXPECT_EQ(totals.global_load_sectors, 2048LL * 256 * 5);
  EXPECT_EQ(totals.global_store_sectors, 2048LL * 4);
}

TEST(Traces, OddShapeOnlyActiveLanesCount) {
  // 33x17x45 on step 02: warps own rows; 33 rows x 1 warp each (17 columns active of 32).
  // Per k: A 1 sector, B 17 floats from a row start = 68 bytes: 3 sectors.
  const auto totals = gemm::predict(program("02_gmem_coalescing"), problem(33, 17, 45, 0.0f));
  EXPECT_EQ(totals.global_load_sectors, 33LL * 45 * 4);
}

TEST(Traces, Step05TiledCounts) {
  // 128^3: 16 blocks x 32 warps, 4 k-tiles. Per warp and k-tile: 4 + 4 global sectors, 2 shared
  // stores (one wavefront each), 8 16-byte broadcast loads of A (2 wavefronts each, as measured)
  // and 32 loads of B (one each). Then the store of C: 4 sectors.
  const auto totals = gemm::predict(program("05_smem_tiling"), problem(128, 128, 128, 0.0f));
  const long long warp_tiles = 16LL * 32 * 4;
  EXPECT_EQ(totals.global_load_sectors, warp_tiles * 8);
  EXPECT_EQ(totals.shared_store_wavefronts, warp_tiles * 2);
  EXPECT_EQ(totals.shared_load_wavefronts, warp_tiles * (8 * 2 + 32));
  EXPECT_EQ(totals.shared_load_requests, warp_tiles * (8 + 32));
  EXPECT_EQ(totals.global_store_sectors, 16LL * 32 * 4);
}

TEST(Traces, SquareBankDemo) {
  // Per warp and repetition: one store and one load; 2048 blocks x 32 warps x 64 repetitions.
  const long long instructions = 2048LL * 32 * gemm::bank_demo::kRepeats;
  auto totals = gemm::predict(program("03_smem_banks_square", "row_row"), {});
  EXPECT_EQ(totals.shared_store_wavefronts, instructions);
  EXPECT_EQ(totals.shared_load_wavefronts, instructions);
  totals = gemm::predict(program("03_smem_banks_square", "row_col"), {});
  EXPECT_EQ(totals.shared_store_wavefronts, instructions);
  EXPECT_EQ(totals.shared_load_wavefronts, 32 * instructions);
  totals = gemm::predict(program("03_smem_banks_square", "padded_row_col"), {});
  EXPECT_EQ(totals.shared_load_wavefronts, instructions);
  totals = gemm::predict(program("03_smem_banks_square", "dynamic_col_col"), {});
  EXPECT_EQ(totals.shared_store_wavefronts, 32 * instructions);
  EXPECT_EQ(totals.global_store_sectors, 2048LL * 32 * 4);
}

TEST(Traces, RectangularBankDemoPadding) {
  // 16 warps per block. Transposed load: 16-way unpadded, 2-way with one word, none with two.
  const long long instructions = 2048LL * 16 * gemm::bank_demo::kRepeats;
  EXPECT_EQ(gemm::predict(program("04_smem_banks_rectangular", "row_col"), {}).shared_load_wavefronts,
            16 * instructions);
  EXPECT_EQ(gemm::predict(program("04_smem_banks_rectangular", "padded1_row_col"), {}).shared_load_wavefronts,
            2 * instructions);
  EXPECT_EQ(gemm::predict(program("04_smem_banks_rectangular", "padded2_dynamic_row_col"), {}).shared_load_wavefronts,
            instructions);
  EXPECT_EQ(gemm::predict(program("04_smem_banks_rectangular", "col_col"), {}).shared_store_wavefronts,
            16 * instructions);
}

// The registry lists exactly the steps whose mapping has a trace_warp (declared_steps.hpp, from the
// steps' declarations: a new step with a trace fails here until it has its entry), a GEMM step once,
// a bank demo once for each of its variants, and each (step, variant) once.
TEST(Traces, EveryProgramIsRegisteredOnce) {
  const auto programs = gemm::traced_programs();
  std::map<std::string, int> entries;
  std::set<std::string> names;
  for (const auto& program : programs) {
    ++entries[program.step];
    EXPECT_TRUE(names.insert(program.step + "/" + program.variant).second) << program.step << "/" << program.variant;
  }
  std::set<std::string> traced, registered;
  for (const auto& entry : entries) registered.insert(entry.first);
  for (const gemm::declared::Step& step : gemm::declared::kSteps) {
    if (!step.traced) continue;
    traced.insert(step.name);
    if (std::string(step.kind) != "demo") {
      EXPECT_EQ(entries[step.name], 1) << step.name;
    }
  }
  EXPECT_EQ(registered, traced);
  EXPECT_EQ(entries["03_smem_banks_square"], step03::kVariantCount);
  EXPECT_EQ(entries["04_smem_banks_rectangular"], step04::kVariantCount);
}

// The FP8 step's entry: its kernel's name, its tunables chosen by shape as the program chooses them
// (no layout: NT alone), its shape rule, and its own trace.
TEST(Traces, Step19TracesItsOwnMapping) {
  const gemm::TracedProgram& fp8 = program("19_fp8");
  EXPECT_EQ(fp8.kernel, "fp8_gemm");
  EXPECT_TRUE(fp8.tensor_core);
  EXPECT_EQ(fp8.layouts, std::vector<gemm::Layout>{gemm::Layout::nt});
  ASSERT_TRUE(fp8.shape_rule);
  EXPECT_EQ(fp8.shape_rule({136, 100, 128}, gemm::Layout::nt), "");
  EXPECT_NE(fp8.shape_rule({136, 100, 128}, gemm::Layout::nn), "");
  EXPECT_NE(fp8.shape_rule({136, 100, 40}, gemm::Layout::nt), "");
  gemm::TraceProblem p = problem(4096, 4096, 4096, 0.0f);
  p.layout = gemm::Layout::nt;
  EXPECT_EQ(gemm::run_params(fp8, p), step19::to_params(step19::kConfigs[0]));  // SMs unknown: the default
  p.sms = 132;
  EXPECT_EQ(gemm::run_params(fp8, p), step19::to_params(step19::config_for_shape(p.shape, 132)));
  EXPECT_EQ(gemm::run_params(fp8, p), step19::to_params(step19::kConfigs[step19::kSquareTileConfig]));
  // The registry's prediction is the step's own trace over the step's own launch.
  gemm::TraceProblem odd = problem(264, 232, 64, 0.5f);
  odd.layout = gemm::Layout::nt;
  odd.params = step19::to_params(step19::kConfigs[0]);
  const step19::Config c = step19::kConfigs[0];
  const gemm::AccessTotals own = gemm::predict_launch(
      step19::trace_launch_shape(odd, c),
      [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) { step19::trace_warp(odd, block, warp, sink); });
  const gemm::AccessTotals registered = gemm::predict(fp8, odd);
  EXPECT_EQ(registered.global_store_sectors, own.global_store_sectors);
  EXPECT_EQ(registered.global_load_sectors, own.global_load_sectors);
  EXPECT_EQ(registered.shared_store_wavefronts, own.shared_store_wavefronts);
  EXPECT_EQ(registered.shared_load_wavefronts, own.shared_load_wavefronts);
  EXPECT_GT(own.global_store_sectors, 0);  // beta != 0: the consumers store C themselves
}

// Step 20's entry is step 19's with its own functions: the tile by shape and the trace come from
// step20's mapping (which keeps step 19's: test_mapping_20.cpp).
TEST(Traces, Step20TracesItsOwnMapping) {
  const gemm::TracedProgram& fp8 = program("20_overlapped_epilogue");
  EXPECT_EQ(fp8.kernel, "fp8_gemm");
  EXPECT_EQ(fp8.layouts, std::vector<gemm::Layout>{gemm::Layout::nt});
  EXPECT_EQ(fp8.configs.size(), size_t(step20::kConfigCount));
  gemm::TraceProblem p = problem(4096, 4096, 4096, 0.0f);
  p.layout = gemm::Layout::nt;
  p.sms = 132;
  EXPECT_EQ(gemm::run_params(fp8, p), step20::to_params(step20::config_for_shape(p.shape, 132)));
  gemm::TraceProblem odd = problem(264, 232, 64, 0.5f);
  odd.layout = gemm::Layout::nt;
  odd.params = step20::to_params(step20::kConfigs[0]);
  const gemm::AccessTotals own = gemm::predict_launch(
      step20::trace_launch_shape(odd, step20::kConfigs[0]),
      [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) { step20::trace_warp(odd, block, warp, sink); });
  const gemm::AccessTotals registered = gemm::predict(fp8, odd);
  EXPECT_EQ(registered.global_store_sectors, own.global_store_sectors);
  EXPECT_EQ(registered.shared_store_wavefronts, own.shared_store_wavefronts);
  EXPECT_EQ(registered.shared_load_wavefronts, own.shared_load_wavefronts);
  EXPECT_GT(own.global_store_sectors, 0);
}

// What the viewer calls an iteration of each trace: what the program's loop steps over.
TEST(Traces, EveryProgramNamesItsIteration) {
  for (const auto& program : gemm::traced_programs()) {
    const std::string& unit = program.iteration_unit;
    if (!program.takes_shape) EXPECT_EQ(unit, "repetition") << program.step;
    else if (program.step < "05") EXPECT_EQ(unit, "k =") << program.step;
    else if (program.step >= "15") EXPECT_EQ(unit, "tile") << program.step;  // the Hopper steps: the epilogue of each tile
    else EXPECT_EQ(unit, "k-tile") << program.step;
  }
}

TEST(BankDemoMapping, EveryLoadedWordWasStored) {
  // For each variant, the words loaded are a subset of the words stored (else the demo reads junk).
  for (const auto& program : gemm::traced_programs()) {
    if (program.takes_shape) continue;
    std::vector<bool> stored(4096, false);
    const auto launch = program.launch({});
    for (int warp = 0; warp < gemm::warps_per_block(launch.block); ++warp)
      program.trace({}, {0, 0, 0}, warp, [&](const gemm::TraceInstruction& i) {
        if (i.access.space == gemm::Space::shared && i.access.access == gemm::Access::store && i.iteration == 0)
          for (int lane = 0; lane < 32; ++lane) stored[size_t(i.access.address[size_t(lane)] / 4)] = true;
      });
    for (int warp = 0; warp < gemm::warps_per_block(launch.block); ++warp)
      program.trace({}, {0, 0, 0}, warp, [&](const gemm::TraceInstruction& i) {
        if (i.access.space != gemm::Space::shared || i.access.access != gemm::Access::load || i.iteration != 0) return;
        for (int lane = 0; lane < 32; ++lane) {
          ASSERT_TRUE(stored[size_t(i.access.address[size_t(lane)] / 4)]) << program.step << " " << program.variant;
        }
      });
  }
}

namespace {
// Every thread's store and load cells lie inside the array the static variant declares
// (tile[array_rows][row_stride]) and are the words the trace lists; the square tile's transpose is tile[tx][ty].
template <size_t kCount>
void expect_cells_inside_the_array(const gemm::bank_demo::TileShape& tile, const gemm::bank_demo::Variant (&variants)[kCount]) {
  namespace demo = gemm::bank_demo;
  for (const demo::Variant& v : variants) {
    EXPECT_TRUE(demo::orders_share_one_array(v)) << v.name;
    for (int ty = 0; ty < tile.height; ++ty)
      for (int tx = 0; tx < tile.width; ++tx)
        for (const demo::Order order : {v.store, v.load}) {
          const demo::Cell at = demo::cell(tile, order, tx, ty);
          ASSERT_TRUE(at.row >= 0 && at.row < demo::array_rows(tile, v)) << v.name << " " << tx << "," << ty;
          ASSERT_TRUE(at.col >= 0 && at.col < demo::row_stride(tile, v) - v.pad) << v.name << " " << tx << "," << ty;
          EXPECT_EQ(demo::word_index(tile, v, order, tx, ty), at.row * demo::row_stride(tile, v) + at.col);
        }
  }
}
}  // namespace

TEST(BankDemoMapping, EveryCellIsInsideTheDeclaredArray) {
  expect_cells_inside_the_array(step03::kTile, step03::kVariants);
  expect_cells_inside_the_array(step04::kTile, step04::kVariants);
  namespace demo = gemm::bank_demo;
  const demo::Cell transposed = demo::cell(step03::kTile, demo::Order::transposed, 5, 9);
  EXPECT_EQ(transposed.row, 5);
  EXPECT_EQ(transposed.col, 9);
  EXPECT_EQ(demo::array_rows(step04::kTile, step04::kVariants[1]), 32);  // col_col: tile[32][16]
  EXPECT_EQ(demo::row_stride(step04::kTile, step04::kVariants[8]), 34);  // padded2: tile[16][34]
}
