// The viewer's model (viewer/viewer_model.hpp) against the steps' own functions and the access
// model: who owns each element of C, what an instruction touches, the bank picture, the counts
// and the results files, malformed ones included. No graphics needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "../../steps/09_warptiling/mapping.hpp"
#include "../../steps/10_cp_async_pipeline/mapping.hpp"
#include "../../steps/11_split_k_tail/mapping.hpp"
#include "link.hpp"
#include "viewer_model.hpp"

namespace gv = gemm::viewer;

namespace {
int program_index(const std::vector<gemm::TracedProgram>& programs, const std::string& step, const std::string& variant = "") {
  for (size_t i = 0; i < programs.size(); ++i)
    if (programs[i].step == step && programs[i].variant == variant) return int(i);
  return -1;
}
gemm::TraceProblem problem(int m, int n, int k, float beta = 0) {
  gemm::TraceProblem p;
  p.shape = {m, n, k};
  p.beta = beta;
  return p;
}
}  // namespace

TEST(ViewerModel, LaneColoursAreDistinct) {
  std::set<gv::Rgba> colours;
  for (int lane = 0; lane < 32; ++lane) colours.insert(gv::lane_colour(lane) & 0xffffffu);
  EXPECT_EQ(colours.size(), 32u);
  EXPECT_EQ(colours.count(gv::kUntouched & 0xffffffu), 0u);
}

TEST(ViewerModel, EveryElementOfCHasExactlyTheOwnerItsStepSays) {
  // Step 09's own index functions say which thread computes (row, col); the map, built from the
  // traces, must agree for every element, on a ragged shape.
  const auto programs = gemm::traced_programs();
  const int index = program_index(programs, "09_warptiling");
  ASSERT_GE(index, 0);
  const gemm::TraceProblem p = gv::with_defaults(programs[size_t(index)], problem(150, 260, 33));
  const gv::OwnerMap map = gv::owner_map(programs[size_t(index)], p);
  ASSERT_EQ(map.rows, 150);
  ASSERT_EQ(map.cols, 260);
  const step09::Config c = step09::config_from(p.params);
  const gemm::LaunchShape launch = step09::launch_shape(p.shape, c);
  int checked = 0;
  gemm::ThreadCoord t;
  for (t.block.y = 0; t.block.y < launch.grid.y; ++t.block.y)
    for (t.block.x = 0; t.block.x < launch.grid.x; ++t.block.x)
      for (t.thread.x = 0; t.thread.x < step09::threads(c); ++t.thread.x)
        for (int i = 0; i < c.tm; ++i)
          for (int j = 0; j < c.tn; ++j) {
            const gemm::CElement e = step09::c_element(p.shape, t, c, i, j);
            if (!e.valid) continue;
            const gv::Owner owner = map.at(e.row, e.col);
            ASSERT_EQ(owner.block, t.block.y * launch.grid.x + t.block.x);
            ASSERT_EQ(owner.thread, t.thread.x);
            ++checked;
          }
  EXPECT_EQ(checked, 150 * 260);
}

TEST(ViewerModel, TileChosenByShapeAsTheProgramChoosesIt) {
  // Step 11 without --param picks its block tile by shape for the GPU's SM count; the viewer, given
  // that count, shows the tile the program runs, and the thread map follows it.
  const auto programs = gemm::traced_programs();
  const int index = program_index(programs, "11_split_k_tail");
  ASSERT_GE(index, 0);
  const gemm::TracedProgram& step = programs[size_t(index)];
  constexpr int kSms = 132;
  gemm::TraceProblem odd = problem(4095, 4097, 16);
  EXPECT_EQ(step11::config_from(gv::with_defaults(step, odd).params), step11::kConfigs[0]);  // SMs unknown: the default
  odd.sms = kSms;
  const gemm::TraceProblem chosen = gv::with_defaults(step, odd);
  EXPECT_EQ(step11::config_from(chosen.params), step11::config_for_shape(odd.shape, kSms));
  EXPECT_EQ(step11::config_from(chosen.params), step11::kConfigs[step11::kTallConfig]);
  EXPECT_EQ(gv::owner_map(step, chosen).launch.grid.x, step11::launch_shape(odd.shape, step11::config_for_shape(odd.shape, kSms)).grid.x);
  // A --param set by the user wins, as it does in the program.
  odd.params = step11::to_params(step11::kConfigs[0]);
  EXPECT_EQ(step11::config_from(gv::with_defaults(step, odd).params), step11::kConfigs[0]);
}

// Step 10 chooses its tile the same way (step 11 keeps step 10's choice).
TEST(ViewerModel, Step10TileChosenByShapeAsTheProgramChoosesIt) {
  const auto programs = gemm::traced_programs();
  const int index = program_index(programs, "10_cp_async_pipeline");
  ASSERT_GE(index, 0);
  const gemm::TracedProgram& step = programs[size_t(index)];
  constexpr int kSms = 132;
  gemm::TraceProblem odd = problem(4095, 4097, 16);
  EXPECT_EQ(step10::config_from(gv::with_defaults(step, odd).params), step10::kConfigs[0]);  // SMs unknown: the default
  odd.sms = kSms;
  const gemm::TraceProblem chosen = gv::with_defaults(step, odd);
  EXPECT_EQ(step10::config_from(chosen.params), step10::kConfigs[step10::kTallConfig]);
  EXPECT_EQ(gv::owner_map(step, chosen).launch.grid.x, step10::launch_shape(odd.shape, step10::config_for_shape(odd.shape, kSms)).grid.x);
}

TEST(ViewerModel, EveryTracedProgramOwnsItsWholeOutput) {
  for (const auto& program : gemm::traced_programs()) {
    const gv::OwnerMap map = gv::owner_map(program, problem(37, 45, 29));
    for (int r = 0; r < map.rows; ++r)
      for (int c = 0; c < map.cols; ++c) ASSERT_GE(map.at(r, c).block, 0) << gv::program_label(program) << " " << r << "," << c;
  }
}

