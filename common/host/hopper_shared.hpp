// What the Hopper hardware does with shared-memory addresses, written once for the host tests and
// the viewer (plain C++): the 128-byte swizzle that the Tensor Memory Accelerator (TMA) applies to
// a box it writes and wgmma applies to the addresses it reads; where element (inner, outer) of a
// TMA box lands; and the fields of a wgmma matrix descriptor and the byte it names for element
// (mn, k) of the operand.
//
// The descriptor: PTX ISA, "Matrix Descriptor Format"
// (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor):
// bits 0-13 the start address, 16-29 the leading dimension byte offset (LBO), 32-45 the stride
// dimension byte offset (SBO), each >> 4; bits 49-51 the matrix base offset (0 for the canonical
// layouts); bits 62-63 the swizzle mode (0 none, 1 128 bytes, 2 64 bytes, 3 32 bytes).
// The operand is read in core matrices of 8 rows of 16 bytes. With the 128-byte swizzle (the only
// mode the steps use) the canonical layouts, for elements of E bytes and R = 128 / E to a row, are
// (CUTLASS's GMMA layouts, include/cute/atom/mma_traits_sm90_gmma.hpp):
//   K-major:  rows of 128 bytes along k; element (mn, k) at start + (mn % 8) 128 + (mn / 8) SBO + k E
//             (LBO unused: a k-step's 32 bytes lie in one row);
//   MN-major: rows of 128 bytes along m or n; element (mn, k) at
//             start + (mn % R) E + (mn / R) LBO + (k % 8) 128 + (k / 8) SBO;
// then swizzled: the 16-byte chunk (address bits 4-6) XOR the row within its 1024-byte period
// (bits 7-9), which TMA's CU_TENSOR_MAP_SWIZZLE_128B writes the same way.
#pragma once

#include <cstdint>

namespace gemm::hopper {

constexpr int kSwizzleSpan = 128;     // bytes of one swizzled row
constexpr int kSwizzlePeriod = 1024;  // 8 rows: the swizzle repeats; TMA boxes start on it
constexpr int kCoreRows = 8;          // a core matrix: 8 rows ...
constexpr int kCoreBytes = 16;        // ... of 16 bytes

// The 128-byte swizzle of a shared-memory byte address (CUTLASS's Swizzle<3, 4, 3>).
constexpr unsigned swizzle_128b(unsigned address) { return address ^ (((address >> 7) & 7u) << 4); }

// Where TMA writes element (inner, outer) of a box whose rows are 128 bytes (inner * element_bytes
// < 128) with the 128-byte swizzle, the box starting at byte `box_base` (a multiple of 1024).
constexpr unsigned tma_landing_byte(unsigned box_base, int inner, int outer, int element_bytes) {
  return swizzle_128b(box_base + unsigned(outer) * kSwizzleSpan + unsigned(inner) * unsigned(element_bytes));
}

enum class Swizzle { none = 0, bytes128 = 1, bytes64 = 2, bytes32 = 3 };

// A wgmma matrix descriptor's fields, in bytes.
struct MatrixDescriptor {
  unsigned start = 0, leading = 0, stride = 0;
  int base_offset = 0;
  Swizzle swizzle = Swizzle::none;
};
constexpr MatrixDescriptor decode_descriptor(std::uint64_t d) {
  MatrixDescriptor m;
  m.start = unsigned(d & 0x3fff) << 4;
  m.leading = unsigned((d >> 16) & 0x3fff) << 4;
  m.stride = unsigned((d >> 32) & 0x3fff) << 4;
  m.base_offset = int((d >> 49) & 7);
  m.swizzle = Swizzle(int(d >> 62));
  return m;
}

// The shared-memory byte that a descriptor with the 128-byte swizzle names for element (mn, k) of
// the operand (mn < 64 for A, < N for B; k within one wgmma: 32 bytes' worth), elements of
// `element_bytes` bytes, K-major or MN-major (the layouts above). Callers check
// descriptor.swizzle == Swizzle::bytes128 and base_offset == 0: other modes are not decoded here.
constexpr unsigned descriptor_byte(const MatrixDescriptor& d, bool k_major, int mn, int k, int element_bytes) {
  const unsigned bytes = unsigned(element_bytes), per_row = unsigned(kSwizzleSpan) / bytes;
  const unsigned m = unsigned(mn), kk = unsigned(k), rows = unsigned(kCoreRows);
  const unsigned linear = k_major ? d.start + (m % rows) * kSwizzleSpan + (m / rows) * d.stride + kk * bytes
                                  : d.start + (m % per_row) * bytes + (m / per_row) * d.leading + (kk % rows) * kSwizzleSpan +
                                        (kk / rows) * d.stride;
  return swizzle_128b(linear);
}
constexpr bool decodable(const MatrixDescriptor& d) { return d.swizzle == Swizzle::bytes128 && d.base_offset == 0; }

// The core matrix (8 rows of 16 bytes) that element (mn, k) of a wgmma operand belongs to:
// `strided` counts along the dimension the SBO steps (8 m's or n's K-major, 8 k's MN-major),
// `leading` along the other (16 bytes of k K-major, 16 bytes of m or n MN-major).
struct CoreMatrix {
  int strided = 0, leading = 0;
};
constexpr CoreMatrix core_matrix(bool k_major, int mn, int k, int element_bytes) {
  if (k_major) return {mn / kCoreRows, k * element_bytes / kCoreBytes};
  return {k / kCoreRows, mn * element_bytes / kCoreBytes};
}

}  // namespace gemm::hopper
