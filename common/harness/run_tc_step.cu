#include "run_tc_step.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cublaslt_fp8.cuh"
#include "device_buffer.cuh"
#include "program.cuh"
#include "step_runner.cuh"

namespace gemm {

namespace {

using runner::elements;
using runner::StepInputs;

// f32 output: the products of 16-bit inputs are exact in f32, so the error is f32 accumulation, as
// in the fp32 steps. f16 output adds one rounding to 11 significant bits per element (2^-11
// relative), bf16 output one to 8 bits (2^-8): the same margin over each.
constexpr Tolerance kF32OutTolerance = kFp32Tolerance;
constexpr Tolerance kF16OutTolerance{2e-3, 1e-2};
constexpr Tolerance kBf16OutTolerance{1.6e-2, 8e-2};

std::size_t in_bytes() { return 2; }
std::size_t out_bytes(OutputType out) { return std::size_t(output_bytes(out)); }
// A 16-bit output type as the 16-bit input type of the same format (for to_16bit, from_16bit).
InputType as_16bit(OutputType out) { return out == OutputType::bf16 ? InputType::bf16 : InputType::f16; }

// Rounds a rows x cols row-major matrix to `type` in place and keeps its bits in `stored`, as they
// are or transposed (cols x rows).
void round_and_store(std::vector<float>& logical, std::vector<unsigned char>& stored, int rows, int cols,
                     bool transposed, InputType type) {
  stored.resize(2 * logical.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const std::size_t at = elements(r, cols) + std::size_t(c);
      const std::uint16_t bits = to_16bit(logical[at], type);
      logical[at] = from_16bit(bits, type);
      std::memcpy(&stored[2 * (transposed ? elements(c, rows) + std::size_t(r) : at)], &bits, 2);
    }
}

// C rounded to the output type in place, and its bytes in c_stored.
void round_and_store_c(StepInputs& in, OutputType out) {
  in.c_stored.resize(in.c.size() * out_bytes(out));
  for (std::size_t i = 0; i < in.c.size(); ++i) {
    if (out != OutputType::f32) {
      const std::uint16_t bits = to_16bit(in.c[i], as_16bit(out));
      in.c[i] = from_16bit(bits, as_16bit(out));
      std::memcpy(&in.c_stored[2 * i], &bits, 2);
    } else {
      std::memcpy(&in.c_stored[4 * i], &in.c[i], 4);
    }
  }
}

// C as read back (of the output type), as floats.
std::vector<float> output_as_floats(const unsigned char* bytes, std::size_t count, OutputType out) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (out != OutputType::f32) {
      std::uint16_t bits;
      std::memcpy(&bits, &bytes[2 * i], 2);
      values[i] = from_16bit(bits, as_16bit(out));
    } else {
      std::memcpy(&values[i], &bytes[4 * i], 4);
    }
  }
  return values;
}

// One shape's inputs: seeded as the fp32 steps', rounded to the input type (A, B) and the output
// type (C); A and B stored for the layout (A is stored K x M in TN, B N x K in NT), C in the output
// type.
StepInputs make_tc_inputs(const GemmShape& s, const Options& o) {
  StepInputs in = runner::seeded_inputs(s, o.seed);
  round_and_store(in.a, in.a_stored, s.m, s.k, o.layout == Layout::tn, o.dtype);
  round_and_store(in.b, in.b_stored, s.k, s.n, o.layout == Layout::nt, o.dtype);
  round_and_store_c(in, o.out);
  return in;
}

std::string cublas_label(const Options& o) {
  return std::string("cublasGemmEx (") + to_string(o.dtype) + " in, f32 compute, " + to_string(o.out) + " out, " +
         to_string(o.layout) + ")";
}

