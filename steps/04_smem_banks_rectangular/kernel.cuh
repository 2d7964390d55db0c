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
  namespace demo = gemm::bank_demo;
  constexpr Variant v = kVariants[kVariant];
  constexpr demo::TileShape tile_shape = kTile;  // a device-side copy of the host constant
  static_assert(demo::orders_share_one_array(v), "a column-major variant stores and loads column-major");
  const int tx = threadIdx.x, ty = threadIdx.y;
  // The cells this thread stores to and loads from (mapping: common/host/bank_demo.hpp), with W x H
  // the tile (kTile): in the row order tile[ty][tx], in the column order tile[tx][ty] (the array is
  // then tile[W][H]), in the transposed order tile[idx % H][idx / H] with idx = ty * W + tx.
  const demo::Cell store = demo::cell(tile_shape, v.store, tx, ty);
  const demo::Cell load = demo::cell(tile_shape, v.load, tx, ty);
  // The word of tile[row][col]: row * (row length + pad) + col. Also the stored value's identity.
  const int store_word = demo::word_index(tile_shape, v, store);
  int sum = 0;
  if constexpr (!v.dynamic) {
    // Static: a 2-D array whose shape is part of the kernel; tile[row][col] compiles to the word
    // row * row_stride + col, the same word the dynamic variant computes below.
    __shared__ int tile[demo::array_rows(tile_shape, v)][demo::row_stride(tile_shape, v)];
    for (int r = 0; r < demo::kRepeats; ++r) {
      tile[store.row][store.col] = demo::stored_value(store_word, r);
      __syncthreads();
      sum += tile[load.row][load.col];
      __syncthreads();  // the next repetition overwrites the tile
    }
  } else {
    // Dynamic: a flat array whose size comes with the launch (launch_shape's shared_bytes); the
    // kernel computes the word itself. Same words, same banks: only the declaration differs.
    extern __shared__ int tile[];
    const int load_word = demo::word_index(tile_shape, v, load);
    for (int r = 0; r < demo::kRepeats; ++r) {
      tile[store_word] = demo::stored_value(store_word, r);
      __syncthreads();
      sum += tile[load_word];
      __syncthreads();  // the next repetition overwrites the tile
    }
  }
  out[demo::output_index(tile_shape, blockIdx.x, tx, ty)] = sum;  // out[(blockIdx.x * H + ty) * W + tx]
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
