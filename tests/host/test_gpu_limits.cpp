// Every configuration a step chooses fits the GPU it runs on: for each architecture of the table
// (common/device/gpu_limits.hpp) that a step claims (its main.cu's min_cc and only_cc), the tunables
// its program runs without --param, for any shape and SM count (the traced registry's
// params_for_shape, the same mapping functions the program calls), need no more shared memory per
// block and threads per block than that architecture has, and its kernel's __launch_bounds__ leave a
// thread the registers its results take. The compiled configurations a step does not choose on an
// architecture are refused there with a one-line message (launch_limits_rule, exit 2) when --param
// asks for them. docs/your-gpu.md shows the result as a table, which the last test holds to the code.
//
// Registers: the count each kernel uses is only known from ptxas (every run prints it: "kernel: N
// registers"; cuobjdump --dump-resource-usage); what the code declares is __launch_bounds__(threads,
// MINB), which caps it. The Hopper steps' register budgets (setmaxnreg) are in their kernel.cuh,
// held there by static_assert.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "gpu_limits.hpp"
#include "launch_limits.hpp"
#include "traced_steps.hpp"

namespace {

using gemm::ArchitectureLimits;
using gemm::GemmShape;
using gemm::GpuLimits;
using gemm::Layout;
using gemm::TracedProgram;
using gemm::TraceProblem;
using Params = std::map<std::string, int>;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
std::string source_path(const std::string& relative) { return std::string(GEMM_SOURCE_DIR) + "/" + relative; }

// The GPUs a step claims, as its program decides at run time (select_device): compute capability
// min_cc or newer, and exactly only_cc where that is set (sm_90a code). Read from main.cu, the one
// place that says it.
struct Claim {
  int min_cc = 75;
  int only_cc = 0;
  bool claims(int cc) const { return cc >= min_cc && (only_cc == 0 || cc == only_cc); }
};
Claim claim_of(const std::string& step) {
  const std::string text = read_file(source_path("steps/" + step + "/main.cu"));
  Claim claim;
  std::smatch match;
  if (std::regex_search(text, match, std::regex(R"(\bmin_cc\s*=\s*(\d+))"))) claim.min_cc = std::stoi(match[1]);
  if (std::regex_search(text, match, std::regex(R"(\bonly_cc\s*=\s*(\d+))"))) claim.only_cc = std::stoi(match[1]);
  return claim;
}

// Shapes and SM counts that take every branch of the steps' choices by shape (small shapes that
// fill one round, ragged ones, the transposed tile's, the large ones), on GPUs from 16 SMs to an
// RTX 5090's 170.
const std::vector<GemmShape> kShapes = {{64, 64, 64},       {128, 128, 128},    {512, 512, 512},    {1000, 1000, 1000},
                                        {1024, 1024, 1024}, {1088, 1088, 1088}, {1280, 1280, 1280}, {1536, 1536, 1536},
                                        {2048, 2048, 2048}, {3072, 3072, 3072}, {4096, 4096, 4096}, {4088, 4104, 4096},
                                        {4095, 4097, 4093}, {8192, 8192, 8192}, {66 * 256, 256, 64}, {67 * 256, 256, 64}};
const std::vector<int> kSms = {16, 28, 40, 58, 82, 108, 128, 132, 148, 170};

// The launch of one program's problem with the tunables it would choose on `gpu` (none given).
struct Chosen {
  Params params;
  gemm::LaunchShape launch;
};
Chosen choose(const TracedProgram& program, const GemmShape& shape, Layout layout, const GpuLimits& gpu) {
  TraceProblem problem;
  problem.shape = shape;
  problem.layout = layout;
  problem.sms = gpu.sms;
  problem.shared_per_block = gpu.shared_per_block;
  Chosen chosen;
  chosen.params = gemm::run_params(program, problem);
  problem.params = chosen.params;
  chosen.launch = program.launch(problem);
  return chosen;
}

int param_or(const Params& params, const std::string& key, int otherwise) {
  const auto found = params.find(key);
  return found == params.end() ? otherwise : found->second;
}

// "BK=32": the tunables of `params` that differ from `reference` (all of them against none).
std::string differences(const Params& params, const Params& reference) {
  std::string text;
  for (const auto& [key, value] : params)
    if (param_or(reference, key, value + 1) != value) text += (text.empty() ? "" : " ") + key + "=" + std::to_string(value);
  return text;
}

// The registers a thread may have when blocks of `threads` threads are compiled for `blocks` of them
// per SM (__launch_bounds__(threads, blocks)): the register file shared out, in the allotment's steps.
int register_budget(int threads, int blocks) {
  const int share = gemm::kRegistersPerSm / (threads * (blocks > 0 ? blocks : 1));
  const int budget = share / gemm::kRegisterGranularity * gemm::kRegisterGranularity;
  return budget < gemm::kMaxRegistersPerThread ? budget : gemm::kMaxRegistersPerThread;
}

// "" when a launch with these tunables fits `arch`, else what does not.
std::string misfit(const Chosen& chosen, const ArchitectureLimits& arch) {
  const gemm::LaunchShape& launch = chosen.launch;
  const int threads = launch.block.x * launch.block.y * launch.block.z;
  if (launch.shared_bytes > arch.shared_per_block)
    return std::to_string(launch.shared_bytes) + " bytes of shared memory per block, where sm_" + std::to_string(arch.cc) +
           " allows " + std::to_string(arch.shared_per_block);
  if (threads > gemm::kMaxThreadsPerBlock) return std::to_string(threads) + " threads per block";
  // The blocks per SM the kernel is compiled for (MINB, clamped to the architecture as the kernels'
  // __launch_bounds__ do) are what the choice by shape counts its waves with (blocks_per_sm).
  const int min_blocks = param_or(chosen.params, "MINB", 0);
  const int compiled_blocks = gemm::launch_min_blocks(threads, min_blocks, arch.cc);
  if (compiled_blocks != min_blocks)
    return "MINB=" + std::to_string(min_blocks) + " blocks of " + std::to_string(threads) + " threads per SM, where sm_" +
           std::to_string(arch.cc) + " holds " + std::to_string(arch.threads_per_sm) + " threads";
  if (min_blocks > 0 && min_blocks * (launch.shared_bytes + arch.shared_per_sm - arch.shared_per_block) > arch.shared_per_sm)
    return "MINB=" + std::to_string(min_blocks) + " blocks of " + std::to_string(launch.shared_bytes) +
           " bytes of shared memory per SM";
  // A thread's TM x TN results, and a column of A and a row of B to multiply them with, in registers.
  const int tm = param_or(chosen.params, "TM", 0), tn = param_or(chosen.params, "TN", 0);
  if (tm * tn > 0 && tm * tn + tm + tn > register_budget(threads, compiled_blocks))
    return "TM x TN results with " + std::to_string(register_budget(threads, compiled_blocks)) +
           " registers per thread (__launch_bounds__)";
  return "";
}

// Every GEMM program of the registry, once per step (the bank demos' variants are one step each).
std::vector<const TracedProgram*> one_program_per_step(const std::vector<TracedProgram>& programs) {
  std::vector<const TracedProgram*> steps;
  std::set<std::string> seen;
  for (const TracedProgram& program : programs)
    if (seen.insert(program.step).second) steps.push_back(&program);
  return steps;
}

// Every problem a step's choice is asked about on `arch`: shapes, SM counts, layouts.
template <typename Visit>
void for_each_choice(const TracedProgram& program, const ArchitectureLimits& arch, Visit&& visit) {
  for (const int sms : kSms)
    for (const Layout layout : program.layouts)
      for (const GemmShape& shape : kShapes) {
        if (!program.takes_shape && (sms != kSms.front() || &shape != &kShapes.front())) continue;
        visit(shape, layout, sms, choose(program, shape, layout, gemm::gpu_limits(arch.cc, sms)));
      }
}

TEST(GpuLimits, TheTableIsConsistent) {
  for (int i = 0; i < gemm::kArchitectureCount; ++i) {
    const ArchitectureLimits& arch = gemm::kArchitectures[i];
    if (i > 0) {
      EXPECT_LT(gemm::kArchitectures[i - 1].cc, arch.cc) << "rows in order of compute capability";
    }
    const int reserved = arch.shared_per_sm - arch.shared_per_block;  // the system's share of each block
    EXPECT_TRUE(reserved == 0 || reserved == 1024) << "sm_" << arch.cc;
    EXPECT_EQ(arch.threads_per_sm % 32, 0);
    EXPECT_EQ(gemm::architecture_limits(arch.cc).shared_per_block, arch.shared_per_block);
  }
  // An architecture the table does not list takes its major version's row below it, else the most
  // cautious values.
  EXPECT_EQ(gemm::architecture_limits(121).threads_per_sm, gemm::architecture_limits(120).threads_per_sm);
  EXPECT_EQ(gemm::architecture_limits(103).shared_per_block, gemm::architecture_limits(100).shared_per_block);
  EXPECT_EQ(gemm::architecture_limits(110).threads_per_sm, 1024);
  EXPECT_EQ(gemm::max_shared_per_block(), gemm::architecture_limits(90).shared_per_block);
  EXPECT_EQ(GpuLimits{132}.shared_per_block, gemm::max_shared_per_block()) << "SMs alone: the H100's shared memory";
}

// The kernels' __launch_bounds__ take MINB clamped to the architecture compiled for: ptxas refuses
// more threads per SM than it holds (an error under --Werror), which is what an sm_120 build of
// 06_1d_blocktiling's 4 blocks of 512 threads met while sm_120 was taken for a 2048-thread SM.
TEST(GpuLimits, LaunchBoundsFitEveryArchitecture) {
  for (const TracedProgram& program : gemm::traced_programs())
    for (const Params& config : program.configs) {
      TraceProblem problem;
      problem.shape = {1024, 1024, 1024};
      problem.sms = 132;
      problem.params = config;
      const gemm::Dim3 block = program.launch(problem).block;
      const int threads = block.x * block.y * block.z;
      for (const ArchitectureLimits& arch : gemm::kArchitectures) {
        const int blocks = gemm::launch_min_blocks(threads, param_or(config, "MINB", 0), arch.cc);
        EXPECT_LE(blocks * threads, arch.threads_per_sm) << program.step << " on sm_" << arch.cc;
      }
    }
  EXPECT_EQ(gemm::launch_min_blocks(512, 4, 120), 3);
  EXPECT_EQ(gemm::launch_min_blocks(512, 4, 90), 4);
  EXPECT_EQ(gemm::launch_min_blocks(256, 4, 75), 4);
}

// The test of this file: on every architecture a step claims, what it chooses fits.
TEST(GpuLimits, EveryChoiceFitsEveryClaimedArchitecture) {
  const std::vector<TracedProgram> programs = gemm::traced_programs();
  int claimed = 0;
  for (const TracedProgram* program : one_program_per_step(programs)) {
    const Claim claim = claim_of(program->step);
    for (const ArchitectureLimits& arch : gemm::kArchitectures) {
      if (!claim.claims(arch.cc)) continue;
      ++claimed;
      int misfits = 0;
      std::string first;
      for_each_choice(*program, arch, [&](const GemmShape& shape, Layout layout, int sms, const Chosen& chosen) {
        const std::string why = misfit(chosen, arch);
        if (why.empty() || misfits++ > 0) return;
        first = std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k) +
                (program->tensor_core ? std::string(" ") + gemm::to_string(layout) : "") + " on " +
                std::to_string(sms) + " SMs a configuration (" + differences(chosen.params, {}) + ") that needs " + why;
      });
      EXPECT_EQ(misfits, 0) << program->step << " claims sm_" << arch.cc << " (main.cu: min_cc " << claim.min_cc
                            << "), and without --param it chooses for " << first << " (and for " << misfits - 1
                            << " more problems): choose another there (mapping.hpp's choice by GPU or by shape), "
                            << "or claim less";
    }
  }
  EXPECT_GE(claimed, 21 * 3) << "every GEMM step claims sm_90 and the ones after it, the most steps more";
}

