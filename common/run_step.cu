#include "run_step.cuh"

#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "cpu_gemm.hpp"
#include "cublas_ref.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "exit_codes.hpp"
#include "program.cuh"
#include "gpu.cuh"
#include "harness.cuh"
#include "random.hpp"
#include "report.hpp"
#include "results.hpp"
#include "timer.cuh"
#include "verify.hpp"

namespace gemm {

namespace {

// Guard zones around C: 64 floats (256 bytes, so C keeps cudaMalloc's 256-byte alignment) on each
// side, filled with a bit pattern no kernel produces. A changed guard means a write outside C.
constexpr std::size_t kGuardFloats = 64;
constexpr std::uint32_t kGuardBits = 0x7fc0dead;  // a quiet NaN with a recognisable payload

// Problems up to this many flops are checked against the CPU fp64 reference (seconds on one core);
// larger ones against cuBLAS fp32.
constexpr double kCpuReferenceMaxFlops = 2.2e9;

std::size_t elements(int rows, int cols) { return std::size_t(rows) * std::size_t(cols); }

// Device bytes a shape needs: A, B, C with guards, cuBLAS's C; the L2 flush buffer comes on top.
std::size_t device_bytes(const GemmShape& s) {
  return sizeof(float) * (elements(s.m, s.k) + elements(s.k, s.n) + 2 * elements(s.m, s.n) + 2 * kGuardFloats);
}

void validate_shape(const GemmShape& s, const StepDescription& step, const Params& params,
                    const cudaDeviceProp& prop, std::size_t free_bytes, long long flush_bytes) {
  constexpr std::size_t kMaxElements = std::size_t(std::numeric_limits<int>::max());
  struct Matrix {
    const char* name;
    std::size_t count;
  } matrices[] = {{"A (MxK)", elements(s.m, s.k)}, {"B (KxN)", elements(s.k, s.n)}, {"C (MxN)", elements(s.m, s.n)}};
  for (const Matrix& matrix : matrices)
    if (matrix.count > kMaxElements)
      throw UsageError("shape " + shape_text(s) + ": " + matrix.name + " has " + std::to_string(matrix.count) +
                       " elements; the kernels index with 32-bit integers, so each matrix must have fewer than "
                       "2^31 elements: use smaller sizes");

  const std::size_t needed = device_bytes(s) + std::size_t(flush_bytes);
  if (needed > free_bytes) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "shape %s needs %.1f GB of device memory; the GPU has %.1f GB free: use smaller sizes",
                  shape_text(s).c_str(), double(needed) / 1e9, double(free_bytes) / 1e9);
    throw UsageError(message);
  }

  check_launch_limits(s, step.launch_shape(s, params), prop);
}

// The inputs of one shape: fresh for each shape, from (seed, shape).
struct Inputs {
  std::vector<float> a, b, c;
};

Inputs make_inputs(const GemmShape& s, std::uint64_t seed) {
  Inputs in;
  in.a.resize(elements(s.m, s.k));
  in.b.resize(elements(s.k, s.n));
  in.c.resize(elements(s.m, s.n));
  const std::uint64_t stream = (std::uint64_t(s.m) * 1000003u + std::uint64_t(s.n)) * 1000003u + std::uint64_t(s.k);
  fill_uniform(in.a, seed, 3 * stream);
  fill_uniform(in.b, seed, 3 * stream + 1);
  fill_uniform(in.c, seed, 3 * stream + 2);
  return in;
}

float guard_value() {
  float value;
  std::memcpy(&value, &kGuardBits, sizeof value);
  return value;
}

class ShapeRunner {
 public:
  ShapeRunner(const StepDescription& step, const Options& options, cudaStream_t stream, cublasHandle_t cublas,
              LaunchTimer& timer, bool tf32)
      : step_(step), options_(options), stream_(stream), cublas_(cublas), timer_(timer), tf32_(tf32) {}

  ShapeResult run(const GemmShape& s, const Params& params) {
    params_ = &params;
    ShapeResult result;
    result.m = s.m;
    result.n = s.n;
    result.k = s.k;
    result.alpha = options_.alpha;
    result.beta = options_.beta;

    const Inputs in = make_inputs(s, options_.seed);
    DeviceBuffer<float> a(in.a.size()), b(in.b.size());
    DeviceBuffer<float> c(in.c.size() + 2 * kGuardFloats), c_cublas(in.c.size());
    a.upload(in.a);
    b.upload(in.b);
    float* c_matrix = c.data() + kGuardFloats;

    Fp32Problem ours{s, options_.alpha, options_.beta, a.data(), b.data(), c_matrix};
    Fp32Problem theirs{s, options_.alpha, options_.beta, a.data(), b.data(), c_cublas.data()};

    if (options_.check) check(result, in, c, ours, theirs);
    if (!options_.check_only) time(result, ours, theirs);
    return result;
  }

 private:
  void launch(const Fp32Problem& problem) { step_.launch(problem, *params_, stream_); }