// The general path of the tensor-core steps: a problem whose extents the step's kernels do not take
// runs as a padded one. A and B are copied into zeroed buffers of the padded extents as they are
// stored (the zeros add nothing to the products), and C into its own where it is read (beta != 0);
// the step computes the padded problem, and C's M x N corner is copied back. An operand whose
// stored extents need no padding is used in place (C too: then nothing is copied back). The copies
// are strided (cudaMemcpy2DAsync) and run in the same stream, inside what is timed.
class PaddedCopies {
 public:
  template <typename Launch>
  void run(const TcProblem& problem, const GemmShape& p, std::size_t in, std::size_t out, cudaStream_t stream,
           Launch&& launch) {
    const GemmShape& s = problem.shape;
    if (shape_.m != p.m || shape_.n != p.n || shape_.k != p.k) {  // new buffers, zeroed once: the copies write only their inside
      shape_ = p;
      a_ = DeviceBuffer<unsigned char>(in * elements(p.m, p.k));
      b_ = DeviceBuffer<unsigned char>(in * elements(p.k, p.n));
      c_ = DeviceBuffer<unsigned char>(out * elements(p.m, p.n));
      CUDA_CHECK(cudaMemset(a_.data(), 0, a_.bytes()));
      CUDA_CHECK(cudaMemset(b_.data(), 0, b_.bytes()));
      CUDA_CHECK(cudaMemset(c_.data(), 0, c_.bytes()));
    }
    TcProblem inner = problem;
    inner.shape = p;
    // A is stored M x K (K x M in TN), B K x N (N x K in NT).
    const bool a_as_is = p.m == s.m && p.k == s.k, b_as_is = p.k == s.k && p.n == s.n, c_as_is = p.m == s.m && p.n == s.n;
    if (!a_as_is) {
      if (problem.layout == Layout::tn) copy_2d(a_.data(), p.m, problem.a, s.m, s.m, s.k, in, stream);
      else copy_2d(a_.data(), p.k, problem.a, s.k, s.k, s.m, in, stream);
      inner.a = a_.data();
    }
    if (!b_as_is) {
      if (problem.layout == Layout::nt) copy_2d(b_.data(), p.k, problem.b, s.k, s.k, s.n, in, stream);
      else copy_2d(b_.data(), p.n, problem.b, s.n, s.n, s.k, in, stream);
      inner.b = b_.data();
    }
    if (!c_as_is) {
      if (problem.beta != 0.0f) copy_2d(c_.data(), p.n, problem.c, s.n, s.n, s.m, out, stream);
      inner.c = c_.data();
    }
    launch(inner);
    if (!c_as_is) copy_2d(problem.c, s.n, c_.data(), p.n, s.n, s.m, out, stream);
  }
  // What the line above a shape's row says of its general path: the rule, and what is copied.
  static std::string said(const std::string& rule, const GemmShape& s, const GemmShape& p, float beta) {
    const bool c_padded = p.m != s.m || p.n != s.n;
    std::string names;
    auto add = [&](bool copies, const char* name) {
      if (copies) names += (names.empty() ? "" : ", ") + std::string(name);
    };
    add(p.m != s.m || p.k != s.k, "A");
    add(p.k != s.k || p.n != s.n, "B");
    add(c_padded && beta != 0.0f, "C");
    return "general path, as this step's kernels need: " + rule + ". " + names +
           " are copied into zero-padded buffers of " + shape_text(p) + (c_padded ? " and C back" : "") +
           ", and the copies are timed with the step";
  }

 private:
  // A rows x cols matrix of `bytes`-byte elements into the top left of a rows_to x cols_to one.
  static void copy_2d(void* to, int cols_to, const void* from, int cols_from, int cols, int rows, std::size_t bytes,
                      cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpy2DAsync(to, std::size_t(cols_to) * bytes, from, std::size_t(cols_from) * bytes,
                                 std::size_t(cols) * bytes, std::size_t(rows), cudaMemcpyDeviceToDevice, stream));
  }

  GemmShape shape_{0, 0, 0};
  DeviceBuffer<unsigned char> a_, b_, c_;
};

// What the two tensor-core kinds below share: the step and the options, the step's choice of
// tunables by shape, its kernel for the resource report, the types of the results file, and C as
// floats.
class TcKindBase {
 public:
  using Description = TcStepDescription;
  using Problem = TcProblem;