TEST(ViewerModel, TouchesDecodeTheLaneAddresses) {
  for (const auto& program : gemm::traced_programs())
    for (gemm::Layout layout : program.tensor_core ? program.layouts : std::vector<gemm::Layout>{gemm::Layout::nn}) {
      gemm::TraceProblem p = problem(40, 40, 32, 0.5f);  // rows of 16 bytes in every layout (K: the FP8 step's too)
      p.layout = layout;
      if (program.shape_rule) {
        ASSERT_EQ(program.shape_rule(p.shape, layout), "");
      }
      const gv::WarpTrace trace = gv::warp_trace(program, p, {0, 0, 0}, gv::first_traced_warp(program, p, {0, 0, 0}));
      ASSERT_FALSE(trace.instructions.empty()) << gv::program_label(program);
      for (const auto& instruction : trace.instructions) {
        const gv::OperandGrid grid = gv::operand_grid(instruction.operand, program, p, trace);
        const auto touched = gv::touches(instruction, grid);
        // A matrix cell is an element (2 or 4 bytes); a shared-memory cell is a 4-byte bank word, of
        // which a 2-byte access (step 12's transposed stores) touches one.
        const int unit = grid.banked ? 4 : instruction.element_bytes;
        const int cells = std::max(1, instruction.access.width / unit);
        int active = 0;
        for (int lane = 0; lane < 32; ++lane) active += instruction.access.lane_active(lane);
        ASSERT_EQ(int(touched.size()), active * cells) << instruction.label;
        for (const auto& t : touched) {
          ASSERT_TRUE(instruction.access.lane_active(t.lane));
          const long long element = (long long)t.row * grid.cols + t.col;
          const long long first = instruction.access.address[size_t(t.lane)] / unit;
          ASSERT_GE(element, first);
          ASSERT_LT(element, first + cells);
          ASSERT_LT(t.row, grid.rows) << instruction.label;
        }
      }
    }
}

TEST(ViewerModel, BankPictureAgreesWithTheAccessModel) {
  // Per phase, the largest number of distinct words in one bank is the model's phase cost.
  for (const auto& program : gemm::traced_programs()) {
    const gv::WarpTrace trace = gv::warp_trace(program, problem(64, 64, 32), {0, 0, 0}, 0);
    for (const auto& instruction : trace.instructions) {
      if (instruction.access.space != gemm::Space::shared) continue;
      const auto phases = gv::bank_phases(instruction.access);
      for (size_t phase = 0; phase < phases.size(); ++phase) {
        const auto load = gemm::bank_load(instruction.access, int(phase));
        for (int bank = 0; bank < 32; ++bank) ASSERT_EQ(phases[phase].distinct_words[size_t(bank)], load[size_t(bank)]);
      }
    }
  }
}

TEST(ViewerModel, ResultsFilesLoadOrSayWhyNot) {
  const gv::ResultsFile shipped = gv::load_results(GEMM_SOURCE_DIR "/docs/results/nvidia-h100-80gb-hbm3.json");
  ASSERT_TRUE(shipped.ok()) << shipped.error;
  EXPECT_FALSE(shipped.runs.empty());
  EXPECT_GT(shipped.fp32_peak_gflops(), 0);
  const gv::ResultsFile missing = gv::load_results("/nonexistent/results.json");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.error.find("cannot open"), std::string::npos);
  const std::string bad = ::testing::TempDir() + "gemm_viewer_bad.json";
  for (const char* text : {"{not json", "[1, 2, 3]", "{\"device\": {\"name\": 3}, \"runs\": []}",
                           "{\"device\": {\"name\": \"x\", \"compute_capability\": \"9.0\", \"sms\": 1, \"clock_mhz\": 1},"
                           " \"runs\": [{\"step\": \"01\", \"shapes\": [{\"m\": \"big\", \"time\": {\"gflops\": 1}}]}]}"}) {
    std::ofstream(bad) << text;
    const gv::ResultsFile file = gv::load_results(bad);
    EXPECT_FALSE(file.ok()) << text;
    EXPECT_TRUE(file.runs.empty());
  }
  std::remove(bad.c_str());
  const auto listed = gv::results_files_in(GEMM_SOURCE_DIR "/docs/results");
  for (const auto& path : listed) EXPECT_EQ(path.find("sweep-"), std::string::npos);
  EXPECT_FALSE(listed.empty());
}

// ---- What the panels write and plot (the panels only draw it) ------------------------------------

TEST(ViewerModel, NamesOfTheSelection) {
  const auto programs = gemm::traced_programs();
  const gemm::TracedProgram& step05 = programs[size_t(program_index(programs, "05_smem_tiling"))];
  EXPECT_EQ(gv::shape_text(gemm::GemmShape{64, 32, 16}), "64x32x16");
  EXPECT_EQ(gv::shape_text(gv::rounded_up_to_8({1, 8, 9})), "8x8x16");
  EXPECT_EQ(gv::params_text({{"BM", 64}, {"BK", 8}}), "BK=8 BM=64 ");
  gemm::TraceProblem p = problem(64, 64, 32);
  p.params = {{"BM", 32}, {"BN", 16}};
  EXPECT_EQ(gv::problem_text(step05, p), "05_smem_tiling, 64 x 64 x 32; BM=32 BN=16");
  const gemm::TracedProgram& step12 = programs[size_t(program_index(programs, "12_wmma"))];
  gemm::TraceProblem tc = problem(32, 32, 16);
  tc.layout = gemm::Layout::tn;
  EXPECT_EQ(gv::problem_text(step12, tc), "12_wmma, 32 x 32 x 16, tn");
  for (gv::ColourBy by : {gv::ColourBy::block, gv::ColourBy::warp, gv::ColourBy::thread})
    EXPECT_EQ(gv::colour_by_named(gv::to_string(by)), by);
  EXPECT_EQ(gv::colour_by_named("lane"), gv::ColourBy::thread);
}

TEST(ViewerModel, ThreadMapPixelsDigestAndTexts) {
  const auto programs = gemm::traced_programs();
  const gemm::TracedProgram& step05 = programs[size_t(program_index(programs, "05_smem_tiling"))];
  const gv::OwnerMap map = gv::owner_map(step05, problem(64, 48, 32));
  const auto pixels = map.pixels(gv::ColourBy::warp);
  ASSERT_EQ(pixels.size(), size_t(64 * 48));
  for (int r = 0; r < map.rows; ++r)
    for (int c = 0; c < map.cols; ++c) ASSERT_EQ(pixels[size_t(r * 48 + c)], map.colour(r, c, gv::ColourBy::warp));
  // The digest is FNV-1a over the owners: another mapping of the same size has another digest.
  std::uint64_t hash = 1469598103934665603ull;
  for (const std::uint32_t key : map.packed) hash = (hash ^ key) * 1099511628211ull;
  EXPECT_EQ(map.digest(), hash);
  const gemm::TracedProgram& step01 = programs[size_t(program_index(programs, "01_naive"))];
  EXPECT_NE(gv::owner_map(step01, problem(64, 48, 32)).digest(), map.digest());

  EXPECT_EQ(gv::thread_map_title(step05, map), "Thread map: C of 05_smem_tiling, 64 x 48");
  const gemm::LaunchShape l = map.launch;
  EXPECT_EQ(gv::launch_text(l), "grid " + std::to_string(l.grid.x) + " x " + std::to_string(l.grid.y) + " x " +
                                    std::to_string(l.grid.z) + " blocks of " + std::to_string(l.block.x) + " x " +
                                    std::to_string(l.block.y) + " x " + std::to_string(l.block.z) + " threads");
  EXPECT_EQ(gv::no_owner_text(step05), "No thread stores an element here.");

  // A thread's elements: every one whose key is the thread's, the first 8 listed.
  const gv::Owner owner = map.at(5, 7);
  ASSERT_GE(owner.block, 0);
  EXPECT_TRUE(owner.in_warp(owner.block_coord, owner.warp));
  EXPECT_FALSE(owner.in_warp(owner.block_coord, owner.warp + 1));
  const gv::ThreadElements mine = gv::elements_of(map, owner.key(), 2);
  long long count = 0;
  for (int r = 0; r < map.rows; ++r)
    for (int c = 0; c < map.cols; ++c) count += map.at(r, c).key() == owner.key() && map.at(r, c).block >= 0;
  EXPECT_EQ(mine.count, count);
  EXPECT_LE(mine.first.size(), 2u);
  gv::ThreadElements few;
  few.first = {{0, 1}, {2, 3}};
  few.count = 2;
  EXPECT_EQ(gv::owned_text(few), "owns 2 elements: (0,1) (2,3)");
  few.count = 5;
  EXPECT_EQ(gv::owned_text(few), "owns 5 elements: (0,1) (2,3) ...");
  few.first = {{4, 4}};
  few.count = 1;
  EXPECT_EQ(gv::owned_text(few), "owns 1 element: (4,4)");
}

