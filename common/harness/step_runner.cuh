// The one runner behind run_step (fp32 steps) and run_tc_step (tensor-core steps): the whole step
// program, parameterised on a Kind that says what differs between them. Internal to the harness:
// only run_step.cu and run_tc_step.cu include it.
//
// The program: parse the options, refuse what the step refuses, pick the GPU, validate every shape
// before running any, print the header, then for each shape: seeded inputs, one checked launch (C
// poisoned with NaN when beta == 0, guard zones around C) compared with a reference (CPU fp64 for
// small problems, cuBLAS above), the step and cuBLAS timed the same way, a row, and --json.
//
// A Kind (FpKind in run_step.cu, TcKind in run_tc_step.cu) is built from the step's description and
// the parsed options, and gives:
//   using Description, Problem;             the step's description and what its launch receives
//   static OptionSet option_set();          the option groups it takes
//   void check_usage(shapes)                refusals beyond the options (exit 2)
//   int min_cc(), only_cc()                 the GPU it needs
//   std::string min_cc_reason()             what needs min_cc ("this step's instructions", "bf16 tensor-core instructions")
//   bool choose_params_for_gpu(options, prop)   other defaults where this GPU needs them
//   ParamsForShape params_for_shape()       the step's choice by shape, or none
//   void check_fits(shape, free, flush)     the shape fits the GPU's memory (exit 2)
//   std::string types_text()                the types in the header line ("fp32", ...)
//   kernel_of()                             (shape, params) -> the kernel, for its resource report
//   void on_device(device)                  what it needs to know of the GPU
//   void describe(run)                      the types and cuBLAS calls of the results file
//   StepInputs make_inputs(shape)           one shape's inputs
//   Problem problem(shape, a, b, c)         the problem on device buffers
//   void launch(problem, params, stream)    the step
//   std::string path_of(shape)              "" or the other path a shape runs (said above its row)
//   void cublas(handle, problem)            the yardstick
//   std::vector<float> gpu_reference(...)   C computed by cuBLAS, for problems above the CPU's
//   std::vector<float> as_floats(bytes, n)  C read back, as floats
//   void time_references(...)               references timed after the comparison (TF32)
//   check_yardsticks(result, ...)           optional (kChecksYardsticks): the yardstick's own error
//   Tolerance tolerance()                  what C must meet
//   static guard_word, cpu_reference, gpu_reference_label   guard zones' word, the references' names
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu_gemm.hpp"
#include "cublas_ref.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "exit_codes.hpp"
#include "gpu.cuh"
#include "harness.cuh"
#include "options.hpp"
#include "random.hpp"
#include "report.hpp"
#include "results.hpp"
#include "run_step.cuh"
#include "timer.cuh"
#include "verify.hpp"

namespace gemm::runner {

// Guard zones: 256 bytes on each side of C (so C keeps cudaMalloc's 256-byte alignment), filled
// with a word no kernel produces (the Kind's guard_word). A changed guard means a write outside C.
constexpr std::size_t kGuardBytes = 256;

// Problems up to this many flops are checked against the CPU fp64 reference (seconds on one core);
// larger ones against cuBLAS.
constexpr double kCpuReferenceMaxFlops = 2.2e9;

inline std::size_t elements(int rows, int cols) { return std::size_t(rows) * std::size_t(cols); }

// One shape's inputs: the logical A (M x K), B (K x N) and C (M x N) as floats holding exactly the
// values the GPU computes with, and what is uploaded where that is not those floats (tensor-core
// steps: A and B in the input type, stored as the layout says; C in the output type).
struct StepInputs {
  std::vector<float> a, b, c;
  std::vector<unsigned char> a_stored, b_stored;  // empty: a, b as they are
  std::vector<unsigned char> c_stored;            // empty: c as it is
};

template <typename T>
std::size_t bytes_of(const std::vector<T>& values) {
  return values.size() * sizeof(T);
}
template <typename T>
const unsigned char* data_of(const std::vector<T>& values) {
  return reinterpret_cast<const unsigned char*>(values.data());
}

// A, B and C uniform in [-1, 1], from (seed, shape): fresh for each shape.
inline StepInputs seeded_inputs(const GemmShape& s, std::uint64_t seed) {
  StepInputs in;
  in.a.resize(elements(s.m, s.k));
  in.b.resize(elements(s.k, s.n));
  in.c.resize(elements(s.m, s.n));
  const std::uint64_t stream = (std::uint64_t(s.m) * 1000003u + std::uint64_t(s.n)) * 1000003u + std::uint64_t(s.k);
  fill_uniform(in.a, seed, 3 * stream);
  fill_uniform(in.b, seed, 3 * stream + 1);
  fill_uniform(in.c, seed, 3 * stream + 2);
  return in;
}

// Uploads `host` into `device` (bytes) at `offset`.
template <typename T>
void upload_bytes(DeviceBuffer<unsigned char>& device, const std::vector<T>& host, std::size_t offset = 0) {
  device.upload(data_of(host), bytes_of(host), offset);
}

// A Kind whose yardstick's own error is measured too (check_yardsticks, the FP8 step).
template <typename Kind, typename = void>
struct checks_yardsticks : std::false_type {};
template <typename Kind>
struct checks_yardsticks<Kind, std::void_t<decltype(Kind::kChecksYardsticks)>> : std::bool_constant<Kind::kChecksYardsticks> {};

template <typename Kind>
class ShapeRunner {
 public:
  using Problem = typename Kind::Problem;