  int only_cc() const { return step_.only_cc; }
  ParamsForShape params_for_shape() const {
    if (!step_.params_for_shape) return {};
    return [this](const GemmShape& shape, const Params& defaults, int sms) {
      return step_.params_for_shape(shape, o_.layout, defaults, sms);
    };
  }
  std::function<const void*(const GemmShape&, const Params&)> kernel_of() const {
    if (!step_.kernel) return {};
    return [this](const GemmShape& s, const Params& params) {
      return step_.kernel(TcProblem{s, o_.alpha, o_.beta, o_.layout, o_.dtype, o_.out}, params);
    };
  }
  void on_device(const DeviceInfo&) {}
  const std::string& name() const { return step_.name; }
  std::vector<float> as_floats(const unsigned char* bytes, std::size_t count) const {
    return output_as_floats(bytes, count, o_.out);
  }
  static constexpr std::uint32_t guard_word = 0xa5a5a5a5;

 protected:
  TcKindBase(const TcStepDescription& step, const Options& options) : step_(step), o_(options) {}
  void describe_types(StepRun& run) const {
    run.dtype = to_string(o_.dtype);
    run.layout = to_string(o_.layout);
    run.out = to_string(o_.out);
  }

  const TcStepDescription& step_;
  const Options& o_;
};

// What a tensor-core step is to the runner (step_runner.cuh): f16/bf16 inputs in a layout, f32
// output or 16-bit output of the inputs' type, cublasGemmEx with the same types and layout as the yardstick, and a reference on the
// same rounded inputs.
class TcKind : public TcKindBase {
 public:
  TcKind(const TcStepDescription& step, const Options& options) : TcKindBase(step, options) {}

  static OptionSet option_set() {
    OptionSet set;
    set.tensor_core = true;
    return set;
  }
  // Every shape M, N, K >= 1 runs (shapes the kernels do not take: the general path below).
  void check_usage(const std::vector<GemmShape>&) const {
    if (o_.dtype == InputType::bf16 && o_.out == OutputType::f16)
      throw UsageError("--dtype bf16 with --out f16: cuBLAS has no bf16-in, f16-out GEMM to compare with; use --out f32 or --out bf16");
    if (o_.dtype == InputType::f16 && o_.out == OutputType::bf16)
      throw UsageError("--dtype f16 with --out bf16: cuBLAS has no f16-in, bf16-out GEMM to compare with; use --out f32 or --out f16");
  }
  // A shape the step's kernels do not take (shape_rule) runs the general path (remembered for the
  // last shape asked about: launch asks at every launch).
  bool staged(const GemmShape& s) const {
    if (s.m != asked_.m || s.n != asked_.n || s.k != asked_.k) {
      asked_ = s;
      asked_staged_ = !(step_.shape_rule ? step_.shape_rule(s, o_.layout) : tc_shape_rule(s, o_.layout)).empty();
    }
    return asked_staged_;
  }
  std::string path_of(const GemmShape& s) const {
    if (!staged(s)) return "";
    return PaddedCopies::said(step_.shape_rule ? step_.shape_rule(s, o_.layout) : tc_shape_rule(s, o_.layout), s,
                              padded(s), o_.beta);
  }
  // bf16 tensor-core instructions need compute capability 8.0.
  int min_cc() const { return o_.dtype == InputType::bf16 ? std::max(step_.min_cc, 80) : step_.min_cc; }
  std::string min_cc_reason() const {
    return o_.dtype == InputType::bf16 && step_.min_cc < 80 ? "bf16 tensor-core instructions" : "this step's instructions";
  }
  bool choose_params_for_gpu(Options& options, const cudaDeviceProp& prop) const {
    if (options.params_given || !step_.params_for_gpu) return false;
    const Params chosen = step_.params_for_gpu(options.params, int(prop.sharedMemPerBlockOptin));
    if (step_.check_params && !step_.check_params(chosen).empty())
      throw std::logic_error(step_.name + " chose tunables it cannot run for this GPU");
    const bool changed = chosen != options.params;
    options.params = chosen;
    return changed;
  }
  void check_fits(const GemmShape& s, std::size_t free_bytes, long long flush_bytes) const {
    const GemmShape p = staged(s) ? padded(s) : GemmShape{0, 0, 0};
    const std::size_t needed = in_bytes() * (elements(s.m, s.k) + elements(s.k, s.n)) +
                               (out_bytes(o_.out) * 2 + 4) * elements(s.m, s.n) + std::size_t(flush_bytes) +
                               in_bytes() * (elements(p.m, p.k) + elements(p.k, p.n)) + out_bytes(o_.out) * elements(p.m, p.n);
    if (needed > free_bytes)
      throw UsageError("shape " + shape_text(s) + " needs " + std::to_string(needed / 1000000) + " MB of device memory; " +
                       std::to_string(free_bytes / 1000000) + " MB are free: use smaller sizes");
  }