TEST(ViewerModel, MapWindowFitsOrZoomsAndClampsThePan) {
  gv::OwnerMap map;
  map.rows = 64, map.cols = 64;
  float pan_row = 0, pan_col = 0;
  gv::MapWindow w = gv::map_window(map, 300, 200, 0, pan_row, pan_col);  // fit: whole pixels per cell
  EXPECT_EQ(w.cell, 3.0f);
  EXPECT_EQ(w.rows, 64);
  EXPECT_EQ(w.cols, 64);
  map.rows = map.cols = 1000;  // larger than the area: a fraction of a pixel per cell
  w = gv::map_window(map, 250, 500, 0, pan_row, pan_col);
  EXPECT_FLOAT_EQ(w.cell, 0.25f);
  EXPECT_EQ(w.cols, 1000);
  map.rows = map.cols = 64;
  pan_row = -5, pan_col = 100;
  w = gv::map_window(map, 300, 200, 10, pan_row, pan_col);  // zoomed: 30 x 20 cells, the pan kept on the map
  EXPECT_EQ(w.cols, 30);
  EXPECT_EQ(w.rows, 20);
  EXPECT_EQ(w.col0, 34);
  EXPECT_EQ(w.row0, 0);
  EXPECT_EQ(pan_col, 34.0f);
  EXPECT_EQ(pan_row, 0.0f);
}

TEST(ViewerModel, AccessTextsAreTheModelsCounts) {
  const auto programs = gemm::traced_programs();
  const gemm::TracedProgram& step05 = programs[size_t(program_index(programs, "05_smem_tiling"))];
  const gemm::TraceProblem p = problem(64, 64, 32);
  const gv::WarpTrace trace = gv::warp_trace(step05, p, {0, 0, 0}, 0);
  bool global = false, shared = false;
  for (const auto& ins : trace.instructions) {
    const gv::InstructionCost cost = gv::instruction_cost(ins);
    const std::string it = step05.iteration_unit + " " + std::to_string(ins.iteration);
    EXPECT_EQ(gv::iteration_text(step05, ins.iteration), it);
    EXPECT_EQ(gv::instruction_text(ins), std::string(ins.label) + ", " + std::to_string(ins.access.width) + " B");
    const std::string row = gv::instruction_row_text(step05, ins.iteration, ins);
    EXPECT_EQ(row.rfind(it + ": " + gv::instruction_text(ins) + "   ", 0), 0u) << row;
    if (cost.shared) {
      shared = true;
      EXPECT_NE(row.find(std::to_string(cost.shared_cost.wavefronts) + " wavefronts (ideal " +
                         std::to_string(cost.shared_cost.ideal_wavefronts) + ")"), std::string::npos) << row;
      EXPECT_EQ(gv::cost_text(cost), "this instruction: " + std::to_string(cost.shared_cost.wavefronts) + " wavefronts, ideal " +
                                         std::to_string(cost.shared_cost.ideal_wavefronts) + ", worst conflict " +
                                         std::to_string(cost.shared_cost.max_conflict) + "-way");
    } else {
      global = true;
      EXPECT_NE(row.find(std::to_string(cost.global.sectors) + " sectors (ideal " +
                         std::to_string(cost.global.ideal_sectors) + ")"), std::string::npos) << row;
      EXPECT_EQ(gv::cost_text(cost), "this instruction: " + std::to_string(cost.global.requests) + " request, " +
                                         std::to_string(cost.global.sectors) + " sectors (ideal " +
                                         std::to_string(cost.global.ideal_sectors) + "), " +
                                         std::to_string(cost.global.lines) + " lines");
    }
    EXPECT_EQ(gv::cp_async_note(ins), "");  // step 05 copies through registers
  }
  EXPECT_TRUE(global && shared);
  gemm::AccessTotals t;
  t.global_load_sectors = 1, t.global_store_sectors = 2, t.shared_load_wavefronts = 3, t.shared_store_wavefronts = 4;
  t.shared_load_requests = 5, t.shared_store_requests = 6;
  const std::vector<std::string> lines = gv::totals_text(t);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], "  global: 1 load sectors, 2 store sectors");
  EXPECT_EQ(lines[2], "  shared: 3 load wavefronts, 4 store wavefronts");
  EXPECT_EQ(lines[3], "  shared instructions: 5 loads, 6 stores");

  // Step 10's cp.async: a note on how it is counted, whichever path its copies take.
  const gemm::TracedProgram& step10 = programs[size_t(program_index(programs, "10_cp_async_pipeline"))];
  int notes = 0;
  for (const auto& ins : gv::warp_trace(step10, problem(128, 128, 32), {0, 0, 0}, 0).instructions) {
    const std::string note = gv::cp_async_note(ins);
    if (!ins.access.async_copy) {
      EXPECT_EQ(note, "");
    }
    notes += note.rfind("cp.async ", 0) == 0;
  }
  EXPECT_GT(notes, 0);
  // Step 18's producer warps issue nothing: the text says why.
  const gemm::TracedProgram& step18 = programs[size_t(program_index(programs, "18_tma_store_epilogue"))];
  EXPECT_NE(gv::quiet_warp_text(step18).find("(" + step18.quiet_warps + ")"), std::string::npos);
  EXPECT_EQ(gv::quiet_warp_text(step05).find("("), std::string::npos);
}

