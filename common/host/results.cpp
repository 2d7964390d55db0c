#include "results.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <stdexcept>

namespace gemm {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::unchecked: return "unchecked";
  }
  return "?";
}

Json to_json(const DeviceInfo& device) {
  Json json = Json::object();
  json.set("name", device.name)
      .set("compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor))
      .set("sms", device.sms)
      .set("clock_mhz", device.clock_mhz)
      .set("memory_clock_mhz", device.memory_clock_mhz)
      .set("memory_bytes", device.memory_bytes)
      .set("l2_bytes", device.l2_bytes)
      .set("driver", device.driver)
      .set("runtime", device.runtime)
      .set("cublas", device.cublas);
  return json;
}

namespace {
Json timing_json(const TimingStats& stats, int m, int n, int k) {
  Json json = Json::object();
  json.set("median_ms", stats.median_ms)
      .set("min_ms", stats.min_ms)
      .set("max_ms", stats.max_ms)
      .set("reps", stats.reps)
      .set("gflops", gemm_gflops(m, n, k, stats.median_ms));
  return json;
}

Json kernel_json(const KernelReport& kernel) {
  Json json = Json::object();
  json.set("registers", kernel.registers)
      .set("local_bytes", kernel.local_bytes)
      .set("static_shared_bytes", kernel.static_shared_bytes)
      .set("threads_per_block", kernel.threads_per_block)
      .set("blocks_per_sm", kernel.blocks_per_sm)
      .set("occupancy", kernel.occupancy);
  return json;
}

Json params_json(const std::map<std::string, int>& params) {
  Json json = Json::object();
  for (const auto& [key, value] : params) json.set(key, value);
  return json;
}
}  // namespace

Json to_json(const ShapeResult& shape) {
  Json json = Json::object();
  json.set("m", shape.m).set("n", shape.n).set("k", shape.k).set("alpha", shape.alpha).set("beta", shape.beta);
  if (shape.timed) {
    json.set("time", timing_json(shape.ours, shape.m, shape.n, shape.k));
    if (shape.cublas.reps > 0) {
      json.set("cublas", timing_json(shape.cublas, shape.m, shape.n, shape.k));
      json.set("fraction_of_cublas", shape.cublas.median_ms / shape.ours.median_ms);
    }
    if (shape.cublas_tf32.reps > 0) json.set("cublas_tf32", timing_json(shape.cublas_tf32, shape.m, shape.n, shape.k));
    if (shape.cublas_fast_accum.reps > 0)
      json.set("cublas_fast_accum", timing_json(shape.cublas_fast_accum, shape.m, shape.n, shape.k));
  }
  if (shape.checked) {
    Json check = Json::object();
    check.set("reference", shape.reference)
        .set("relative_frobenius", shape.error.relative_frobenius)
        .set("max_abs", shape.error.max_abs)
        .set("max_over_rms", shape.error.max_over_rms)
        .set("non_finite", (long long)shape.error.non_finite);
    if (std::isfinite(shape.cublas_error)) check.set("cublas_relative_frobenius", shape.cublas_error);
    if (std::isfinite(shape.cublas_fast_accum_error))
      check.set("cublas_fast_accum_relative_frobenius", shape.cublas_fast_accum_error);
    json.set("check", check);
  }
  json.set("verdict", to_string(shape.verdict));
  if (!shape.params.empty()) json.set("params", params_json(shape.params));
  if (shape.kernel.known) json.set("kernel", kernel_json(shape.kernel));
  if (!shape.path.empty()) json.set("path", shape.path);
  return json;
}

Json to_json(const StepRun& run) {
  Json shapes = Json::array();
  for (const ShapeResult& shape : run.shapes) shapes.push(to_json(shape));
  Json json = Json::object();
  json.set("step", run.step)
      .set("variant", run.variant)
      .set("description", run.description)
      .set("params", params_json(run.params))
      .set("dtype", run.dtype)
      .set("layout", run.layout)
      .set("out", run.out)
      .set("cublas_call", run.cublas_label);
  if (!run.cublas_tf32_label.empty()) json.set("cublas_tf32_call", run.cublas_tf32_label);
  if (!run.cublas_fast_accum_label.empty()) json.set("cublas_fast_accum_call", run.cublas_fast_accum_label);
  json.set("seed", (long long)run.seed);
  if (run.kernel.known) json.set("kernel", kernel_json(run.kernel));
  json.set("shapes", shapes);
  return json;
}

Json results_document(const DeviceInfo& device, const std::vector<StepRun>& runs,
                      const std::string& date_utc) {
  Json list = Json::array();
  for (const StepRun& run : runs) list.push(to_json(run));
  Json json = Json::object();
  json.set("schema", kResultsSchema).set("date", date_utc).set("device", to_json(device)).set("runs", list);
  return json;
}

void write_results_file(const std::string& path, const Json& document) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw std::runtime_error("cannot open results file '" + path + "' for writing");
  file << document.dump();
  if (!file) throw std::runtime_error("cannot write results file '" + path + "'");
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

std::string device_slug(const std::string& name) {
  std::string slug;
  for (const char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      slug += char(std::tolower(static_cast<unsigned char>(ch)));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-gpu" : slug;
}

}  // namespace gemm