  std::string types_text() const {
    return std::string(to_string(o_.dtype)) + " in, f32 accumulate, " + to_string(o_.out) + " out, layout " +
           to_string(o_.layout);
  }
  void describe(StepRun& run) const {
    describe_types(run);
    run.cublas_label = cublas_label(o_);
  }

  StepInputs make_inputs(const GemmShape& s) const { return make_tc_inputs(s, o_); }
  Problem problem(const GemmShape& s, const unsigned char* a, const unsigned char* b, unsigned char* c) const {
    return {s, o_.alpha, o_.beta, o_.layout, o_.dtype, o_.out, a, b, c};
  }
  void launch(const Problem& problem, const Params& params, cudaStream_t stream) const {
    if (staged(problem.shape)) launch_staged(problem, params, stream);
    else step_.launch(problem, params, stream);
  }
  void cublas(cublasHandle_t handle, const Problem& theirs) const { cublas_gemm_ex(handle, theirs, theirs.out, theirs.c); }
  // cuBLAS on the same device inputs, f32 output; its C starts as the (rounded) input C.
  std::vector<float> gpu_reference(cublasHandle_t handle, const Problem& ours, const Problem&, const StepInputs& in,
                                   cudaStream_t stream) const {
    const std::size_t count = in.c.size();
    DeviceBuffer<float> reference_c(count);
    reference_c.upload(in.c);
    cublas_gemm_ex(handle, ours, OutputType::f32, reference_c.data());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> reference(count);
    reference_c.download(reference.data(), count, 0);
    return reference;
  }
  void time_references(ShapeResult&, LaunchTimer&, int, cublasHandle_t, const Problem&) const {}

  Tolerance tolerance() const {
    return o_.out == OutputType::f16 ? kF16OutTolerance : o_.out == OutputType::bf16 ? kBf16OutTolerance : kF32OutTolerance;
  }
  static constexpr const char* cpu_reference = "cpu-fp64 on the rounded inputs";
  static constexpr const char* gpu_reference_label = "cublas-gemmex-f32-out";

 private:
  // The general path. Every extent is rounded up to a multiple of 8, which every tensor-core
  // step's kernels take in every layout (K for the k-steps, the stored rows for 16-byte copies and
  // tensor maps); PaddedCopies runs the step on the padded problem.
  static int round_up_8(int x) { return (x + 7) / 8 * 8; }
  static GemmShape padded(const GemmShape& s) { return {round_up_8(s.m), round_up_8(s.n), round_up_8(s.k)}; }
  void launch_staged(const Problem& problem, const Params& params, cudaStream_t stream) const {
    copies_.run(problem, padded(problem.shape), in_bytes(), out_bytes(o_.out), stream,
                [&](const Problem& inner) { step_.launch(inner, params, stream); });
  }

  mutable PaddedCopies copies_;
  mutable GemmShape asked_{0, 0, 0};
  mutable bool asked_staged_ = false;
};

// --- The FP8 step ---------------------------------------------------------------------------------

// FP8 inputs (e4m3, or e5m2 for A), f32 accumulation. With f32 output the products are exact and
// the error is the accumulation's: the tensor cores add FP8 products into their sum with fewer bits
// than f32, which promotion into f32 registers bounds (step 19's page measures it against K). 16-bit
// outputs add their rounding, as for the other tensor-core steps.
constexpr Tolerance kFp8F32OutTolerance{1e-3, 1e-2};

Fp8Type a_fp8_type(InputType t) { return t == InputType::e5m2 ? Fp8Type::e5m2 : Fp8Type::e4m3; }
constexpr Fp8Type kBFp8Type = Fp8Type::e4m3;  // B is e4m3 in both of the step's type pairs