TEST(ViewerModel, OperandWindowCentresTheTouchedElements) {
  gv::OperandGrid grid;
  grid.rows = 200, grid.cols = 300;
  const std::vector<gv::Touch> touched = {{100, 150, 0}, {101, 151, 1}};
  const gv::OperandWindow w = gv::operand_window(grid, touched);
  EXPECT_EQ(w.rows, 8);   // at least 8 rows and 32 columns, the touched ones in the middle
  EXPECT_EQ(w.cols, 32);
  EXPECT_EQ(w.row0, 100 - 3);
  EXPECT_EQ(w.col0, 150 - 15);
  const std::vector<gv::Rgba> pixels = w.pixels(touched);
  ASSERT_EQ(pixels.size(), size_t(8 * 32));
  EXPECT_EQ(pixels[size_t(3 * 32 + 15)], gv::lane_colour(0));
  EXPECT_EQ(pixels[size_t(4 * 32 + 16)], gv::lane_colour(1));
  EXPECT_EQ(std::count(pixels.begin(), pixels.end(), gv::kUntouched), 8 * 32 - 2);
  // Far apart: at most 64 x 64; at the edge: kept on the operand; banked: from bank 0.
  const gv::OperandWindow wide = gv::operand_window(grid, {{0, 0, 0}, {199, 299, 1}});
  EXPECT_EQ(wide.rows, 64);
  EXPECT_EQ(wide.cols, 64);
  EXPECT_EQ(gv::operand_window(grid, {{199, 299, 0}}).row0, 200 - 8);
  gv::OperandGrid banks;
  banks.rows = 16, banks.cols = 32, banks.banked = true;
  EXPECT_EQ(gv::operand_window(banks, {{5, 20, 0}}).col0, 0);
  EXPECT_EQ(gv::operand_window(grid, {}).rows, 8);  // nothing touched: the top left

  gemm::TraceInstruction ins{};
  ins.operand = gemm::Operand::A;
  ins.access.space = gemm::Space::global;
  EXPECT_EQ(gv::operand_caption(ins, grid, w), "global A (200 x 300), rows 97-104, columns 135-166");
  ins.operand = gemm::Operand::smem_A;
  ins.access.space = gemm::Space::shared;
  EXPECT_EQ(gv::operand_caption(ins, banks, gv::operand_window(banks, {{5, 20, 0}})),
            "shared A (16 x 32, one column per bank), rows 2-9, columns 0-31");
  EXPECT_EQ(gv::boundary_at(64, 4), gv::Boundary::line);
  EXPECT_EQ(gv::boundary_at(40, 4), gv::Boundary::sector);
  EXPECT_EQ(gv::boundary_at(41, 4), gv::Boundary::none);
  // 16-bit elements (steps 12-14's A and B): a sector every 16, a line every 64.
  EXPECT_EQ(gv::boundary_at(64, 2), gv::Boundary::line);
  EXPECT_EQ(gv::boundary_at(32, 2), gv::Boundary::sector);
  EXPECT_EQ(gv::boundary_at(40, 2), gv::Boundary::none);
}

namespace {
gv::ResultPoint point(int m, int n, int k, double gflops, double cublas, double tf32 = 0) {
  gv::ResultPoint p;
  p.m = m, p.n = n, p.k = k, p.gflops = gflops, p.cublas_gflops = cublas, p.tf32_gflops = tf32, p.median_ms = 1.5;
  return p;
}
// Two fp32 runs and a tensor-core one on a GPU of 2 SMs at 1000 MHz (fp32 peak 512 GFLOPS).
gv::ResultsFile made_up_results() {
  gv::ResultsFile file;
  file.path = "/somewhere/made-up.json";
  file.gpu = "Made-up GPU";
  file.compute_capability = "9.0";
  file.sms = 2, file.clock_mhz = 1000;
  gv::ResultRun naive;
  naive.step = "01_naive", naive.commit = "0123456789abcdef", naive.date = "2026-11-26";
  naive.points = {point(128, 128, 128, 10, 100), point(4096, 4096, 4096, 20, 300, 900), point(64, 128, 32, 5, 50)};
  gv::ResultRun warps;
  warps.step = "09_warptiling";
  warps.points = {point(4096, 4096, 4096, 200, 310), point(1024, 1024, 1024, 150, 250)};
  gv::ResultRun wmma;
  wmma.step = "12_wmma", wmma.dtype = "bf16", wmma.layout = "nt";
  wmma.points = {point(4096, 4096, 4096, 1000, 2000)};
  file.runs = {naive, wmma, warps};
  return file;
}
}  // namespace

TEST(ViewerModel, TheFp8StepHasAViewOfItsOwn) {
  gv::ResultsFile file = made_up_results();
  gv::ResultRun fp8;
  fp8.step = "19_fp8", fp8.dtype = "e4m3", fp8.layout = "nt", fp8.out = "bf16";
  fp8.points = {point(4096, 4096, 4096, 4000, 4200)};
  file.runs.push_back(fp8);
  const gv::PerformanceView tensor = gv::performance_view(file, gv::RunGroup::tensor, -1);
  ASSERT_EQ(tensor.runs.size(), 1u);  // the 16-bit run only: FP8's scale would flatten its bars
  EXPECT_EQ(tensor.runs[0]->step, "12_wmma");
  EXPECT_DOUBLE_EQ(tensor.bar_top, 2000 * 1.05);
  const gv::PerformanceView fp8_view = gv::performance_view(file, gv::RunGroup::fp8, -1);
  ASSERT_EQ(fp8_view.runs.size(), 1u);
  EXPECT_EQ(fp8_view.runs[0]->step, "19_fp8");
  EXPECT_DOUBLE_EQ(fp8_view.peak, 0);  // against cuBLASLt, no peak line
  EXPECT_DOUBLE_EQ(fp8_view.bar_top, 4200 * 1.05);
}

