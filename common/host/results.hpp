// Results files (docs/design.md, "Results files"): what a run measured, per step and shape.
//
// A step writes one file with --json; tools/bench_all.py merges the files of one GPU into
// docs/results/<gpu>.json. The viewer and the docs tables read these files; nothing else holds a
// number. Schema: docs/results/README.md.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "json_writer.hpp"
#include "stats.hpp"
#include "verify.hpp"

namespace gemm {

constexpr const char* kResultsSchema = "gemm-steps-results/1";

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  int clock_mhz = 0;          // maximum SM clock the driver reports
  int memory_clock_mhz = 0;
  long long memory_bytes = 0;
  long long l2_bytes = 0;
  std::string driver;         // CUDA driver API version, e.g. "13.0"
  std::string runtime;        // CUDA runtime version
  std::string cublas;         // cuBLAS version
};

enum class Verdict { pass, fail, unchecked };
const char* to_string(Verdict verdict);

// What the compiler and the occupancy calculator say of a kernel (cudaFuncGetAttributes,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor).
struct KernelReport {
  bool known = false;
  int registers = 0;
  int local_bytes = 0;           // per thread: spills and indexed arrays live here
  int static_shared_bytes = 0;
  int threads_per_block = 0;
  int blocks_per_sm = 0;
  double occupancy = 0;          // resident threads / the SM's maximum
};

struct ShapeResult {
  int m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  bool timed = false;
  TimingStats ours;
  TimingStats cublas;
  TimingStats cublas_tf32;  // fp32 steps on sm_80+: cuBLAS on the tensor cores in TF32, a reference only
  TimingStats cublas_fast_accum;  // the FP8 step: cuBLASLt with fast accumulation (no promotion), a reference only
  bool checked = false;
  std::string reference;  // "cpu-fp64" or "cublas-fp32" (what C was compared with)
  ErrorReport error;
  // The FP8 step: cuBLASLt's own relative Frobenius error against the same reference, with fast
  // accumulation off (the yardstick) and on; NaN where not measured.
  double cublas_error = NAN, cublas_fast_accum_error = NAN;
  Verdict verdict = Verdict::unchecked;
  // Set only when this shape ran other tunables than the run's `params` (a step that chooses its
  // configuration by shape): those tunables.
  std::map<std::string, int> params;
  // Set only when this shape ran another kernel than the run's report describes (other tunables,
  // or another compiled instance chosen by shape): that kernel's resource report.
  KernelReport kernel;
  // Set only when this shape ran another path than the step's kernels alone (a tensor-core shape
  // the kernels do not take, run through padded copies): what it ran.
  std::string path;
};


struct StepRun {
  std::string step;         // folder name, e.g. "01_naive"
  std::string variant;      // a step's variant name, "" for the default
  std::string description;
  std::map<std::string, int> params;
  std::string dtype = "f32", layout = "nn", out = "f32";
  std::string cublas_label; // what cuBLAS call the cuBLAS column is, e.g. "cublasSgemm (fp32, TF32 off)"
  std::string cublas_tf32_label;  // the TF32 reference's call, where it was timed
  std::string cublas_fast_accum_label;  // the fast-accumulation reference's call, where it was timed
  unsigned long long seed = 0;
  KernelReport kernel;
  std::vector<ShapeResult> shapes;
};

Json to_json(const DeviceInfo& device);
Json to_json(const ShapeResult& shape);
Json to_json(const StepRun& run);

// A whole results file: schema, date (UTC, ISO 8601), device, runs.
Json results_document(const DeviceInfo& device, const std::vector<StepRun>& runs,
                      const std::string& date_utc);

// Writes the document to `path`; throws std::runtime_error naming the path on failure.
void write_results_file(const std::string& path, const Json& document);

// A file-name-safe form of the GPU name: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3".
std::string device_slug(const std::string& name);

// The current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

}  // namespace gemm
