// The vocabulary of a GEMM problem, below the command line and the runners: how A and B are stored,
// the element types, a step's tunables, the shape rules of the tensor-core steps, and the problem a
// step's launch receives (fp32 or tensor-core). Plain C++: the mappings, the traces, cuBLAS's
// reference and the options all include it (docs/design.md, "Layers").
#pragma once

#include <map>
#include <string>

#include "hd.hpp"

namespace gemm {

// How A and B are stored (row-major). nn: A is M x K, B is K x N; nt: B is stored N x K (B
// transposed); tn: A is stored K x M. C is always M x N.
enum class Layout { nn, nt, tn };
// e4m3: A and B in FP8 e4m3; e5m2: A in e5m2 (as a gradient is), B in e4m3 (the FP8 step).
enum class InputType { f32, f16, bf16, e4m3, e5m2 };
// The compute capability the tensor cores' bf16 instructions (wmma, mma.sync) need: 8.0, whatever
// a tensor-core step needs for f16 (docs/your-gpu.md).
constexpr int kBf16MinCc = 80;
enum class OutputType { f32, f16, bf16 };

// Bytes of one element of C.
inline int output_bytes(OutputType out) { return out == OutputType::f32 ? 4 : 2; }

const char* to_string(Layout layout);
const char* to_string(InputType type);
const char* to_string(OutputType type);

// A step's tunables by name (--param KEY=VALUE), every declared one present.
using Params = std::map<std::string, int>;

// A tunable as the command line and --help see it; `--param key=value` sets it. A step builds its
// list from its table of tunables (tunables.hpp, param_specs).
struct ParamSpec {
  std::string name;
  int default_value = 0;
  std::string help;
};

// The shapes the tensor-core steps' kernels take: "" or the rule a shape breaks (K a multiple of
// 8). The programs run every shape: one that breaks the rule runs the general path (padded copies,
// run_tc_step.cu); the viewer draws only the kernels' own shapes.
std::string tc_shape_rule(const GemmShape& shape, Layout layout);
// The stricter rule of steps that copy whole 16-byte chunks of the stored rows (cp.async, TMA): K
// a multiple of 8 and every stored row (leading dimension) a multiple of 8 elements, so that each
// row starts on 16 bytes. Which of M and N are stored row lengths depends on the layout: N for B in
// NN and TN, M for A in TN; in NT neither, so any M and N.
std::string tc_aligned_rows_rule(const GemmShape& shape, Layout layout);
// The FP8 step's (19): layout NT only (FP8 wgmma reads A and B only K-major), and K a multiple of
// 16, so that every stored row of A and B (K bytes) starts on 16 bytes. The program refuses another
// layout (a usage error) and runs a K that breaks the rule on the general path; the viewer draws
// only the kernels' own shapes.
std::string fp8_shape_rule(const GemmShape& shape, Layout layout);

// C = alpha * A * B + beta * C, row-major, A is M x K, B is K x N, C is M x N (leading dimensions
// K, N, N). With beta == 0, C is not read (BLAS convention: it may hold NaN).
struct Fp32Problem {
  GemmShape shape;
  float alpha = 1, beta = 0;
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
};

// C = alpha * A * B + beta * C, row-major, A and B of `dtype` stored as `layout` says, C of `out`
// (M x N). Leading dimensions are the stored row lengths (K or M for A, N or K for B, N for C).
// FP8 inputs come with per-tensor scales (device pointers to one float each): C = alpha * scale_a *
// scale_b * A * B + beta * C, A and B as stored.
struct TcProblem {
  GemmShape shape;
  float alpha = 1, beta = 0;
  Layout layout = Layout::nn;
  InputType dtype = InputType::f16;
  OutputType out = OutputType::f32;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const float* scale_a = nullptr;  // nullptr: 1
  const float* scale_b = nullptr;
};

}  // namespace gemm