TEST(ViewerModel, PerformanceViewSortsShapesAndScalesTheCharts) {
  const gv::ResultsFile file = made_up_results();
  ASSERT_DOUBLE_EQ(file.fp32_peak_gflops(), 512);
  const gv::PerformanceView v = gv::performance_view(file, gv::RunGroup::fp32, -1);
  ASSERT_EQ(v.runs.size(), 2u);  // the fp32 runs, in the file's order
  EXPECT_EQ(v.runs[0]->step, "01_naive");
  EXPECT_EQ(v.runs[1]->step, "09_warptiling");
  const std::vector<gv::MeasuredShape> shapes = {{128, 128, 128}, {1024, 1024, 1024}, {4096, 4096, 4096}, {64, 128, 32}};
  EXPECT_EQ(v.shapes, shapes);  // square first, ascending
  EXPECT_EQ(v.shape, 2);        // 4096^3 when measured
  EXPECT_DOUBLE_EQ(v.peak, 512);
  EXPECT_DOUBLE_EQ(v.tf32, 900);
  ASSERT_EQ(v.bars.size(), 2u);
  EXPECT_EQ(v.bars[0].run, 0u);
  EXPECT_DOUBLE_EQ(v.bars[0].point->gflops, 20);
  EXPECT_EQ(v.bars[1].run, 1u);
  EXPECT_DOUBLE_EQ(v.bars[1].point->gflops, 200);
  EXPECT_DOUBLE_EQ(v.bar_cublas, 310);
  EXPECT_DOUBLE_EQ(v.bar_top, 512 * 1.05);  // the peak is the highest
  EXPECT_EQ(v.sizes, (std::vector<int>{128, 1024, 4096}));
  EXPECT_DOUBLE_EQ(v.line_top, 512 * 1.05);
  ASSERT_EQ(v.lines.size(), 2u);
  ASSERT_EQ(v.lines[0].size(), 2u);  // 01 at 128 and 4096, by size
  EXPECT_EQ(v.lines[0][0].size, 0u);
  EXPECT_EQ(v.lines[0][1].size, 2u);
  ASSERT_EQ(v.lines[1].size(), 2u);  // 09 at 1024 and 4096
  EXPECT_EQ(v.lines[1][0].size, 1u);
  EXPECT_DOUBLE_EQ(v.lines[1][0].point->gflops, 150);

  const gv::PerformanceView odd = gv::performance_view(file, gv::RunGroup::fp32, 3);  // the shape asked for
  EXPECT_EQ(odd.shape, 3);
  ASSERT_EQ(odd.bars.size(), 1u);
  EXPECT_DOUBLE_EQ(odd.bar_cublas, 50);
  EXPECT_DOUBLE_EQ(odd.tf32, 0);
  EXPECT_EQ(gv::performance_view(file, gv::RunGroup::fp32, 99).shape, 2);  // out of range: 4096^3 again

  const gv::PerformanceView tc = gv::performance_view(file, gv::RunGroup::tensor, -1);
  ASSERT_EQ(tc.runs.size(), 1u);
  EXPECT_DOUBLE_EQ(tc.peak, 0);  // no peak line for tensor-core runs: cuBLAS is the top
  EXPECT_DOUBLE_EQ(tc.bar_top, 2000 * 1.05);
  EXPECT_DOUBLE_EQ(tc.line_top, 2000 * 1.05);

  gv::ResultsFile small = file;
  small.runs = {small.runs[0]};
  small.runs[0].points.erase(small.runs[0].points.begin() + 1);  // no 4096^3: the first shape
  EXPECT_EQ(gv::performance_view(small, gv::RunGroup::fp32, -1).shape, 0);
  const gv::PerformanceView none = gv::performance_view(small, gv::RunGroup::tensor, -1);
  EXPECT_TRUE(none.shapes.empty());
  EXPECT_EQ(none.shape, -1);
}

TEST(ViewerModel, PerformanceTexts) {
  const gv::ResultsFile file = made_up_results();
  EXPECT_EQ(gv::results_name(file), "Made-up GPU  (made-up.json)");
  gv::ResultsFile broken;
  broken.path = "/x/broken.json";
  broken.error = "cannot open";
  EXPECT_EQ(gv::results_name(broken), "broken.json (unusable)");
  EXPECT_EQ(gv::tflops_text(41260), "41.3 TFLOPS");
  EXPECT_EQ(gv::shape_text(gv::MeasuredShape{64, 128, 32}), "64x128x32");
  const gv::ResultRun& naive = file.runs[0];
  const gv::ResultRun& wmma = file.runs[1];
  EXPECT_EQ(gv::short_name(naive), "01");
  EXPECT_EQ(gv::legend_text(naive), "01 ");
  EXPECT_EQ(gv::legend_text(wmma), "12 NT bf16->f32");
  const std::vector<std::string> tip = gv::bar_tooltip(naive, naive.points[1], {4096, 4096, 4096});
  ASSERT_EQ(tip.size(), 4u);
  EXPECT_EQ(tip[0], "01_naive at 4096x4096x4096");
  EXPECT_EQ(tip[1], "20.0 GFLOPS (1.500 ms), cuBLAS 300.0 GFLOPS: 6.7%");
  EXPECT_EQ(tip[2], "cuBLAS in TF32 on the tensor cores (a reference, not fp32): 900.0 GFLOPS");
  EXPECT_EQ(tip[3], "commit 0123456789, 2026-11-26");
  EXPECT_EQ(gv::bar_tooltip(naive, naive.points[0], {128, 128, 128}).size(), 3u);  // no TF32 reference
  EXPECT_EQ(gv::line_point_text(wmma, 4096, wmma.points[0]), "12_wmma NT bf16->f32 at 4096^3: 1000 GFLOPS, cuBLAS 2000");
  // A variant (a run of the step apart, as step 19's without promotion) is named, so that its bar
  // and line are told from the step's own run of the same types.
  gv::ResultRun fp8;
  fp8.step = "19_fp8", fp8.dtype = "e4m3", fp8.layout = "nt", fp8.out = "bf16";
  gv::ResultRun no_promotion = fp8;
  no_promotion.variant = "no-promotion";
  EXPECT_EQ(fp8.label(), "19_fp8 NT e4m3->bf16");
  EXPECT_EQ(no_promotion.label(), "19_fp8 / no-promotion NT e4m3->bf16");
  EXPECT_EQ(gv::legend_text(fp8), "19 NT e4m3->bf16");
  EXPECT_EQ(gv::legend_text(no_promotion), "19 no-promotion NT e4m3->bf16");
}

// ---- The tensor-core steps' thread map: who holds each element of C (held_map) -------------------

namespace {
const gemm::TracedProgram& program_named(const std::vector<gemm::TracedProgram>& programs, const std::string& step) {
  const int index = program_index(programs, step);
  if (index < 0) throw std::runtime_error("no traced program " + step);
  return programs[size_t(index)];
}
// The owner the map gives an element: (block, thread, register).
std::tuple<int, int, int> owner_of(const gv::OwnerMap& map, int row, int col) {
  const gv::Owner o = map.at(row, col);
  return {o.block, o.thread, o.reg};
}
}  // namespace

