// The cp.async patterns of tools/experiments/ldgsts_counts.cu, shared with the host test that holds
// what an H100 measured for them (tests/host/test_access_model.cpp). One warp, one cp.async: a
// variant (width, and whether the copy bypasses L1: cp.async.cg), where each lane reads (a global
// pattern), where it writes (a shared pattern) and which lanes read (a source-size pattern).
#pragma once

#ifdef __CUDACC__
#define LDGSTS_HD __host__ __device__
#else
#define LDGSTS_HD
#endif

namespace ldgsts {

constexpr int kRowStride = 1024;  // bytes between the "rows" of the row patterns
constexpr int kLanes = 32;

// Byte offset of lane l's source, for an access of `width` bytes.
enum Global { contiguous, same_element, line_per_lane, sector_per_lane, rows_of_8, rows_of_16, permuted, rows_of_4 };
LDGSTS_HD inline int global_offset(int pattern, int width, int l) {
  switch (pattern) {
    case contiguous: return width * l;
    case same_element: return 0;
    case line_per_lane: return 128 * l;
    case sector_per_lane: return 32 * l;
    case rows_of_8: return width * (l % 8) + kRowStride * (l / 8);    // 4 rows of 8 lanes
    case rows_of_16: return width * (l % 16) + kRowStride * (l / 16);  // 2 rows of 16 lanes
    case permuted: return width * ((l * 5) % 32);                      // contiguous, lanes permuted
    case rows_of_4: return width * (l % 4) + kRowStride * (l / 4);    // 8 rows of 4 lanes
  }
  return 0;
}
// Byte offset of lane l's destination in shared memory.
enum Shared { packed, stride_128, swizzled, padded, eight_per_bank };
LDGSTS_HD inline int shared_offset(int pattern, int width, int l) {
  switch (pattern) {
    case packed: return width * l;                                   // no bank conflict
    case stride_128: return 128 * l;                                 // every lane in the same banks
    case swizzled: return 128 * (l / 8) + 16 * ((l % 8) ^ (l / 8));  // 16-byte chunks, XOR-swizzled rows
    case padded: return width * l + 4 * (l / 8) * (width == 4);      // a word of padding per 8 lanes (4-byte)
    case eight_per_bank: return 128 * (l % 8) + width * (l / 8);     // each group of 8 lanes in one bank
  }
  return 0;
}
// Which lanes read: all, none (every lane zero-fills), the even lanes (the odd ones zero-fill), or
// lanes 0-15 (16-31 do not take part).
enum Sizes { all_read, none_read, even_read, half_warp };
LDGSTS_HD inline bool takes_part(int sizes, int l) { return sizes != half_warp || l < 16; }
LDGSTS_HD inline bool reads(int sizes, int l) {
  return takes_part(sizes, l) && sizes != none_read && !(sizes == even_read && (l & 1));
}

struct Variant {
  int width;
  bool bypass;  // cp.async.cg (L1 bypassed; 16 bytes only), else cp.async.ca
};
constexpr Variant kVariants[] = {{4, false}, {8, false}, {16, false}, {16, true}};
constexpr int kVariantCount = 4;

struct Case {
  int global, shared, sizes;
};
// Each variant runs these, in this order: the global patterns, the shared patterns, the source
// sizes, each with the others plain; then step 14's copies (rows of 8 lanes into swizzled rows), a
// few mixes of conflicts on both sides, and rows of 4 lanes (16-byte copies: two 64-byte row pieces
// per quarter-warp, as step 14's BK = 32 tiles copy them).
constexpr Case kCases[] = {
    {contiguous, packed, all_read},       {same_element, packed, all_read},    {line_per_lane, packed, all_read},
    {sector_per_lane, packed, all_read},  {rows_of_8, packed, all_read},       {rows_of_16, packed, all_read},
    {permuted, packed, all_read},         {contiguous, stride_128, all_read},  {contiguous, swizzled, all_read},
    {contiguous, padded, all_read},       {contiguous, packed, none_read},     {contiguous, packed, even_read},
    {contiguous, packed, half_warp},      {rows_of_8, swizzled, all_read},     {rows_of_8, swizzled, even_read},
    {line_per_lane, stride_128, even_read}, {rows_of_8, eight_per_bank, all_read}, {rows_of_16, swizzled, all_read},
    {sector_per_lane, swizzled, all_read}, {line_per_lane, swizzled, all_read}, {rows_of_8, stride_128, all_read},
    {line_per_lane, stride_128, all_read}, {line_per_lane, packed, even_read}, {line_per_lane, swizzled, even_read},
    {rows_of_8, stride_128, even_read},   {sector_per_lane, stride_128, even_read}, {same_element, packed, all_read},
    {same_element, swizzled, all_read},   {contiguous, eight_per_bank, all_read}, {contiguous, eight_per_bank, even_read},
    {rows_of_4, packed, all_read},        {rows_of_4, swizzled, all_read}};
constexpr int kCaseCount = int(sizeof(kCases) / sizeof(kCases[0]));

}  // namespace ldgsts
