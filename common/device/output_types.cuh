// The types a tensor-core kernel writes C in: f32, or the 16-bit type of its inputs (f16 or bf16),
// rounded to nearest from the f32 accumulators. One definition for every step: the conversions,
// and two neighbouring 16-bit elements as one 32-bit word (what the vector stores move).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gemm {

template <typename Out>
__device__ __forceinline__ float out_to_float(Out v) {
  if constexpr (std::is_same_v<Out, float>) return v;
  else if constexpr (std::is_same_v<Out, __half>) return __half2float(v);
  else return __bfloat162float(v);
}
template <typename Out>
__device__ __forceinline__ Out float_to_out(float v) {
  if constexpr (std::is_same_v<Out, float>) return v;
  else if constexpr (std::is_same_v<Out, __half>) return __float2half_rn(v);
  else return __float2bfloat16_rn(v);
}

// Two neighbouring 16-bit elements of C (the lower address in the low half) in one 32-bit word.
template <typename Out>
__device__ __forceinline__ std::uint32_t pack_pair(float first, float second) {
  static_assert(sizeof(Out) == 2, "pairs are of 16-bit outputs");
  if constexpr (std::is_same_v<Out, __half>) {
    const __half2 pair = __floats2half2_rn(first, second);
    return *reinterpret_cast<const std::uint32_t*>(&pair);
  } else {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(first, second);
    return *reinterpret_cast<const std::uint32_t*>(&pair);
  }
}
template <typename Out>
__device__ __forceinline__ float2 unpack_pair(std::uint32_t word) {
  static_assert(sizeof(Out) == 2, "pairs are of 16-bit outputs");
  if constexpr (std::is_same_v<Out, __half>) return __half22float2(*reinterpret_cast<const __half2*>(&word));
  else return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&word));
}

}  // namespace gemm