// Steps 12, 14, 15, 18 and 22: every element of the map has the holder the step's own functions
// give (fragment_row/col, accumulator_row/col, tile_at, consumer_row0 ...), called here directly.
TEST(ViewerHeldMap, Step12IsTheWarpsFragments) {
  const auto programs = gemm::traced_programs();
  const gemm::TracedProgram& step = program_named(programs, "12_wmma");
  for (const auto& params : step.configs) {
    gemm::TraceProblem p = problem(200, 296, 32);
    p.params = params;
    const gv::OwnerMap map = gv::held_map(step, p);
    ASSERT_TRUE(map.held);
    EXPECT_FALSE(map.lanes_known);
    const step12::Config c = step12::config_from(params);
    const gemm::LaunchShape launch = step12::launch_shape(p.shape, c);
    long long checked = 0;
    for (int by = 0; by < launch.grid.y; ++by)
      for (int bx = 0; bx < launch.grid.x; ++bx)
        for (int warp = 0; warp < step12::warps(c); ++warp)
          for (int i = 0; i < c.wm / 16; ++i)
            for (int j = 0; j < c.wn / 16; ++j)
              for (int e = 0; e < 256; ++e) {
                const int row = by * c.bm + step12::fragment_row(warp, c, i) + e / 16;
                const int col = bx * c.bn + step12::fragment_col(warp, c, j) + e % 16;
                if (row >= p.shape.m || col >= p.shape.n) continue;
                ASSERT_EQ(owner_of(map, row, col), std::make_tuple(by * launch.grid.x + bx, warp * 32, i * (c.wn / 16) + j));
                ++checked;
              }
    EXPECT_EQ(checked, 200 * 296);
  }
}

TEST(ViewerHeldMap, Step14IsTheMmaSyncFragments) {
  const auto programs = gemm::traced_programs();
  const gemm::TracedProgram& step = program_named(programs, "14_mma_ldmatrix");
  for (const auto& params : step.configs) {
    gemm::TraceProblem p = problem(200, 328, 32);
    p.params = params;
    const gv::OwnerMap map = gv::held_map(step, p);
    ASSERT_TRUE(map.lanes_known);
    EXPECT_EQ(map.mma, gemm::MmaKind::mma_sync);
    const step14::Config c = step14::config_from(params);
    const gemm::LaunchShape launch = step14::launch_shape(p.shape, c);
    long long checked = 0;
    for (int by = 0; by < launch.grid.y; ++by)
      for (int bx = 0; bx < launch.grid.x; ++bx)
        for (int warp = 0; warp < step14::warps(c); ++warp)
          for (int i = 0; i < c.wm / 16; ++i)
            for (int j = 0; j < c.wn / 8; ++j)
              for (int r = 0; r < 4; ++r)
                for (int lane = 0; lane < 32; ++lane) {
                  const int row = by * c.bm + step14::fragment_row(warp, c, i) + step14::accumulator_row(lane, r);
                  const int col = bx * c.bn + step14::fragment_col(warp, c, j) + step14::accumulator_col(lane, r);
                  if (row >= p.shape.m || col >= p.shape.n) continue;
                  ASSERT_EQ(owner_of(map, row, col),
                            std::make_tuple(by * launch.grid.x + bx, warp * 32 + lane, (i * (c.wn / 8) + j) * 4 + r));
                  ++checked;
                }
    EXPECT_EQ(checked, 200 * 328);
  }
}

TEST(ViewerHeldMap, Step15IsOneWarpgroupsWgmmaAccumulators) {
  const auto programs = gemm::traced_programs();
  const gemm::TracedProgram& step = program_named(programs, "15_tma_wgmma");
  for (const auto& params : step.configs) {
    gemm::TraceProblem p = problem(200, 328, 64);
    p.params = params;
    const gv::OwnerMap map = gv::held_map(step, p);
    EXPECT_EQ(map.mma, gemm::MmaKind::wgmma);
    const step15::Config c = step15::config_from(params);
    const gemm::LaunchShape launch = step15::launch_shape(p.shape, c);
    long long checked = 0;
    for (int by = 0; by < launch.grid.y; ++by)
      for (int bx = 0; bx < launch.grid.x; ++bx) {
        const step15::TileCoord tile = step15::tile_of({bx, by, 0});
        for (int warp = 0; warp < 4; ++warp)
          for (int reg = 0; reg < c.bn / 2; ++reg)
            for (int lane = 0; lane < 32; ++lane) {
              const int row = tile.m * c.bm + step15::accumulator_row(warp, lane, reg);
              const int col = tile.n * c.bn + step15::accumulator_col(lane, reg);
              if (row >= p.shape.m || col >= p.shape.n) continue;
              ASSERT_EQ(owner_of(map, row, col), std::make_tuple(by * launch.grid.x + bx, warp * 32 + lane, reg));
              ++checked;
            }
      }
    EXPECT_EQ(checked, 200 * 328);
  }
}

namespace {
// A persistent step (18, 22): the blocks of each cluster take units q, q + clusters, ...; consumer k
// of a block holds its tile's rows from consumer_row0; a narrow tile's wgmma has n = 64.
template <typename Step, typename Config>
void expect_persistent_holders(const gemm::TracedProgram& step, const gemm::TraceProblem& p, const Config& c) {
  const gv::OwnerMap map = gv::held_map(step, p);
  const gemm::LaunchShape launch = Step::launch(p, c);
  const int clusters = launch.grid.x / c.cluster;
  long long checked = 0;
  for (int block = 0; block < launch.grid.x; ++block) {
    const int cluster = block / c.cluster, rank = block % c.cluster;
    for (int u = cluster; u < Step::units(p.shape, c); u += clusters) {
      const auto tile = Step::tile_at(u, rank, p.shape, c);
      const int n = Step::narrow_tile(tile.n, p.shape, c) ? 64 : c.bn;
      for (int consumer = 0; consumer < c.bm / 64; ++consumer)
        for (int warp = 0; warp < 4; ++warp)
          for (int reg = 0; reg < n / 2; ++reg)
            for (int lane = 0; lane < 32; ++lane) {
              const int row = Step::consumer_row0(tile, consumer, c) + Step::accumulator_row(warp, lane, reg);
              const int col = Step::tile_col0(tile, c) + Step::accumulator_col(lane, reg);
              if (row >= p.shape.m || col >= p.shape.n) continue;
              ASSERT_EQ(owner_of(map, row, col), std::make_tuple(block, (1 + consumer) * 128 + warp * 32 + lane, reg))
                  << step.step << " (" << row << ", " << col << ")";
              ++checked;
            }
    }
  }
  EXPECT_EQ(checked, (long long)p.shape.m * p.shape.n) << step.step;
}
struct Step18 {
  static gemm::LaunchShape launch(const gemm::TraceProblem& p, const step18::Config& c) { return step18::trace_launch_shape(p, c); }
  static int units(const gemm::GemmShape& s, const step18::Config& c) { return step18::units(s, c); }
  static step18::TileCoord tile_at(int u, int rank, const gemm::GemmShape& s, const step18::Config& c) { return step18::tile_at(u, rank, s, c); }
  static bool narrow_tile(int n, const gemm::GemmShape& s, const step18::Config& c) { return step18::narrow_tile(n, s, c); }
  static int consumer_row0(const step18::TileCoord& t, int k, const step18::Config& c) { return step18::consumer_row0(t, k, c); }
  static int tile_col0(const step18::TileCoord& t, const step18::Config& c) { return step18::tile_col0(t, c); }
  static int accumulator_row(int w, int lane, int reg) { return step18::accumulator_row(w, lane, reg); }
  static int accumulator_col(int lane, int reg) { return step18::accumulator_col(lane, reg); }
};
struct Step22 {
  static gemm::LaunchShape launch(const gemm::TraceProblem& p, const step22::Config& c) { return step22::trace_launch_shape(p, c); }
  static int units(const gemm::GemmShape& s, const step22::Config& c) { return step22::units(s, c); }
  static step22::TileCoord tile_at(int u, int rank, const gemm::GemmShape& s, const step22::Config& c) { return step22::tile_at(u, rank, s, c); }
  static bool narrow_tile(int n, const gemm::GemmShape& s, const step22::Config& c) { return step22::narrow_tile(n, s, c); }
  static int consumer_row0(const step22::TileCoord& t, int k, const step22::Config& c) { return step22::consumer_row0(t, k, c); }
  static int tile_col0(const step22::TileCoord& t, const step22::Config& c) { return step22::tile_col0(t, c); }
  static int accumulator_row(int w, int lane, int reg) { return step22::accumulator_row(w, lane, reg); }
  static int accumulator_col(int lane, int reg) { return step22::accumulator_col(lane, reg); }
};
}  // namespace