// A compiled configuration that does not fit the GPU is refused before any launch, in one line
// that names the limit and the fix.
TEST(GpuLimits, ConfigurationsThatDoNotFitAreRefusedInOneLine) {
  const int sm89_shared = gemm::architecture_limits(89).shared_per_block;
  const gemm::LaunchLimits rtx4090{{2147483647, 65535, 65535}, 1024, sm89_shared, 89};
  const gemm::LaunchShape default14 = step14::launch_shape({4096, 4096, 4096}, step14::kConfigs[0]);
  const std::string refusal = gemm::launch_limits_rule({4096, 4096, 4096}, default14, rtx4090);
  ASSERT_FALSE(refusal.empty()) << "step 14's default needs 192 KB";
  EXPECT_EQ(refusal.find('\n'), std::string::npos) << "one line: " << refusal;
  for (const char* part : {"196608 bytes of shared memory per block", "compute capability 8.9", "allows 101376",
                           "no --param, no --defaults", "docs/your-gpu.md"})
    EXPECT_NE(refusal.find(part), std::string::npos) << part << " in: " << refusal;
  const gemm::LaunchShape chosen14 = step14::launch_shape({4096, 4096, 4096}, step14::config_for_gpu(sm89_shared));
  EXPECT_EQ(gemm::launch_limits_rule({4096, 4096, 4096}, chosen14, rtx4090), "");
  gemm::LaunchShape wide = chosen14;
  wide.block.x = 2048;
  EXPECT_NE(gemm::launch_limits_rule({4096, 4096, 4096}, wide, rtx4090).find("2048 threads per block"), std::string::npos);
  gemm::LaunchShape tall = chosen14;
  tall.grid.y = 70000;
  EXPECT_NE(gemm::launch_limits_rule({4096, 4096, 4096}, tall, rtx4090).find("blocks along grid y"), std::string::npos);
}

