// The host side every tensor-core step shares: picking the compiled kernel instance for a run's
// configuration, layout, input type and output type, and letting a kernel use more than 48 KB of
// dynamic shared memory.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <map>
#include <type_traits>

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "gemm_types.hpp"

namespace gemm {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(config, layout, input, output) with compile-time values: std::integral_constant for the
// configuration index (< kConfigCount) and the layout, TypeTag for the input type (__half,
// __nv_bfloat16) and the output type (float, or the input type: f16 in -> f16 out, bf16 in -> bf16
// out). A 16-bit output of the other type has no cuBLAS counterpart and is refused before any
// launch, so it is not instantiated (f32 output stands in).
template <int kConfigCount, typename F>
void dispatch_tc_kernel(int config, Layout layout, InputType dtype, OutputType out, F&& f) {
  dispatch_index<kConfigCount>(config, [&](auto config_constant) {
    auto with_in = [&](auto in_tag) {
      using In = typename decltype(in_tag)::type;
      auto with_out = [&](auto out_tag) {
        switch (layout) {
          case Layout::nn: f(config_constant, std::integral_constant<Layout, Layout::nn>{}, in_tag, out_tag); break;
          case Layout::nt: f(config_constant, std::integral_constant<Layout, Layout::nt>{}, in_tag, out_tag); break;
          case Layout::tn: f(config_constant, std::integral_constant<Layout, Layout::tn>{}, in_tag, out_tag); break;
        }
      };
      if (out == OutputType::f32) with_out(TypeTag<float>{});
      else with_out(TypeTag<In>{});
    };
    if (dtype == InputType::bf16) with_in(TypeTag<__nv_bfloat16>{});
    else with_in(TypeTag<__half>{});
  });
}

// Allows `function` `bytes` of dynamic shared memory (above 48 KB a kernel must opt in); once per
// kernel, not in front of every timed launch.
inline void allow_dynamic_shared(const void* function, int bytes) {
  static std::map<const void*, int> allowed;
  int& current = allowed[function];
  if (current < bytes) {
    CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    current = bytes;
  }
}

}  // namespace gemm