TEST(ViewerHeldMap, PersistentStepsDealTheirTilesAsTheStepsSay) {
  const auto programs = gemm::traced_programs();
  for (int sms : {4, 132})  // several tiles per block, and the H100's grid
    for (const gemm::GemmShape& shape : {gemm::GemmShape{328, 296, 64}, gemm::GemmShape{200, 600, 128}}) {
      for (const auto& params : program_named(programs, "18_tma_store_epilogue").configs) {
        gemm::TraceProblem p = problem(shape.m, shape.n, shape.k);
        p.params = params, p.sms = sms;
        expect_persistent_holders<Step18>(program_named(programs, "18_tma_store_epilogue"), p, step18::config_from(params));
      }
      for (const auto& params : program_named(programs, "22_tile_width").configs) {
        gemm::TraceProblem p = problem(shape.m, shape.n, shape.k);
        p.params = params, p.sms = sms, p.layout = gemm::Layout::nt;
        expect_persistent_holders<Step22>(program_named(programs, "22_tile_width"), p, step22::config_from(params));
      }
    }
}

TEST(ViewerHeldMap, EveryTensorCoreStepHoldsAllOfCAndNamesIt) {
  for (const auto& program : gemm::traced_programs()) {
    if (!program.accumulators) continue;
    gemm::TraceProblem p = problem(136, 200, 64);
    p.layout = program.layouts.front();
    const gv::OwnerMap map = gv::thread_map(program, p);
    ASSERT_TRUE(map.held) << program.step;
    EXPECT_EQ(map.stores.elements, 136 * 200) << program.step;
    EXPECT_NE(gv::thread_map_title(program, map).find("by who holds it"), std::string::npos);
    // Hover: the element as the step's function gives it, named with its instruction.
    const gv::Owner owner = map.at(135, 199);
    const std::optional<gemm::HeldElement> held = gv::held_element(program, p, map, 135, 199);
    ASSERT_TRUE(held.has_value()) << program.step;
    EXPECT_EQ(held->row, 135);
    EXPECT_EQ(held->col, 199);
    EXPECT_EQ(held->reg, owner.reg);
    const std::vector<std::string> lines = gv::held_text(*held, owner, map.launch);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0].rfind(gv::instruction_name(held->mma) + ": ", 0), 0u) << lines[0];
    if (map.lanes_known) {
      EXPECT_NE(lines[0].find("thread " + std::to_string(owner.thread) + " "), std::string::npos) << lines[0];
      EXPECT_NE(lines[0].find("accumulator register " + std::to_string(owner.reg)), std::string::npos) << lines[0];
    } else {
      EXPECT_NE(lines[0].find("WMMA API"), std::string::npos) << lines[0];
    }
  }
  // The fp32 steps keep the map of stores.
  const auto programs = gemm::traced_programs();
  EXPECT_FALSE(gv::thread_map(program_named(programs, "11_split_k_tail"), problem(64, 64, 32)).held);
}