// On a GPU with 99 KB of shared memory per block (RTX 30 and 40, RTX 50): what the steps that choose
// by shape run. Step 14's default (192 KB) does not fit: its first that does, BK = 32 (96 KB), and
// the tiles its choice by shape takes from there; steps 10 and 11 choose as on the H100.
TEST(GpuLimits, ChoicesOnA99KilobyteGpu) {
  const GpuLimits rtx4090 = gemm::gpu_limits(89, 128);
  EXPECT_EQ(rtx4090.shared_per_block, 99 * 1024);
  const step14::Config wide = step14::kConfigs[1];
  ASSERT_EQ(step14::config_for_gpu(rtx4090.shared_per_block), wide);
  EXPECT_EQ(step14::config_for_shape({8192, 8192, 8192}, rtx4090), wide);
  EXPECT_EQ(step14::config_for_shape({4096, 4096, 4096}, rtx4090), wide);
  EXPECT_EQ(step14::config_for_shape({4088, 4104, 4096}, gemm::gpu_limits(89, 132)),
            step14::kConfigs[step14::kTallConfig]);  // 5 waves wide, 4 tall, as on the H100
  EXPECT_EQ(step14::config_for_shape({1280, 1280, 1280}, rtx4090), step14::kConfigs[step14::kHalfConfig]);
  EXPECT_EQ(step14::config_for_shape({512, 512, 512}, rtx4090), step14::kConfigs[step14::kSmallConfig]);
  for (const GemmShape& shape : kShapes) {
    EXPECT_EQ(step10::config_for_shape(shape, rtx4090), step10::config_for_shape(shape, rtx4090.sms));
    EXPECT_EQ(step11::config_for_shape(shape, rtx4090), step11::config_for_shape(shape, rtx4090.sms));
    EXPECT_LE(step14::shared_bytes(step14::config_for_shape(shape, rtx4090)), rtx4090.shared_per_block);
  }
  // The registry, for the viewer and the tools, chooses as the programs do.
  for (const TracedProgram& program : gemm::traced_programs()) {
    if (program.step != "14_mma_ldmatrix") continue;
    EXPECT_EQ(choose(program, {8192, 8192, 8192}, Layout::nn, rtx4090).params, step14::to_params(wide));
  }
}