// A rows x cols row-major matrix quantised to FP8 with a per-tensor scale: amax / the type's
// largest finite value, so that the largest magnitude lands on the largest FP8 value. `logical`
// becomes the dequantised values (FP8 value times scale: what the GPU's result stands for),
// `stored` the FP8 bytes, as they are or transposed (cols x rows). Returns the scale.
float quantize(std::vector<float>& logical, std::vector<unsigned char>& stored, int rows, int cols, bool transposed,
               Fp8Type type) {
  float amax = 0.0f;
  for (float v : logical) amax = std::max(amax, std::fabs(v));
  const float scale = amax > 0.0f ? amax / fp8_max(type) : 1.0f;
  stored.resize(logical.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const std::size_t at = elements(r, cols) + std::size_t(c);
      const std::uint8_t bits = to_fp8(logical[at] / scale, type);
      logical[at] = from_fp8(bits, type) * scale;
      stored[transposed ? elements(c, rows) + std::size_t(r) : at] = bits;
    }
  return scale;
}

// What the FP8 step is to the runner: FP8 inputs with per-tensor scales in the one layout FP8
// wgmma reads (NT: A stored M x K, B stored N x K), output f32, f16 or bf16; cuBLASLt with the
// same types, scales, output and layout as the yardstick (fast accumulation off), and with fast
// accumulation on as a reference line; a reference on the same FP8 inputs.
class Fp8Kind : public TcKindBase {
 public:
  Fp8Kind(const TcStepDescription& step, const Options& options) : TcKindBase(step, options) {}

  static OptionSet option_set() {
    OptionSet set;
    set.tensor_core = true;
    set.fp8 = true;
    return set;
  }
  void check_usage(const std::vector<GemmShape>&) const {
    if (o_.layout != Layout::nt)
      throw UsageError(std::string("--layout ") + to_string(o_.layout) +
                       ": FP8 wgmma reads A and B only K-major (it has no transpose for 1-byte types), as cuBLASLt's "
                       "FP8 GEMM does; store A as M x K and B as N x K and use --layout nt");
  }
  // The kernels' rule: the copy engine needs every stored row of A and B (K bytes) on 16 bytes
  // (the layout, NT, is check_usage's; the viewer draws by the same rule: fp8_shape_rule).
  static std::string shape_rule(const GemmShape& s) { return fp8_shape_rule(s, Layout::nt); }
  static int round_up_16(int x) { return (x + 15) / 16 * 16; }
  static GemmShape padded(const GemmShape& s) { return {s.m, s.n, round_up_16(s.k)}; }
  // cuBLASLt's FP8 GEMM needs 16-byte rows as well: A's and B's (K bytes) and C's (N elements of
  // the output type). M, and N beyond that, may be anything.
  static GemmShape cublaslt_shape(const GemmShape& s, OutputType out) {
    const int per_row = 16 / out_bytes(out);
    return {s.m, (s.n + per_row - 1) / per_row * per_row, round_up_16(s.k)};
  }
  std::string path_of(const GemmShape& s) const {
    const std::string rule = shape_rule(s);
    return rule.empty() ? "" : PaddedCopies::said(rule, s, padded(s), o_.beta);
  }
  int min_cc() const { return step_.min_cc; }
  std::string min_cc_reason() const { return "this step's instructions"; }
  bool choose_params_for_gpu(Options&, const cudaDeviceProp&) const { return false; }
  void check_fits(const GemmShape& s, std::size_t free_bytes, long long flush_bytes) const {
    const GemmShape p = padded(s);
    const std::size_t needed = 2 * (elements(s.m, s.k) + elements(s.k, s.n)) +  // the inputs, and padded copies
                               (out_bytes(o_.out) * 4 + 4) * elements(s.m, s.n) + std::size_t(flush_bytes) +
                               2 * (elements(p.m, p.k) + elements(p.k, p.n)) + CublasLtHandle::kWorkspaceBytes;
    if (needed > free_bytes)
      throw UsageError("shape " + shape_text(s) + " needs " + std::to_string(needed / 1000000) + " MB of device memory; " +
                       std::to_string(free_bytes / 1000000) + " MB are free: use smaller sizes");
  }