  ShapeRunner(const Kind& kind, const Options& options, cudaStream_t stream, cublasHandle_t cublas, LaunchTimer& timer)
      : kind_(kind), options_(options), stream_(stream), cublas_(cublas), timer_(timer) {}

  ShapeResult run(const GemmShape& s, const Params& params) {
    ShapeResult result;
    result.m = s.m;
    result.n = s.n;
    result.k = s.k;
    result.alpha = options_.alpha;
    result.beta = options_.beta;
    result.path = kind_.path_of(s);
    if (!result.path.empty()) std::printf("  %s runs the %s\n", shape_text(s).c_str(), result.path.c_str());

    const StepInputs in = kind_.make_inputs(s);
    const std::size_t a_bytes = in.a_stored.empty() ? bytes_of(in.a) : bytes_of(in.a_stored);
    const std::size_t b_bytes = in.b_stored.empty() ? bytes_of(in.b) : bytes_of(in.b_stored);
    const std::size_t c_bytes = in.c_stored.empty() ? bytes_of(in.c) : in.c_stored.size();
    DeviceBuffer<unsigned char> a(a_bytes), b(b_bytes);
    DeviceBuffer<unsigned char> c(c_bytes + 2 * kGuardBytes), c_cublas(c_bytes);
    if (in.a_stored.empty()) upload_bytes(a, in.a); else upload_bytes(a, in.a_stored);
    if (in.b_stored.empty()) upload_bytes(b, in.b); else upload_bytes(b, in.b_stored);

    const Problem ours = kind_.problem(s, a.data(), b.data(), c.data() + kGuardBytes);
    const Problem theirs = kind_.problem(s, a.data(), b.data(), c_cublas.data());

    if (options_.check) check(result, in, c, c_bytes, ours, theirs, params);
    if (!options_.check_only) time(result, ours, theirs, params);
    return result;
  }

 private:
  std::vector<unsigned char> guard() const {
    std::vector<unsigned char> bytes(kGuardBytes);
    const std::uint32_t word = Kind::guard_word;
    for (std::size_t i = 0; i < kGuardBytes; i += sizeof word) std::memcpy(&bytes[i], &word, sizeof word);
    return bytes;
  }

