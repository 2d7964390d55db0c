// The refusal of a run whose kernel was compiled for an older architecture than it needs
// (common/host/compiled_code.hpp): the case of a build for compute_75 alone, whose bf16 WMMA kernel
// is compiled empty and which the driver runs from PTX on a newer GPU.
#include <gtest/gtest.h>

#include "compiled_code.hpp"

namespace {

TEST(CompiledCode, CodeForTheRunsArchitectureOrNewerRuns) {
  EXPECT_EQ(gemm::compiled_code_rule("12_wmma", {90, 90}, 80, "bf16 tensor-core instructions", 90), "");
  EXPECT_EQ(gemm::compiled_code_rule("12_wmma", {80, 80}, 80, "bf16 tensor-core instructions", 86), "");
  EXPECT_EQ(gemm::compiled_code_rule("12_wmma", {75, 90}, 75, "this step's instructions", 90), "") << "f16 from PTX";
  EXPECT_EQ(gemm::compiled_code_rule("12_wmma", {0, 0}, 80, "x", 90), "") << "not reported: no refusal";
}

TEST(CompiledCode, OlderCodeIsRefusedNamingWhatIsMissingAndTheRebuild) {
  const std::string refusal = gemm::compiled_code_rule("12_wmma", {75, 90}, 80, "bf16 tensor-core instructions", 90);
  ASSERT_FALSE(refusal.empty());
  EXPECT_EQ(refusal.find('\n'), std::string::npos) << "one line";
  for (const char* part : {"12_wmma:", "compute capability 7.5", "PTX that the driver compiles for this 9.0 GPU",
                           "bf16 tensor-core instructions need 8.0", "-DCMAKE_CUDA_ARCHITECTURES=90"})
    EXPECT_NE(refusal.find(part), std::string::npos) << part << " in: " << refusal;
  // Machine code compiled from the same architecture says nothing of PTX.
  const std::string sass = gemm::compiled_code_rule("13_wmma_pipeline", {75, 75}, 80, "this step's instructions", 75);
  EXPECT_EQ(sass.find("PTX"), std::string::npos) << sass;
}

TEST(CompiledCode, NoCodeForTheGpuNamesTheRebuild) {
  const std::string refusal = gemm::no_code_for_gpu("12_wmma", 75);
  EXPECT_NE(refusal.find("compute capability 7.5"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("-DCMAKE_CUDA_ARCHITECTURES=75"), std::string::npos) << refusal;
}

}  // namespace
