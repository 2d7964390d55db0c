#include "gemm_types.hpp"

namespace gemm {

const char* to_string(Layout layout) {
  switch (layout) {
    case Layout::nn: return "nn";
    case Layout::nt: return "nt";
    case Layout::tn: return "tn";
  }
  return "?";
}
std::string tc_shape_rule(const GemmShape& s, Layout) {
  // M and N may be anything: rows whose length is not a multiple of 8 are copied element by element.
  // (A shape that breaks a rule runs the general path: run_tc_step.cu.)
  if (s.k % 8 != 0) return "K must be a multiple of 8 (the tensor-core steps' copies read K in 16-byte runs)";
  return "";
}

std::string tc_aligned_rows_rule(const GemmShape& s, Layout layout) {
  const std::string k_rule = tc_shape_rule(s, layout);
  if (!k_rule.empty()) return k_rule;
  const char* why = " (rows are copied in 16-byte chunks, so each stored row must start on 16 bytes)";
  if (layout == Layout::tn && s.m % 8 != 0)
    return std::string("layout tn stores A as K x M: M must be a multiple of 8") + why;
  if (layout != Layout::nt && s.n % 8 != 0)
    return std::string("layout ") + to_string(layout) + " stores B as K x N: N must be a multiple of 8" + why;
  return "";
}

std::string fp8_shape_rule(const GemmShape& s, Layout layout) {
  if (layout != Layout::nt)
    return std::string("layout ") + to_string(layout) +
           ": FP8 wgmma reads A and B only K-major (it has no transpose for 1-byte types); the FP8 step takes layout "
           "nt (A stored M x K, B stored N x K)";
  if (s.k % 16 != 0) return "K must be a multiple of 16 (every stored row of A and B, K bytes, starts on 16 bytes)";
  return "";
}

const char* to_string(InputType type) {
  switch (type) {
    case InputType::f32: return "f32";
    case InputType::f16: return "f16";
    case InputType::bf16: return "bf16";
    case InputType::e4m3: return "e4m3";
    case InputType::e5m2: return "e5m2";
  }
  return "?";
}
const char* to_string(OutputType type) {
  switch (type) {
    case OutputType::f32: return "f32";
    case OutputType::f16: return "f16";
    case OutputType::bf16: return "bf16";
  }
  return "?";
}

}  // namespace gemm