  void check(ShapeResult& result, const StepInputs& in, DeviceBuffer<unsigned char>& c, std::size_t bytes,
             const Problem& ours, const Problem& theirs, const Params& params) {
    const GemmShape& s = ours.shape;
    const std::size_t count = in.c.size();
    // C: guards, then NaN poison (beta == 0, so a kernel must write every element and read none)
    // or the input C (beta != 0).
    const std::vector<unsigned char> guard_bytes = guard();
    c.upload(guard_bytes, 0);
    c.upload(guard_bytes, kGuardBytes + bytes);
    if (options_.beta == 0.0f)
      CUDA_CHECK(cudaMemset(c.data() + kGuardBytes, 0xff, bytes));  // all-ones bits: NaN in f32 and f16
    else if (in.c_stored.empty())
      upload_bytes(c, in.c, kGuardBytes);
    else
      upload_bytes(c, in.c_stored, kGuardBytes);
    kind_.launch(ours, params, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::vector<unsigned char> all(bytes + 2 * kGuardBytes);
    c.download(all.data(), all.size(), 0);
    const bool guards_intact = std::memcmp(all.data(), guard_bytes.data(), kGuardBytes) == 0 &&
                               std::memcmp(all.data() + kGuardBytes + bytes, guard_bytes.data(), kGuardBytes) == 0;
    const std::vector<float> computed = kind_.as_floats(all.data() + kGuardBytes, count);

    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    std::vector<double> cpu_reference;
    std::vector<float> gpu_reference;
    if (flops <= kCpuReferenceMaxFlops) {
      cpu_reference.resize(count);
      cpu_gemm_blocked(s.m, s.n, s.k, options_.alpha, in.a.data(), in.b.data(), options_.beta, in.c.data(),
                       cpu_reference.data());
      result.reference = Kind::cpu_reference;
    } else {
      gpu_reference = kind_.gpu_reference(cublas_, ours, theirs, in, stream_);
      result.reference = Kind::gpu_reference_label;
    }
    const auto error_of = [&](const float* values) {
      return cpu_reference.empty() ? compare(values, gpu_reference.data(), count, kind_.tolerance())
                                   : compare(values, cpu_reference.data(), count, kind_.tolerance());
    };
    result.error = error_of(computed.data());
    if constexpr (checks_yardsticks<Kind>::value) kind_.check_yardsticks(result, cublas_, theirs, in, error_of);
    finish_check(result, guards_intact, computed, s, kind_.name());
  }

  void time(ShapeResult& result, const Problem& ours, const Problem& theirs, const Params& params) {
    time_against_cublas(
        timer_, options_.warmup, options_.reps, [&] { kind_.launch(ours, params, stream_); },
        [&] { kind_.cublas(cublas_, theirs); }, result);
    kind_.time_references(result, timer_, options_.warmup, cublas_, theirs);
  }

  const Kind& kind_;
  const Options& options_;
  cudaStream_t stream_;
  cublasHandle_t cublas_;
  LaunchTimer& timer_;
};

// The whole program of a step of this Kind. Returns the exit code; what it throws, run_program
// turns into one.
template <typename Kind>
int run(int argc, char** argv, const typename Kind::Description& step) {
  const OptionSet set = Kind::option_set();
  Options options = parse_options(argc, argv, step.params, set);
  if (options.help) {
    std::printf("%s", usage_text(step.name, step.title, step.params, set).c_str());
    return kExitOk;
  }
  if (step.check_params) {
    const std::string rule = step.check_params(options.params);
    if (!rule.empty()) throw UsageError("--param values rejected: " + rule);
  }
  Kind kind(step, options);
  const std::vector<GemmShape> shapes = options.shapes.empty() ? default_shapes() : options.shapes;
  kind.check_usage(shapes);

  const DeviceInfo device = select_device(options.device, kind.min_cc(), step.name, kind.only_cc());
  kind.on_device(device);
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, options.device));
  const bool params_for_gpu = kind.choose_params_for_gpu(options, prop);  // the defaults did not fit this GPU
  const ParamsForShape choose = kind.params_for_shape();
  const auto params_of = [&](const GemmShape& s) {
    return params_for(s, options, choose, device.sms, step.check_params, step.name);
  };
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const long long flush_bytes = options.check_only ? 0 : 2 * device.l2_bytes;
  // Before any launch: every shape fits, and the kernel each would launch was compiled for what the
  // run needs (a body compiled out for an older architecture would run and write garbage).
  const std::function<const void*(const GemmShape&, const Params&)> kernel_for = kind.kernel_of();
  for (const GemmShape& s : shapes) {
    kind.check_fits(s, free_bytes, flush_bytes);
    check_launch_limits(s, step.launch_shape(s, params_of(s)), prop);
    if (kernel_for) check_compiled_code(kernel_for(s, params_of(s)), kind.min_cc(), kind.min_cc_reason(), step.name);
  }

  std::printf("%s: %s\n%s\n", step.name.c_str(), step.title.c_str(), device_header(device).c_str());
  std::printf("C = %g*A*B + %g*C, %s, seed %llu", double(options.alpha), double(options.beta),
              kind.types_text().c_str(), (unsigned long long)options.seed);
  for (const auto& [key, value] : options.params) std::printf(", %s=%d", key.c_str(), value);
  std::printf("\n");
  if (params_for_gpu)
    std::printf("(the default tunables need more shared memory per block than this GPU's %zu bytes; chosen instead: "
                "the ones above)\n", std::size_t(prop.sharedMemPerBlockOptin));
  // The header's resource report: the kernel the run's tunables launch for the first shape. A shape
  // that launches another one reports its own above its row (run_with_params).
  const void* run_kernel = kernel_for ? kernel_for(shapes.front(), options.params) : nullptr;
  KernelReport kernel;
  if (run_kernel) kernel = kernel_report(run_kernel, step.launch_shape(shapes.front(), options.params), prop);
  std::printf("%s\n", table_header().c_str());
  std::fflush(stdout);

  const CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  CublasHandle cublas(stream);
  LaunchTimer timer(stream, options.check_only ? 0 : device.l2_bytes);
  ShapeRunner<Kind> runner(kind, options, stream, cublas.get(), timer);

  StepRun run;
  run.step = step.name;
  run.description = step.title;
  run.params = options.params;
  kind.describe(run);
  run.seed = options.seed;
  run.kernel = kernel;
  return run_shapes(options, device, shapes, run, [&](const GemmShape& s) {
    std::function<const void*(const Params&)> kernel_of;
    if (kernel_for) kernel_of = [&](const Params& params) { return kernel_for(s, params); };
    return run_with_params(
        s, params_of(s), options.params, run_kernel, [&](const Params& params) { return runner.run(s, params); },
        kernel_of,
        [&](const void* function, const Params& params) { return kernel_report(function, step.launch_shape(s, params), prop); });
  });
}

}  // namespace gemm::runner
