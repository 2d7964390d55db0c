// The viewer's model (viewer/viewer_model.hpp) against the steps' own functions and the access
// model: who owns each element of C, what an instruction touches, the bank picture, the counts
// and the results files, malformed ones included. No graphics needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

#include "../../steps/09_warptiling/mapping.hpp"
#include "../../steps/10_cp_async_pipeline/mapping.hpp"
#include "../../steps/11_split_k_tail/mapping.hpp"
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
    for (gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn}) {
      if (!program.tensor_core && layout != gemm::Layout::nn) continue;
      gemm::TraceProblem p = problem(40, 40, 24, 0.5f);  // rows of 16 bytes in every layout
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
