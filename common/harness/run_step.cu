#include "run_step.cuh"

#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "program.cuh"
#include "step_runner.cuh"

namespace gemm {

namespace {

using runner::elements;
using runner::StepInputs;

// Device bytes a shape needs: A, B, C with guards, cuBLAS's C; the L2 flush buffer comes on top.
std::size_t device_bytes(const GemmShape& s) {
  return sizeof(float) * (elements(s.m, s.k) + elements(s.k, s.n) + 2 * elements(s.m, s.n)) + 2 * runner::kGuardBytes;
}

// What an fp32 step is to the runner (step_runner.cuh): fp32 in and out, cuBLAS SGEMM as the
// yardstick and the reference above the CPU's size, and cuBLAS in TF32 timed as a reference line
// on GPUs whose tensor cores take it.
class FpKind {
 public:
  using Description = StepDescription;
  using Problem = Fp32Problem;

  FpKind(const StepDescription& step, const Options& options) : step_(step), options_(options) {}

  static OptionSet option_set() { return {}; }
  void check_usage(const std::vector<GemmShape>&) const {}
  std::string path_of(const GemmShape&) const { return ""; }  // every shape runs the step's kernels
  int min_cc() const { return step_.min_cc; }
  std::string min_cc_reason() const { return "this step's instructions"; }
  int only_cc() const { return 0; }
  bool choose_params_for_gpu(Options&, const cudaDeviceProp&) const { return false; }
  ParamsForShape params_for_shape() const { return step_.params_for_shape; }

  void check_fits(const GemmShape& s, std::size_t free_bytes, long long flush_bytes) const {
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
  }

  std::string types_text() const { return "fp32"; }
  std::function<const void*(const GemmShape&, const Params&)> kernel_of() const { return step_.kernel; }
  void on_device(const DeviceInfo& device) { tf32_ = device.cc_major * 10 + device.cc_minor >= kTf32MinCc; }
  void describe(StepRun& run) const {
    run.cublas_label = kCublasSgemmLabel;
    if (tf32_ && !options_.check_only) run.cublas_tf32_label = kCublasTf32Label;
  }
  const std::string& name() const { return step_.name; }

  StepInputs make_inputs(const GemmShape& s) const { return runner::seeded_inputs(s, options_.seed); }
  Problem problem(const GemmShape& s, const unsigned char* a, const unsigned char* b, unsigned char* c) const {
    return {s, options_.alpha, options_.beta, reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b),
            reinterpret_cast<float*>(c)};
  }
  void launch(const Problem& problem, const Params& params, cudaStream_t stream) const {
    step_.launch(problem, params, stream);
  }
  void cublas(cublasHandle_t handle, const Problem& theirs) const { cublas_sgemm(handle, theirs); }
  // cuBLAS writes its own C, loaded with the input C first.
  std::vector<float> gpu_reference(cublasHandle_t handle, const Problem&, const Problem& theirs, const StepInputs& in,
                                   cudaStream_t stream) const {
    const std::size_t count = in.c.size();
    CUDA_CHECK(cudaMemcpy(theirs.c, in.c.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    cublas_sgemm(handle, theirs);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> reference(count);
    CUDA_CHECK(cudaMemcpy(reference.data(), theirs.c, count * sizeof(float), cudaMemcpyDeviceToHost));
    return reference;
  }
  std::vector<float> as_floats(const unsigned char* bytes, std::size_t count) const {
    std::vector<float> values(count);
    std::memcpy(values.data(), bytes, count * sizeof(float));
    return values;
  }
  void time_references(ShapeResult& result, LaunchTimer& timer, int warmup, cublasHandle_t handle,
                       const Problem& theirs) const {
    if (tf32_)
      result.cublas_tf32 = time_reference(timer, warmup, result.ours.reps, [&] { cublas_tf32_gemm(handle, theirs); });
  }

  Tolerance tolerance() const { return kFp32Tolerance; }
  static constexpr std::uint32_t guard_word = 0x7fc0dead;  // a quiet NaN with a recognisable payload
  static constexpr const char* cpu_reference = "cpu-fp64";
  static constexpr const char* gpu_reference_label = "cublas-fp32";

 private:
  const StepDescription& step_;
  const Options& options_;
  bool tf32_ = false;  // also time cuBLAS in TF32, for reference
};

}  // namespace

std::vector<GemmShape> default_shapes() { return {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}}; }

int run_step(int argc, char** argv, const StepDescription& step) {
  return run_program(step.name, [&] { return runner::run<FpKind>(argc, argv, step); });
}

}  // namespace gemm