// --- The page's tables (docs/your-gpu.md) -------------------------------------------------------

std::string capability(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }
std::string kilobytes(int bytes) { return std::to_string(bytes / 1024) + " KB"; }

// What a step needs: the oldest architecture it claims ("sm_80"), or the one it runs on alone.
std::string needs_of(const TracedProgram& program, const Claim& claim) {
  if (claim.only_cc != 0) return "sm_" + std::to_string(claim.only_cc) + "a";
  std::string needs = "sm_" + std::to_string(claim.min_cc);
  if (program.tensor_core && claim.min_cc < gemm::kBf16MinCc) needs += " (bf16: sm_" + std::to_string(gemm::kBf16MinCc) + ")";
  return needs;
}

// One cell: "—" where the step does not run; "yes" where it runs what it runs on the H100; else
// "yes: " and the tunables it runs instead at the largest shape (its configuration for this GPU).
std::string cell(const TracedProgram& program, const Claim& claim, const ArchitectureLimits& arch) {
  if (!claim.claims(arch.cc)) return "—";
  const GemmShape large{8192, 8192, 8192};
  const Params here = choose(program, large, program.layouts.front(), gemm::gpu_limits(arch.cc, 132)).params;
  const Params anywhere = choose(program, large, program.layouts.front(), GpuLimits{132}).params;
  std::string text = here == anywhere ? "yes" : "yes: " + differences(here, anywhere);
  if (program.tensor_core && arch.cc < gemm::kBf16MinCc) text += " (f16)";
  return text;
}

