// Host side of the Hopper steps: tensor maps, which describe a matrix to TMA (the Tensor Memory
// Accelerator), and launches of blocks in clusters. Built once per buffer, shape and type; the steps
// link the runtime only (the driver's cuTensorMapEncodeTiled is found through the runtime).
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <map>
#include <string>
#include <tuple>
#include <type_traits>

#include "cuda_check.cuh"
#include "gemm_types.hpp"
#include "gpu.cuh"
#include "hd.hpp"
#include "options.hpp"

namespace gemm {

// cuTensorMapEncodeTiled is a driver function; the runtime hands out its address.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || function == nullptr)
      throw CudaError("cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled): not found; the driver is too "
                      "old for this step (CUDA 12.0 or newer is needed)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encode;
}

// A tensor map: a row-major matrix of `rows` x `row_length` elements cut into boxes of
// box_cols x box_rows, 128-byte swizzle, zeros read outside (and writes outside dropped). Built
// once per buffer, shape and type.
//
// L2 promotion: how much L2 fetches from DRAM for a copy's miss. A box row is 128 bytes, one line
// where the matrix's rows are whole lines; where they are not (a row length not a multiple of 64
// elements) each box row straddles two lines, and promoting every miss to 256 bytes fetches up to
// twice that again. 128 bytes measured as fast as 256 at 4096^3 and 8192^3, and far faster where
// rows straddle lines (TN at 4088 x 4104 x 4096, about an eighth; docs/performance-log.md, old
// step 13, version 11).
constexpr CUtensorMapL2promotion kL2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
// A box's rows are at most the swizzle's span: 128 bytes, or 32 for the 32-byte swizzle of a box of
// 16 columns of 16-bit elements (step 26: an N-major B's last 16 columns).
inline CUtensorMap tensor_map(const void* matrix, CUtensorMapDataType type, int element_bytes, int row_length, int rows,
                              int box_cols, int box_rows, CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
  using Key = std::tuple<const void*, int, int, int, int, int, int>;
  static std::map<Key, CUtensorMap> made;
  const Key key{matrix, int(type), row_length, rows, box_cols, box_rows, int(swizzle)};
  const auto found = made.find(key);
  if (found != made.end()) return found->second;
  CUtensorMap map{};
  const cuuint64_t extent[2] = {cuuint64_t(row_length), cuuint64_t(rows)};
  const cuuint64_t row_bytes[1] = {cuuint64_t(row_length) * cuuint64_t(element_bytes)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t element_step[2] = {1, 1};
  const CUresult result = tensor_map_encoder()(&map, type, 2, const_cast<void*>(matrix), extent, row_bytes, box, element_step,
                                               CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                               kL2Promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw CudaError("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(result)) + ") for a " +
                    std::to_string(rows) + " x " + std::to_string(row_length) + " matrix");
  made.emplace(key, map);
  return map;
}
// The tensor-map element type of a kernel's output type (float, __half, __nv_bfloat16).
template <typename Out>
constexpr CUtensorMapDataType tensor_map_type() {
  if constexpr (std::is_same_v<Out, float>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  else if constexpr (std::is_same_v<Out, __half>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}
// An f16 or bf16 operand.
inline CUtensorMap input_map(const void* matrix, InputType dtype, int row_length, int rows, int box_cols, int box_rows,
                             CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
  return tensor_map(matrix, dtype == InputType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                    2, row_length, rows, box_cols, box_rows, swizzle);
}

// A launch of `shape` with its blocks in clusters of `cluster` along x (a launch attribute: the
// kernel is the same either way; 1: no clusters).
struct ClusterLaunch {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute attribute{};
  ClusterLaunch(const LaunchShape& shape, int cluster, cudaStream_t stream) {
    config.gridDim = to_dim3(shape.grid);
    config.blockDim = to_dim3(shape.block);
    config.dynamicSmemBytes = size_t(shape.shared_bytes);
    config.stream = stream;
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = unsigned(cluster);
    attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = cluster > 1 ? 1 : 0;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;  // config.attrs points into this object
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// The blocks of `kernel` in clusters of `cluster` that can run at once on the current GPU (a
// persistent grid must not exceed it: a block that waits for another to finish would double the
// time): as many whole clusters as the GPCs hold (a cluster's blocks run on SMs of one GPC, so a
// GPC with an odd number of SMs leaves one idle). `shape` is any launch of the kernel (its block
// and shared memory are what count). `key` names the kernel's configuration for the cache.
inline int resident_blocks_in_clusters(const void* kernel, const LaunchShape& shape, int cluster, int key) {
  const int sms = current_gpu().sms;
  if (cluster == 1) return sms;
  static std::map<std::pair<int, int>, int> known;  // per configuration and SM count
  const std::pair<int, int> index{key, sms};
  if (const auto found = known.find(index); found != known.end()) return found->second;
  const ClusterLaunch launch(shape, cluster, nullptr);
  int clusters = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config));
  if (clusters < 1)
    throw UsageError("this GPU cannot run these blocks in clusters of " + std::to_string(cluster) +
                     ": use --param CLUSTER=1");
  return known[index] = clusters * cluster;
}

}  // namespace gemm