  std::string types_text() const {
    return std::string("A ") + to_string(a_fp8_type(o_.dtype)) + ", B " + to_string(kBFp8Type) +
           " (per-tensor scales), f32 accumulate, " + to_string(o_.out) + " out, layout " + to_string(o_.layout);
  }
  void describe(StepRun& run) const {
    describe_types(run);
    Fp8Gemm g;
    g.a_type = a_fp8_type(o_.dtype);
    g.b_type = kBFp8Type;
    g.out = o_.out;
    run.cublas_label = cublaslt_fp8_label(g);
    g.fast_accum = true;
    if (!o_.check_only) run.cublas_fast_accum_label = cublaslt_fp8_label(g);
  }

  // Seeded as every step's inputs, then quantised with per-tensor scales (A M x K, B stored N x K).
  StepInputs make_inputs(const GemmShape& s) const {
    StepInputs in = runner::seeded_inputs(s, o_.seed);
    scales_[0] = quantize(in.a, in.a_stored, s.m, s.k, false, a_fp8_type(o_.dtype));
    scales_[1] = quantize(in.b, in.b_stored, s.k, s.n, true, kBFp8Type);
    round_and_store_c(in, o_.out);
    if (device_scales_.bytes() == 0) device_scales_ = DeviceBuffer<float>(2 * kScaleSlot);  // not before the GPU is chosen
    device_scales_.upload(&scales_[0], 1, 0);
    device_scales_.upload(&scales_[1], 1, kScaleSlot);
    return in;
  }
  Problem problem(const GemmShape& s, const unsigned char* a, const unsigned char* b, unsigned char* c) const {
    Problem p{s, o_.alpha, o_.beta, o_.layout, o_.dtype, o_.out, a, b, c};
    p.scale_a = device_scales_.data();
    p.scale_b = device_scales_.data() + kScaleSlot;
    return p;
  }
  void launch(const Problem& problem, const Params& params, cudaStream_t stream) const {
    if (shape_rule(problem.shape).empty()) {
      step_.launch(problem, params, stream);
      return;
    }
    copies_.run(problem, padded(problem.shape), 1, out_bytes(o_.out), stream,
                [&](const Problem& inner) { step_.launch(inner, params, stream); });
  }
  // Where a shape's rows are not all on 16 bytes (cublaslt_shape), cuBLASLt runs on padded copies
  // as well, timed with them.
  void cublas(cublasHandle_t handle, const Problem& theirs) const { cublaslt(handle, theirs, false); }
  // The reference for shapes above the CPU's: cublasGemmEx on f16 copies of the FP8 values (every
  // e4m3 and e5m2 value is an f16 value), f32 accumulation and output, the scales in alpha.
  std::vector<float> gpu_reference(cublasHandle_t handle, const Problem& ours, const Problem&, const StepInputs& in,
                                   cudaStream_t stream) const {
    const GemmShape& s = ours.shape;
    auto as_f16 = [](const std::vector<unsigned char>& fp8, Fp8Type type) {
      std::vector<std::uint16_t> bits(fp8.size());
      for (std::size_t i = 0; i < fp8.size(); ++i) bits[i] = to_16bit(from_fp8(fp8[i], type), InputType::f16);
      return bits;
    };
    DeviceBuffer<std::uint16_t> a(elements(s.m, s.k)), b(elements(s.n, s.k));
    a.upload(as_f16(in.a_stored, a_fp8_type(o_.dtype)));
    b.upload(as_f16(in.b_stored, kBFp8Type));
    DeviceBuffer<float> reference_c(in.c.size());
    reference_c.upload(in.c);
    const TcProblem f16{s, o_.alpha * scales_[0] * scales_[1], o_.beta, Layout::nt, InputType::f16, OutputType::f32,
                        a.data(), b.data(), reference_c.data()};
    cublas_gemm_ex(handle, f16, OutputType::f32, reference_c.data());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> reference(in.c.size());
    reference_c.download(reference.data(), reference.size(), 0);
    return reference;
  }
  // cuBLASLt's own error against the same reference as the step's, with fast accumulation off and
  // on: the accuracy the yardstick buys with its time (tools/fp8_accuracy.py, step 19's page).
  static constexpr bool kChecksYardsticks = true;
  template <typename ErrorOf>
  void check_yardsticks(ShapeResult& result, cublasHandle_t handle, const Problem& theirs, const StepInputs& in,
                        const ErrorOf& error_of) const {
    std::vector<unsigned char> bytes(in.c_stored.size());
    for (bool fast_accum : {false, true}) {
      CUDA_CHECK(cudaMemcpy(theirs.c, in.c_stored.data(), bytes.size(), cudaMemcpyHostToDevice));  // beta reads C
      cublaslt(handle, theirs, fast_accum);
      CUDA_CHECK(cudaStreamSynchronize(lt_->stream()));
      CUDA_CHECK(cudaMemcpy(bytes.data(), theirs.c, bytes.size(), cudaMemcpyDeviceToHost));
      const std::vector<float> values = output_as_floats(bytes.data(), in.c.size(), o_.out);
      (fast_accum ? result.cublas_fast_accum_error : result.cublas_error) = error_of(values.data()).relative_frobenius;
    }
  }
  void time_references(ShapeResult& result, LaunchTimer& timer, int warmup, cublasHandle_t handle,
                       const Problem& theirs) const {
    result.cublas_fast_accum = time_reference(timer, warmup, result.ours.reps, [&] { cublaslt(handle, theirs, true); });
  }

