#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "options.hpp"

using gemm::parse_options;
using gemm::UsageError;

namespace {

gemm::Options parse(std::vector<std::string> args, const std::vector<gemm::ParamSpec>& params = {},
                    gemm::OptionSet set = {}) {
  std::vector<const char*> argv{"step"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return parse_options(int(argv.size()), argv.data(), params, set);
}

std::string error_of(std::vector<std::string> args, const std::vector<gemm::ParamSpec>& params = {},
                     gemm::OptionSet set = {}) {
  try {
    parse(std::move(args), params, set);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST(Options, DefaultsLeaveShapesToTheStep) {
  const gemm::Options options = parse({});
  EXPECT_TRUE(options.shapes.empty());
  EXPECT_FLOAT_EQ(options.alpha, 1.0f);
  EXPECT_FLOAT_EQ(options.beta, 0.0f);
  EXPECT_TRUE(options.check);
  EXPECT_FALSE(options.check_only);
  EXPECT_EQ(options.reps, 0);
}

TEST(Options, SizeAndDimensions) {
  auto options = parse({"--size", "512"});
  ASSERT_EQ(options.shapes.size(), 1u);
  EXPECT_EQ(options.shapes[0].m, 512);
  EXPECT_EQ(options.shapes[0].k, 512);
  options = parse({"--m", "3", "--n=4", "--k", "5"});
  ASSERT_EQ(options.shapes.size(), 1u);
  EXPECT_EQ(options.shapes[0].m, 3);
  EXPECT_EQ(options.shapes[0].n, 4);
  EXPECT_EQ(options.shapes[0].k, 5);
}

TEST(Options, ShapeList) {
  const auto options = parse({"--shapes", "1x1x1,17x33x65,64"});
  ASSERT_EQ(options.shapes.size(), 3u);
  EXPECT_EQ(options.shapes[1].n, 33);
  EXPECT_EQ(options.shapes[2].m, 64);
  EXPECT_EQ(options.shapes[2].k, 64);
}

TEST(Options, SweepHasPowersOfTwoAndOddShapes) {
  const auto shapes = parse({"--sweep"}).shapes;
  ASSERT_GE(shapes.size(), 7u);
  EXPECT_EQ(shapes.front().m, 128);
  bool has_8192 = false, has_odd = false;
  for (const auto& s : shapes) {
    has_8192 |= s.m == 8192;
    has_odd |= s.m % 2 == 1 || s.n % 2 == 1 || s.k % 2 == 1;
  }
  EXPECT_TRUE(has_8192);
  EXPECT_TRUE(has_odd);
}

TEST(Options, ComputationAndMeasurement) {
  const auto options = parse({"--alpha", "1.5", "--beta", "-0.25", "--reps", "7", "--warmup", "0", "--seed", "9",
                              "--device", "1", "--json", "out.json", "--check-only"});
  EXPECT_FLOAT_EQ(options.alpha, 1.5f);
  EXPECT_FLOAT_EQ(options.beta, -0.25f);
  EXPECT_EQ(options.reps, 7);
  EXPECT_EQ(options.warmup, 0);
  EXPECT_EQ(options.seed, 9u);
  EXPECT_EQ(options.device, 1);
  EXPECT_EQ(options.json_path, "out.json");
  EXPECT_TRUE(options.check_only);
}

TEST(Options, UnknownOptionNamesIt) {
  EXPECT_NE(error_of({"--sise", "4"}).find("unknown option '--sise'"), std::string::npos);
}

TEST(Options, MissingValue) {
  EXPECT_NE(error_of({"--size"}).find("--size needs a value"), std::string::npos);
  EXPECT_NE(error_of({"--json"}).find("--json needs a value"), std::string::npos);
}

TEST(Options, NonNumeric) {
  EXPECT_NE(error_of({"--size", "big"}).find("whole number"), std::string::npos);
  EXPECT_NE(error_of({"--size", "12x"}).find("--size"), std::string::npos);
  EXPECT_NE(error_of({"--alpha", "one"}).find("needs a number"), std::string::npos);
  EXPECT_NE(error_of({"--reps", "3.5"}).find("whole number"), std::string::npos);
  EXPECT_NE(error_of({"--alpha", "nan"}).find("finite"), std::string::npos);
}

TEST(Options, ZeroOrNegativeSizes) {
  EXPECT_NE(error_of({"--size", "0"}).find("at least 1"), std::string::npos);
  EXPECT_NE(error_of({"--m", "-3", "--n", "2", "--k", "2"}).find("at least 1"), std::string::npos);
  EXPECT_NE(error_of({"--shapes", "4x0x4"}).find("at least 1"), std::string::npos);
  EXPECT_NE(error_of({"--size", "99999999999"}).find("at most"), std::string::npos);
}

TEST(Options, BadShapeText) {
  EXPECT_NE(error_of({"--shapes", "4x4"}).find("MxNxK"), std::string::npos);
  EXPECT_NE(error_of({"--shapes", ""}).find("--shapes"), std::string::npos);
}

TEST(Options, ConflictingShapeOptions) {
  EXPECT_NE(error_of({"--size", "4", "--sweep"}).find("give one of"), std::string::npos);
  EXPECT_NE(error_of({"--m", "4"}).find("go together"), std::string::npos);
}

TEST(Options, ConflictingCheckOptions) {
  EXPECT_NE(error_of({"--check-only", "--no-check"}).find("contradict"), std::string::npos);
}

TEST(Options, RepsOutOfRange) {
  EXPECT_NE(error_of({"--reps", "0"}).find("between 1"), std::string::npos);
  EXPECT_NE(error_of({"--seed", "-1"}).find("0 or more"), std::string::npos);
}

TEST(Options, FlagsTakeNoValue) {
  EXPECT_NE(error_of({"--sweep=yes"}).find("takes no value"), std::string::npos);
}

TEST(Options, Params) {
  const std::vector<gemm::ParamSpec> params{{"BM", 128, "rows"}, {"BK", 8, "depth"}};
  EXPECT_FALSE(parse({}, params).params_given);
  auto options = parse({"--param", "BM=64"}, params);
  EXPECT_TRUE(options.params_given);
  EXPECT_EQ(options.params.at("BM"), 64);
  EXPECT_EQ(options.params.at("BK"), 8);  // default filled in
  options = parse({"--param=BK=16"}, params);
  EXPECT_EQ(options.params.at("BK"), 16);
  EXPECT_NE(error_of({"--param", "BN=64"}, params).find("this step takes: BM, BK"), std::string::npos);
  EXPECT_NE(error_of({"--param", "BM"}, params).find("key=value"), std::string::npos);
  EXPECT_NE(error_of({"--param", "BM=big"}, params).find("whole number"), std::string::npos);
  EXPECT_NE(error_of({"--param", "BM=1"}).find("takes: none"), std::string::npos);
  // --defaults: the defaults as they are, fixed for every shape (no choice by shape).
  options = parse({"--defaults"}, params);
  EXPECT_TRUE(options.params_given);
  EXPECT_EQ(options.params.at("BM"), 128);
  EXPECT_EQ(options.params.at("BK"), 8);
  EXPECT_NE(error_of({"--defaults=1"}, params).find("takes no value"), std::string::npos);
  EXPECT_TRUE(parse({"--defaults"}).params.empty());  // a step without tunables: nothing to fix
}

TEST(Options, TensorCoreOptionsOnlyWhereDeclared) {
  EXPECT_NE(error_of({"--layout", "nt"}).find("unknown option"), std::string::npos);
  gemm::OptionSet set;
  set.tensor_core = true;
  const auto options = parse({"--layout", "tn", "--dtype", "bf16", "--out", "f16"}, {}, set);
  EXPECT_EQ(options.layout, gemm::Layout::tn);
  EXPECT_EQ(options.dtype, gemm::InputType::bf16);
  EXPECT_EQ(options.out, gemm::OutputType::f16);
  EXPECT_EQ(parse({"--dtype", "bf16", "--out", "bf16"}, {}, set).out, gemm::OutputType::bf16);
  EXPECT_EQ(parse({"--out", "f32"}, {}, set).out, gemm::OutputType::f32);
  EXPECT_NE(error_of({"--out", "f64"}, {}, set).find("f32, f16 or bf16"), std::string::npos);
  EXPECT_NE(error_of({"--layout", "tt"}, {}, set).find("nn, nt or tn"), std::string::npos);
  EXPECT_EQ(gemm::parse_layout("tn", "--layout"), gemm::Layout::tn);
  EXPECT_THROW(gemm::parse_layout("NN", "--layout"), gemm::UsageError);
  EXPECT_EQ(parse({}, {}, set).dtype, gemm::InputType::f16);
}

// The FP8 step's option set: its own defaults (the one layout FP8 wgmma reads, bf16 out) and input
// types, e4m3 or e5m2 for A (B is e4m3 either way); the 16-bit steps' types are refused, and the
// 16-bit steps refuse the FP8 ones.
TEST(Options, Fp8OptionSet) {
  gemm::OptionSet fp8;
  fp8.tensor_core = true;
  fp8.fp8 = true;
  const auto defaults = parse({}, {}, fp8);
  EXPECT_EQ(defaults.layout, gemm::Layout::nt);
  EXPECT_EQ(defaults.out, gemm::OutputType::bf16);
  EXPECT_EQ(defaults.dtype, gemm::InputType::e4m3);
  EXPECT_EQ(parse({"--dtype", "e4m3"}, {}, fp8).dtype, gemm::InputType::e4m3);
  EXPECT_EQ(parse({"--dtype", "e5m2"}, {}, fp8).dtype, gemm::InputType::e5m2);
  EXPECT_EQ(parse({"--dtype=e5m2", "--out", "f32"}, {}, fp8).out, gemm::OutputType::f32);
  for (const std::string refused : {"f16", "bf16", "f32", "E4M3", "fp8"}) {
    const std::string error = error_of({"--dtype", refused}, {}, fp8);
    EXPECT_NE(error.find("e4m3 or e5m2"), std::string::npos) << refused << ": " << error;
    EXPECT_NE(error.find("'" + refused + "'"), std::string::npos) << "names what it got: " << error;
  }
  EXPECT_NE(error_of({"--out", "e4m3"}, {}, fp8).find("f32, f16 or bf16"), std::string::npos);
  // The 16-bit tensor-core steps: f16 or bf16 only, their defaults unchanged.
  gemm::OptionSet tc;
  tc.tensor_core = true;
  for (const std::string refused : {"e4m3", "e5m2"}) {
    const std::string error = error_of({"--dtype", refused}, {}, tc);
    EXPECT_NE(error.find("f16 or bf16"), std::string::npos) << refused << ": " << error;
  }
  EXPECT_EQ(parse({}, {}, tc).layout, gemm::Layout::nn);
  EXPECT_EQ(parse({}, {}, tc).out, gemm::OutputType::f32);
  // The usage text says the FP8 step's own types and defaults.
  const std::string usage = gemm::usage_text("19_fp8", "demo", {}, fp8);
  EXPECT_NE(usage.find("--dtype e4m3|e5m2"), std::string::npos);
  EXPECT_NE(usage.find("default bf16"), std::string::npos);
  EXPECT_EQ(usage.find("--dtype f16|bf16"), std::string::npos);
}

TEST(Options, UsageListsOptionsAndParams) {
  const std::string text = gemm::usage_text("07_x", "demo", {{"TM", 8, "rows per thread"}});
  EXPECT_NE(text.find("--check-only"), std::string::npos);
  EXPECT_NE(text.find("TM (default 8)"), std::string::npos);
  EXPECT_NE(text.find("77 no suitable GPU"), std::string::npos);
}

TEST(Options, CpuProgramHelpAndSweep) {
  gemm::OptionSet cpu;
  cpu.cpu = true;
  cpu.default_shapes = "384 square";
  cpu.default_reps = "3, each loop";
  const std::string text = gemm::usage_text("00_x", "demo", {}, cpu);
  // Its own defaults, and none of the GPU's options or exit codes.
  EXPECT_NE(text.find("default: 384 square"), std::string::npos);
  EXPECT_NE(text.find("default: 3, each loop"), std::string::npos);
  EXPECT_EQ(text.find("--sweep"), std::string::npos);
  EXPECT_EQ(text.find("--device"), std::string::npos);
  EXPECT_EQ(text.find("77 no suitable GPU"), std::string::npos);
  // --sweep would run the CPU loops up to 8192^3: refused with what to give instead.
  const std::string error = error_of({"--sweep"}, {}, cpu);
  EXPECT_NE(error.find("--shapes"), std::string::npos) << error;
}