  void check(ShapeResult& result, const Inputs& in, DeviceBuffer<float>& c, const Fp32Problem& ours,
             const Fp32Problem& theirs) {
    const GemmShape& s = ours.shape;
    const std::size_t count = in.c.size();
    // C: guards, then NaN poison (beta == 0, so a kernel must write every element and read none)
    // or the input C (beta != 0).
    std::vector<float> guard(kGuardFloats, guard_value());
    c.upload(guard, 0);
    c.upload(guard, kGuardFloats + count);
    if (options_.beta == 0.0f)
      CUDA_CHECK(cudaMemset(c.data() + kGuardFloats, 0xff, count * sizeof(float)));  // all-ones bits: NaN
    else
      c.upload(in.c, kGuardFloats);
    launch(ours);
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::vector<float> computed(count), guards_after(2 * kGuardFloats);
    c.download(computed.data(), count, kGuardFloats);
    c.download(guards_after.data(), kGuardFloats, 0);
    c.download(guards_after.data() + kGuardFloats, kGuardFloats, kGuardFloats + count);
    const bool guards_intact =
        std::memcmp(guards_after.data(), std::vector<float>(2 * kGuardFloats, guard_value()).data(),
                    guards_after.size() * sizeof(float)) == 0;

    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    if (flops <= kCpuReferenceMaxFlops) {
      std::vector<double> reference(count);
      cpu_gemm_blocked(s.m, s.n, s.k, options_.alpha, in.a.data(), in.b.data(), options_.beta, in.c.data(),
                       reference.data());
      result.reference = "cpu-fp64";
      result.error = compare(computed.data(), reference.data(), count, kFp32Tolerance);
    } else {
      // cuBLAS writes its own C, loaded with the input C first.
      CUDA_CHECK(cudaMemcpy(theirs.c, in.c.data(), count * sizeof(float), cudaMemcpyHostToDevice));
      cublas_sgemm(cublas_, theirs);
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      std::vector<float> reference(count);
      CUDA_CHECK(cudaMemcpy(reference.data(), theirs.c, count * sizeof(float), cudaMemcpyDeviceToHost));
      result.reference = "cublas-fp32";
      result.error = compare(computed.data(), reference.data(), count, kFp32Tolerance);
    }
    finish_check(result, guards_intact, computed, s, step_.name);
  }

  void time(ShapeResult& result, const Fp32Problem& ours, const Fp32Problem& theirs) {
    time_against_cublas(
        timer_, options_.warmup, options_.reps, [&] { launch(ours); }, [&] { cublas_sgemm(cublas_, theirs); }, result);
    if (tf32_)
      result.cublas_tf32 =
          time_reference(timer_, options_.warmup, result.ours.reps, [&] { cublas_tf32_gemm(cublas_, theirs); });
  }

  const StepDescription& step_;
  const Options& options_;
  const Params* params_ = nullptr;  // the tunables of the shape being run
  cudaStream_t stream_;
  cublasHandle_t cublas_;
  LaunchTimer& timer_;
  bool tf32_;  // also time cuBLAS in TF32, for reference
};

int run(int argc, char** argv, const StepDescription& step) {
  const Options options = parse_options(argc, argv, step.params);
  if (options.help) {
    std::printf("%s", usage_text(step.name, step.title, step.params).c_str());
    return kExitOk;
  }
  if (step.check_params) {
    const std::string rule = step.check_params(options.params);
    if (!rule.empty()) throw UsageError("--param values rejected: " + rule);
  }
  const std::vector<GemmShape> shapes = options.shapes.empty() ? default_shapes() : options.shapes;

  const DeviceInfo device = select_device(options.device, step.min_cc, step.name);
  const auto params_of = [&](const GemmShape& s) {
    return params_for(s, options, step.params_for_shape, device.sms, step.check_params, step.name);
  };
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, options.device));
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const long long flush_bytes = options.check_only ? 0 : 2 * device.l2_bytes;
  for (const GemmShape& s : shapes) validate_shape(s, step, params_of(s), prop, free_bytes, flush_bytes);

  std::printf("%s: %s\n%s\n", step.name.c_str(), step.title.c_str(), device_header(device).c_str());
  std::printf("C = %g*A*B + %g*C, fp32, seed %llu", double(options.alpha), double(options.beta),
              (unsigned long long)options.seed);
  for (const auto& [key, value] : options.params) std::printf(", %s=%d", key.c_str(), value);
  std::printf("\n");
  // The header's resource report: the kernel the run's tunables launch for the first shape. A shape
  // that launches another one reports its own above its row (run_with_params).
  const void* run_kernel = step.kernel ? step.kernel(shapes.front(), options.params) : nullptr;
  KernelReport kernel;
  if (run_kernel) kernel = kernel_report(run_kernel, step.launch_shape(shapes.front(), options.params), prop);
  std::printf("%s\n", table_header().c_str());
  std::fflush(stdout);

  const CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  CublasHandle cublas(stream);
  LaunchTimer timer(stream, options.check_only ? 0 : device.l2_bytes);
  const bool tf32 = device.cc_major * 10 + device.cc_minor >= kTf32MinCc;
  ShapeRunner runner(step, options, stream, cublas.get(), timer, tf32);

  StepRun run;
  run.step = step.name;
  run.description = step.title;
  run.params = options.params;
  run.cublas_label = kCublasSgemmLabel;
  if (tf32 && !options.check_only) run.cublas_tf32_label = kCublasTf32Label;
  run.seed = options.seed;
  run.kernel = kernel;
  return run_shapes(options, device, shapes, run, [&](const GemmShape& s) {
    std::function<const void*(const Params&)> kernel_of;
    if (step.kernel) kernel_of = [&](const Params& params) { return step.kernel(s, params); };
    return run_with_params(
        s, params_of(s), options.params, run_kernel, [&](const Params& params) { return runner.run(s, params); },
        kernel_of,
        [&](const void* function, const Params& params) { return kernel_report(function, step.launch_shape(s, params), prop); });
  });
}

}  // namespace

std::vector<GemmShape> default_shapes() { return {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}}; }

int run_step(int argc, char** argv, const StepDescription& step) {
  return run_program(step.name, [&] { return run(argc, argv, step); });
}

}  // namespace gemm
