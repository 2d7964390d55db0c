// Step 04: a block stores a 32-wide x 16-high tile of ints to shared memory and loads it back, in the order
// the variant says. Bank conflicts show up as wavefronts (Nsight Compute) and as time.
#pragma once

#include <utility>

#include "bank_demo.hpp"
#include "cuda_check.cuh"
#include "mapping.hpp"

namespace step04 {

template <int kVariant>
__global__ void bank_demo_kernel(int* __restrict__ out) {
  constexpr Variant v = kVariants[kVariant];
  constexpr gemm::bank_demo::TileShape tile_shape = kTile;  // a device-side copy of the host constant
  // Static: the size is part of the kernel. Dynamic: the size comes with the launch. The addresses
  // and the banks they hit are the same; only the declaration differs.
  __shared__ int static_tile[v.dynamic ? 1 : gemm::bank_demo::tile_words(tile_shape, v)];
  extern __shared__ int dynamic_tile[];
  int* tile = v.dynamic ? dynamic_tile : static_tile;

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int store_word = gemm::bank_demo::word_index(tile_shape, v, v.store, tx, ty);
  const int load_word = gemm::bank_demo::word_index(tile_shape, v, v.load, tx, ty);
  int sum = 0;
  for (int r = 0; r < gemm::bank_demo::kRepeats; ++r) {
    tile[store_word] = gemm::bank_demo::stored_value(store_word, r);
    __syncthreads();
    sum += tile[load_word];
    __syncthreads();  // the next repetition overwrites the tile
  }
  out[gemm::bank_demo::output_index(tile_shape, blockIdx.x, tx, ty)] = sum;
}

template <int... kIndex>
void launch_variant(int index, int* out, cudaStream_t stream, std::integer_sequence<int, kIndex...>) {
  const auto launch_one = [&](auto variant) {
    constexpr int kVariant = decltype(variant)::value;
    const gemm::LaunchShape shape = gemm::bank_demo::launch_shape(kTile, kVariants[kVariant]);
    bank_demo_kernel<kVariant><<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), size_t(shape.shared_bytes),
                                 stream>>>(out);
  };
  ((index == kIndex ? launch_one(std::integral_constant<int, kIndex>{}) : void()), ...);
  CUDA_CHECK_LAUNCH("bank_demo_kernel<<<...>>>");
}

inline void launch(int index, int* out, cudaStream_t stream) {
  launch_variant(index, out, stream, std::make_integer_sequence<int, kVariantCount>{});
}

}  // namespace step04