TEST(ViewerHeldMap, TextsAndColours) {
  const auto programs = gemm::traced_programs();
  EXPECT_EQ(gv::instruction_name({gemm::MmaKind::wgmma, 64, 256, 16}), "wgmma.m64n256k16");
  EXPECT_EQ(gv::instruction_name({gemm::MmaKind::mma_sync, 16, 8, 16}), "mma.sync.m16n8k16");
  EXPECT_EQ(gv::instruction_name({gemm::MmaKind::wmma, 16, 16, 16}), "wmma::mma_sync m16n16k16");
  gemm::HeldElement h;
  h.mma = {gemm::MmaKind::wgmma, 64, 256, 16};
  h.lane = 5, h.reg = 37, h.tile_m = 3, h.tile_n = 1, h.tile = 2;
  gv::Owner o;
  o.block = 17, o.thread = 133, o.warp = 4, o.lane = 5, o.warpgroup = 1, o.reg = 37;
  gemm::LaunchShape persistent;
  persistent.grid = {132, 1, 1};
  const std::vector<std::string> lines = gv::held_text(h, o, persistent);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "wgmma.m64n256k16: thread 133 (warpgroup 1, warp 4, lane 5), accumulator register 37");
  EXPECT_EQ(lines[1], "tile (3, 1) of C, computed by block 17, the 3rd it takes");
  for (const auto& [tile, text] : {std::pair<int, const char*>{1, "2nd"}, {10, "11th"}, {11, "12th"}, {20, "21st"}, {22, "23rd"}}) {
    h.tile = tile;
    EXPECT_NE(gv::held_text(h, o, persistent)[1].find(std::string(", the ") + text + " it takes"), std::string::npos) << tile;
  }
  h.tile = 0;
  EXPECT_EQ(gv::held_text(h, o, persistent)[1], "tile (3, 1) of C, computed by block 17");
  h.tile = 2;
  h.promote = 4;
  EXPECT_EQ(gv::held_text(h, o, persistent).back(),
            "promotion: wgmma sums every 4 k-tiles into registers of its own, which the thread adds in f32 into this one");

  // How C is stored, from the traced stores against the holders.
  const gemm::TracedProgram& step15 = program_named(programs, "15_tma_wgmma");
  EXPECT_NE(gv::c_store_text(step15, gv::held_map(step15, problem(64, 64, 64))).find("each thread stores the elements it holds"),
            std::string::npos);
  const gemm::TracedProgram& step22 = program_named(programs, "22_tile_width");
  gemm::TraceProblem fp8 = problem(64, 64, 64);
  fp8.layout = gemm::Layout::nt;
  const gv::OwnerMap by_tma = gv::held_map(step22, fp8);
  EXPECT_EQ(by_tma.stores.stored, 0);  // beta = 0, rows of 16 bytes: TMA stores C
  EXPECT_NE(gv::c_store_text(step22, by_tma).find("no thread stores it here: " + step22.c_writer), std::string::npos);
  fp8.beta = 0.5f;
  const gv::OwnerMap read_back = gv::held_map(step22, fp8);
  EXPECT_EQ(read_back.stores.stored, 64 * 64);
  EXPECT_LT(read_back.stores.by_holding_thread, 64 * 64);
  EXPECT_NE(gv::c_store_text(step22, read_back).find("stage their accumulators in shared memory"), std::string::npos);
  const gemm::TracedProgram& step12 = program_named(programs, "12_wmma");
  const gv::OwnerMap wmma = gv::held_map(step12, problem(64, 64, 32));
  EXPECT_EQ(wmma.stores.by_holding_warp, 64 * 64);
  EXPECT_NE(gv::c_store_text(step12, wmma).find("store_matrix_sync"), std::string::npos);
  EXPECT_NE(gv::colour_note(wmma, gv::ColourBy::thread).find("WMMA API leaves unspecified"), std::string::npos);
  EXPECT_EQ(gv::colour_note(by_tma, gv::ColourBy::thread), "");
  EXPECT_EQ(gv::c_store_text(step12, gv::owner_map(step12, problem(64, 64, 32))), "");  // a map of stores

  // Colourings: each one's pixels are the map's colours; warpgroups only where wgmma runs.
  for (gv::ColourBy by : gv::colourings(read_back)) {
    const auto pixels = read_back.pixels(by);
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c) ASSERT_EQ(pixels[size_t(r * 64 + c)], read_back.colour(r, c, by)) << gv::to_string(by);
  }
  EXPECT_EQ(gv::colourings(read_back).size(), 5u);
  EXPECT_EQ(gv::colourings(wmma).size(), 4u);
  EXPECT_EQ(gv::colourings(gv::owner_map(step12, problem(64, 64, 32))).size(), 3u);
  const gv::Owner held = read_back.at(6, 5);
  EXPECT_EQ(read_back.colour(6, 5, gv::ColourBy::warpgroup), gv::warpgroup_colour(held.block, held.thread / 128));
  EXPECT_EQ(read_back.colour(6, 5, gv::ColourBy::reg), gv::register_colour(held.reg));
  EXPECT_EQ(read_back.colour(6, 5, gv::ColourBy::thread), gv::lane_colour(held.lane));
  const gv::Owner fragment = wmma.at(20, 40);
  EXPECT_EQ(fragment.lane, -1);
  EXPECT_EQ(wmma.colour(20, 40, gv::ColourBy::thread), gv::fragment_colour(fragment.block, fragment.warp, fragment.reg));
  for (gv::ColourBy by : {gv::ColourBy::block, gv::ColourBy::warp, gv::ColourBy::thread, gv::ColourBy::warpgroup, gv::ColourBy::reg}) {
    EXPECT_EQ(gv::colour_by_named(gv::to_string(by)), by);
    EXPECT_TRUE(gv::is_colour_by_name(gv::to_string(by)));
  }
  EXPECT_TRUE(gv::is_colour_by_name("lane"));
  EXPECT_FALSE(gv::is_colour_by_name("rainbow"));
}

// ---- The performance panel follows the selected step ---------------------------------------------

TEST(ViewerModel, PerformanceFollowsTheSelectedStep) {
  const gv::ResultsFile shipped = gv::load_results(GEMM_SOURCE_DIR "/docs/results/nvidia-h100-80gb-hbm3.json");
  ASSERT_TRUE(shipped.ok()) << shipped.error;
  EXPECT_EQ(gv::group_of_step(shipped, "11_split_k_tail"), gv::RunGroup::fp32);
  EXPECT_EQ(gv::group_of_step(shipped, "18_tma_store_epilogue"), gv::RunGroup::tensor);
  EXPECT_EQ(gv::group_of_step(shipped, "22_tile_width"), gv::RunGroup::fp8);
  EXPECT_EQ(gv::group_of_step(shipped, "03_smem_banks_square"), std::nullopt);  // no GFLOPS: the group stays
  for (const std::string step : {"11_split_k_tail", "18_tma_store_epilogue", "22_tile_width"}) {
    const gv::PerformanceView view = gv::performance_view(shipped, *gv::group_of_step(shipped, step), -1, step);
    int highlighted = 0;
    for (const gv::RunPoint& bar : view.bars) {
      EXPECT_EQ(bar.highlighted, view.runs[bar.run]->step == step) << view.runs[bar.run]->label();
      highlighted += bar.highlighted;
    }
    EXPECT_GT(highlighted, 0) << step << " has a bar at the bars' shape";
  }
  const gv::PerformanceView none = gv::performance_view(shipped, gv::RunGroup::fp32, -1);  // no step named
  EXPECT_EQ(std::count_if(none.bars.begin(), none.bars.end(), [](const gv::RunPoint& bar) { return bar.highlighted; }), 0);
}

// The browser page's link (viewer/link.hpp; tools/web): its query is the command line, which
// args.cpp parses for both. tools/test_tools.py holds tools/pictures.py's links to the same string.
TEST(ViewerLink, TheQueryIsTheCommandLine) {
  const std::vector<std::string> arguments = {"--step", "14_mma_ldmatrix", "--shape", "128x128x64", "--param", "BM=64",
                                              "--defaults", "--warp", "1", "--beta", "-0.5", "--results",
                                              "my results/a&b.json"};
  const std::string query = gv::query_from_arguments(arguments);
  EXPECT_EQ(query,
            "step=14_mma_ldmatrix&shape=128x128x64&param=BM=64&defaults&warp=1&beta=-0.5&results=my%20results%2Fa%26b.json");
  EXPECT_EQ(gv::arguments_from_query("?" + query), arguments);
  EXPECT_EQ(gv::arguments_from_query(query), arguments);
  // As a form writes a space ('+'); an empty part skipped; a malformed %-sequence kept as written.
  EXPECT_EQ(gv::arguments_from_query("step=a+b&&x=%zz&y=%4"),
            (std::vector<std::string>{"--step", "a b", "--x", "%zz", "--y", "%4"}));
  EXPECT_TRUE(gv::arguments_from_query("").empty());
  EXPECT_TRUE(gv::arguments_from_query("?").empty());
}