// The table of which step runs where, one row per step.
std::string steps_table() {
  std::string table = "| step | needs |";
  std::string rule = "|---|---|";
  for (const ArchitectureLimits& arch : gemm::kArchitectures) {
    table += " sm_" + std::to_string(arch.cc) + " |";
    rule += "---|";
  }
  table += "\n" + rule + "\n";
  const std::vector<TracedProgram> programs = gemm::traced_programs();
  for (const TracedProgram* program : one_program_per_step(programs)) {
    const Claim claim = claim_of(program->step);
    table += "| " + program->step + " | " + needs_of(*program, claim) + " |";
    for (const ArchitectureLimits& arch : gemm::kArchitectures) table += " " + cell(*program, claim, arch) + " |";
    table += "\n";
  }
  return table;
}

// The table of the architectures' limits (gpu_limits.hpp).
std::string limits_table() {
  std::string table =
      "| architecture | compute capability | GPUs | shared memory per block | per SM | threads per SM | blocks per SM |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const ArchitectureLimits& arch : gemm::kArchitectures)
    table += "| sm_" + std::to_string(arch.cc) + " | " + capability(arch.cc) + " | " + arch.gpus + " | " +
             kilobytes(arch.shared_per_block) + " | " + kilobytes(arch.shared_per_sm) + " | " +
             std::to_string(arch.threads_per_sm) + " | " + std::to_string(arch.blocks_per_sm) + " |\n";
  return table;
}

// The text between "<!-- NAME -->\n" and "<!-- end NAME -->" in `page`, replaced by `content`.
bool replace_block(std::string& page, const std::string& name, const std::string& content) {
  const std::string open = "<!-- " + name + " -->\n", close = "<!-- end " + name + " -->";
  const std::size_t begin = page.find(open), end = page.find(close);
  if (begin == std::string::npos || end == std::string::npos || end < begin) return false;
  page.replace(begin + open.size(), end - begin - open.size(), content);
  return true;
}

// docs/your-gpu.md's tables are the code's: GEMM_WRITE_DOCS=1 rewrites them.
TEST(GpuLimits, ThePageShowsWhatTheCodeDecides) {
  const std::string path = source_path("docs/your-gpu.md");
  const std::string page = read_file(path);
  std::string expected = page;
  ASSERT_TRUE(replace_block(expected, "gpu-steps-table", steps_table())) << path << ": no gpu-steps-table block";
  ASSERT_TRUE(replace_block(expected, "gpu-limits-table", limits_table())) << path << ": no gpu-limits-table block";
  if (expected != page && std::getenv("GEMM_WRITE_DOCS") != nullptr) {
    std::ofstream(path) << expected;
    return;
  }
  EXPECT_EQ(page, expected) << path << " is not what the code decides: GEMM_WRITE_DOCS=1 "
                            << "build/tests/host_tests --gtest_filter=GpuLimits.ThePageShowsWhatTheCodeDecides "
                            << "rewrites its tables";
}

}  // namespace