  Tolerance tolerance() const {
    return o_.out == OutputType::f16 ? kF16OutTolerance : o_.out == OutputType::bf16 ? kBf16OutTolerance : kFp8F32OutTolerance;
  }
  static constexpr const char* cpu_reference = "cpu-fp64 on the FP8 inputs";
  static constexpr const char* gpu_reference_label = "cublas-gemmex-f16-copies-f32-out";

 private:
  void cublaslt(cublasHandle_t handle, const Problem& p, bool fast_accum) const {
    if (!lt_) {
      cudaStream_t stream = nullptr;
      CUBLAS_CHECK(cublasGetStream(handle, &stream));
      lt_ = std::make_unique<CublasLtHandle>(stream);
    }
    const GemmShape& s = p.shape;
    const GemmShape whole = cublaslt_shape(s, o_.out);
    auto run = [&](const Problem& q) {
      Fp8Gemm g;
      g.m = q.shape.m, g.n = q.shape.n, g.k = q.shape.k;
      g.a_type = a_fp8_type(q.dtype);
      g.b_type = kBFp8Type;
      g.out = q.out;
      g.alpha = q.alpha, g.beta = q.beta;
      g.a = q.a, g.b = q.b, g.c = q.c;
      g.scale_a = q.scale_a, g.scale_b = q.scale_b;
      g.fast_accum = fast_accum;
      cublaslt_fp8_gemm(*lt_, g, lt_->stream());
    };
    if (whole.m == s.m && whole.n == s.n && whole.k == s.k) run(p);
    else cublas_copies_.run(p, whole, 1, out_bytes(o_.out), lt_->stream(), run);
  }

  mutable float scales_[2] = {1.0f, 1.0f};  // A's and B's, of the current shape
  // On the device each scale has 256 bytes of its own: cuBLASLt refuses a scale pointer that is
  // only 4-byte aligned (CUBLAS_STATUS_NOT_SUPPORTED, cuBLAS 13.1 on the H100).
  static constexpr std::size_t kScaleSlot = 64;
  mutable DeviceBuffer<float> device_scales_;
  mutable PaddedCopies copies_, cublas_copies_;
  mutable std::unique_ptr<CublasLtHandle> lt_;
};

}  // namespace

std::uint16_t to_16bit(float value, InputType type) {
  return type == InputType::bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(value)) : __half_as_ushort(__float2half_rn(value));
}
float from_16bit(std::uint16_t bits, InputType type) {
  return type == InputType::bf16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
}

int run_tc_step(int argc, char** argv, const TcStepDescription& step) {
  return run_program(step.name, [&] { return runner::run<TcKind>(argc, argv, step); });
}

int run_fp8_step(int argc, char** argv, const TcStepDescription& step) {
  return run_program(step.name, [&] { return runner::run<Fp8Kind>(argc, argv, step); });
}

}  // namespace gemm
