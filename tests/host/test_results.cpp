#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "json_writer.hpp"
#include "report.hpp"
#include "results.hpp"
#include "stats.hpp"

TEST(Json, EscapesAndNumbers) {
  gemm::Json object = gemm::Json::object();
  object.set("text", "a \"quoted\"\\ line\n\x01").set("int", 42).set("real", 0.1).set("nan", NAN).set("flag", true);
  const std::string text = object.dump();
  EXPECT_NE(text.find(R"("text": "a \"quoted\"\\ line\n\u0001")"), std::string::npos);
  EXPECT_NE(text.find(R"("int": 42)"), std::string::npos);
  EXPECT_NE(text.find(R"("real": 0.1)"), std::string::npos);
  EXPECT_NE(text.find(R"("nan": null)"), std::string::npos);
  EXPECT_NE(text.find(R"("flag": true)"), std::string::npos);
}

TEST(Json, NumbersReadBackExactly) {
  for (double value : {1.0 / 3.0, 123.456789012345, 1e-7, 6.02e23}) {
    gemm::Json array = gemm::Json::array();
    array.push(value);
    const std::string text = array.dump();
    const double read = std::strtod(text.c_str() + text.find_first_of("0123456789"), nullptr);
    EXPECT_EQ(read, value) << text;
  }
}

TEST(Json, SetReplacesExistingKey) {
  gemm::Json object = gemm::Json::object();
  object.set("a", 1).set("a", 2);
  EXPECT_EQ(object.dump(), "{\n  \"a\": 2\n}\n");
}

TEST(Stats, MedianMinMax) {
  auto stats = gemm::summarize({3, 1, 2});
  EXPECT_DOUBLE_EQ(stats.median_ms, 2);
  EXPECT_DOUBLE_EQ(stats.min_ms, 1);
  EXPECT_DOUBLE_EQ(stats.max_ms, 3);
  EXPECT_EQ(stats.reps, 3);
  stats = gemm::summarize({4, 1, 2, 3});
  EXPECT_DOUBLE_EQ(stats.median_ms, 2.5);
  EXPECT_EQ(gemm::summarize({}).reps, 0);
}

TEST(Stats, Gflops) {
  // 2 * 1000^3 flops in 1 ms = 2000 GFLOPS.
  EXPECT_DOUBLE_EQ(gemm::gemm_gflops(1000, 1000, 1000, 1.0), 2000.0);
  EXPECT_DOUBLE_EQ(gemm::gemm_gflops(1, 1, 1, 0.0), 0.0);
}

TEST(Results, DocumentHoldsEverythingTheDocsNeed) {
  gemm::DeviceInfo device;
  device.name = "Test GPU";
  device.cc_major = 9;
  device.sms = 132;
  gemm::StepRun run;
  run.step = "01_naive";
  run.params = {{"BM", 64}};
  gemm::ShapeResult shape;
  shape.m = shape.n = shape.k = 1024;
  shape.timed = true;
  shape.ours = gemm::summarize({2.0, 1.0, 3.0});
  shape.cublas = gemm::summarize({0.5});
  shape.checked = true;
  shape.reference = "cpu-fp64";
  shape.error.relative_frobenius = 1e-7;
  shape.verdict = gemm::Verdict::pass;
  run.shapes.push_back(shape);
  const std::string text = gemm::results_document(device, {run}, "2026-01-01T00:00:00Z").dump();
  for (const char* needle :
       {R"("schema": "gemm-steps-results/1")", R"("date": "2026-01-01T00:00:00Z")", R"("name": "Test GPU")",
        R"("compute_capability": "9.0")", R"("step": "01_naive")", R"("BM": 64)", R"("median_ms": 2)",
        R"("min_ms": 1)", R"("max_ms": 3)", R"("reps": 3)", R"("fraction_of_cublas": 0.25)", R"("verdict": "PASS")",
        R"("reference": "cpu-fp64")"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle;
  // 2 * 1024^3 flops in 2 ms.
  std::ostringstream gflops;
  gflops << R"("gflops": )" << 2.0 * 1024 * 1024 * 1024 / 2e-3 / 1e9;
  EXPECT_NE(text.find(gflops.str().substr(0, 16)), std::string::npos);
  // A shape that ran its run's params carries none of its own.
  EXPECT_EQ(text.find(R"("BM": 128)"), std::string::npos);
}

TEST(Results, ShapeWithItsOwnTunablesRecordsThem) {
  gemm::ShapeResult shape;
  shape.m = shape.n = shape.k = 8;
  shape.params = {{"BM", 256}, {"BN", 128}};
  shape.kernel.known = true;
  shape.kernel.registers = 231;
  const std::string text = gemm::to_json(shape).dump();
  for (const char* needle : {R"("params": {)", R"("BM": 256)", R"("BN": 128)", R"("registers": 231)"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " in " << text;
}

TEST(Results, ShapeWithItsOwnInstanceRecordsOnlyItsKernel) {
  // Same tunables as the run, another compiled instance (e.g. step 14 at a shape of whole tiles).
  gemm::ShapeResult shape;
  shape.m = shape.n = shape.k = 8;
  shape.kernel.known = true;
  shape.kernel.registers = 250;
  const std::string text = gemm::to_json(shape).dump();
  EXPECT_NE(text.find(R"("registers": 250)"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"("params")"), std::string::npos) << text;
}

TEST(Results, ShapeOfTheRunsKernelRecordsNoKernel) {
  gemm::ShapeResult shape;
  shape.m = shape.n = shape.k = 8;
  EXPECT_EQ(gemm::to_json(shape).dump().find(R"("kernel")"), std::string::npos);
}

TEST(Results, Tf32ReferenceOnlyWhereTimed) {
  gemm::StepRun run;
  run.step = "11_split_k_tail";
  gemm::ShapeResult shape;
  shape.m = shape.n = shape.k = 1024;
  shape.timed = true;
  shape.ours = gemm::summarize({2.0});
  shape.cublas = gemm::summarize({2.0});
  run.shapes.push_back(shape);
  std::string text = gemm::to_json(run).dump();
  EXPECT_EQ(text.find("tf32"), std::string::npos) << text;  // sm_75, or a tensor-core step
  EXPECT_EQ(gemm::reference_line(shape), "");

  run.cublas_tf32_label = "cublasGemmEx, TF32";
  run.shapes[0].cublas_tf32 = gemm::summarize({0.5, 0.25, 1.0});
  text = gemm::to_json(run).dump();
  for (const char* needle : {R"("cublas_tf32_call": "cublasGemmEx, TF32")", R"("cublas_tf32": {)", R"("median_ms": 0.5)"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " in " << text;
  // The line under the row: TF32's rate and how many times this step's.
  const std::string line = gemm::reference_line(run.shapes[0]);
  EXPECT_NE(line.find("TF32"), std::string::npos) << line;
  EXPECT_NE(line.find("4.0x"), std::string::npos) << line;
}

TEST(Results, WritesAndReportsBadPaths) {
  const std::string path = ::testing::TempDir() + "gemm_results_test.json";
  gemm::write_results_file(path, gemm::results_document({}, {}, "x"));
  std::ifstream file(path);
  std::stringstream content;
  content << file.rdbuf();
  EXPECT_NE(content.str().find("\"runs\": []"), std::string::npos);
  std::remove(path.c_str());
  EXPECT_THROW(gemm::write_results_file("/nonexistent-dir/x.json", gemm::results_document({}, {}, "x")),
               std::runtime_error);
}

TEST(Results, DeviceSlug) {
  EXPECT_EQ(gemm::device_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(gemm::device_slug("  Tesla T4 "), "tesla-t4");
  EXPECT_EQ(gemm::device_slug("***"), "unknown-gpu");
}
