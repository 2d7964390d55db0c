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
// The operand is read in core matrices of 8 rows of 16 bytes. With a swizzle of S bytes (128, the
// steps' mode; 32 for step 26's last 16 columns of an N-major B) the canonical layouts, for elements
// of E bytes and R = S / E to a row, are (CUTLASS's GMMA layouts,
// include/cute/atom/mma_traits_sm90_gmma.hpp):
//   K-major:  rows of S bytes along k; element (mn, k) at start + (mn % 8) S + (mn / 8) SBO + k E
//             (LBO unused: a k-step's 32 bytes lie in one row);
//   MN-major: rows of S bytes along m or n; element (mn, k) at
//             start + (mn % R) E + (mn / R) LBO + (k % 8) S + (k / 8) SBO;
// then swizzled: the 16-byte chunk within its row (address bits 4-6 for S = 128, bit 4 for S = 32)
// XOR the row's place in the 8-row period of 128-byte lines (bits 7-9, or bit 7), which TMA's
// CU_TENSOR_MAP_SWIZZLE_128B (32B) writes the same way.
#pragma once

#include <cstdint>

namespace gemm::hopper {

constexpr int kSwizzleSpan = 128;     // bytes of one swizzled row
constexpr int kSwizzlePeriod = 1024;  // 8 rows: the swizzle repeats; TMA boxes start on it
constexpr int kCoreRows = 8;          // a core matrix: 8 rows ...
constexpr int kCoreBytes = 16;        // ... of 16 bytes

// The swizzle of `span` bytes (128, 64 or 32) of a shared-memory byte address: CUTLASS's
// Swizzle<3, 4, 3>, <2, 4, 3>, <1, 4, 3>.
constexpr unsigned swizzle_bytes(unsigned address, int span) {
  return address ^ (((address >> 7) & unsigned(span / 16 - 1)) << 4);
}
constexpr unsigned swizzle_128b(unsigned address) { return swizzle_bytes(address, kSwizzleSpan); }

// Where TMA writes element (inner, outer) of a box whose rows are `span` bytes (inner * element_bytes
// < span) with the swizzle of that span, the box starting at byte `box_base` (a multiple of 1024).
constexpr unsigned tma_landing_byte(unsigned box_base, int inner, int outer, int element_bytes, int span = kSwizzleSpan) {
  return swizzle_bytes(box_base + unsigned(outer) * unsigned(span) + unsigned(inner) * unsigned(element_bytes), span);
}

enum class Swizzle { none = 0, bytes128 = 1, bytes64 = 2, bytes32 = 3 };
// The bytes of a swizzled row (0: no swizzle).
constexpr int swizzle_span(Swizzle s) {
  return s == Swizzle::bytes128 ? 128 : s == Swizzle::bytes64 ? 64 : s == Swizzle::bytes32 ? 32 : 0;
}

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

// The shared-memory byte that a swizzled descriptor names for element (mn, k) of the operand (mn <
// 64 for A, < N for B; k within one wgmma: 32 bytes' worth), elements of `element_bytes` bytes,
// K-major or MN-major (the layouts above). Callers check decodable: the unswizzled mode and a base
// offset are not decoded here.
constexpr unsigned descriptor_byte(const MatrixDescriptor& d, bool k_major, int mn, int k, int element_bytes) {
  const unsigned span = unsigned(swizzle_span(d.swizzle));
  if (span == 0) return d.start;  // no swizzle: not decoded (decodable)
  const unsigned bytes = unsigned(element_bytes), per_row = span / bytes;
  const unsigned m = unsigned(mn), kk = unsigned(k), rows = unsigned(kCoreRows);
  const unsigned linear = k_major ? d.start + (m % rows) * span + (m / rows) * d.stride + kk * bytes
                                  : d.start + (m % per_row) * bytes + (m / per_row) * d.leading + (kk % rows) * span +
                                        (kk / rows) * d.stride;
  return swizzle_bytes(linear, int(span));
}
constexpr bool decodable(const MatrixDescriptor& d) { return d.swizzle != Swizzle::none && d.base_offset == 0; }

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
