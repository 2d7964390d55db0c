// Descriptors: a wgmma descriptor moved by an offset instead of built again (step 21).
#include <cstdio>
#include <string>

#include "21_uniform_datapath/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 21: a descriptor moved by an offset -------------------------------------------------

// The A descriptors of one consumer's k-steps in every stage, for the tile the program takes at
// 8192^3 (step21::config_for_shape): each built from its address by step21::wgmma_descriptor, as
// step 20 builds them at every k-step, and shown as stage 0's plus the offset >> 4, as step 21 adds
// them (the kernel's stage 0 is wherever the block's shared memory starts, aligned to 1024 bytes:
// here 1024).
std::string descriptors_21() {
  using namespace step21;
  const GemmShape shape{8192, 8192, 8192};
  const Config c = config_for_shape(shape, kDiagramSms);
  const Descriptor strides = descriptor_strides();
  const std::uint32_t stage0 = kSwizzleAtomBytes;  // an example start of the stages
  const int consumer = 1, k_steps = c.bk / kWgmmaK;
  const std::uint64_t a_stage0 = wgmma_descriptor(stage0 + operand_offset(consumer, 0), strides);
  auto hex = [](std::uint64_t v, int digits) {
    char buffer[24];
    std::snprintf(buffer, sizeof(buffer), "0x%0*llx", digits, static_cast<unsigned long long>(v));
    return std::string(buffer);
  };
  const double x0 = 250, col_w = 250, row_h = 58, top = 270;
  Svg svg(x0 + col_w * k_steps + 30, top + row_h * c.stages + 120);
  svg.text(30, 30, "Step 21: the wgmma descriptors of the k-loop, stage 0's moved by offsets", 20, "start", "#1a1a1a", true);
  svg.text(30, 56, "The " + std::to_string(c.bm) + " × " + std::to_string(c.bn) + " tile the program takes at " +
                       std::to_string(shape.m) + "³: " + std::to_string(c.stages) + " stages of " +
                       std::to_string(stage_bytes(c)) + " bytes, " + std::to_string(k_steps) +
                       " k-steps of 32 bytes a k-tile.", 14);
  svg.text(30, 76, "A's descriptors of consumer " + std::to_string(consumer) + " (its 64 rows start " +
                       std::to_string(operand_offset(consumer, 0)) + " bytes into the stage); the stages start at " +
                       std::to_string(stage0) + " here.", 14);
  // The descriptor's fields (PTX ISA, matrix descriptor): only the start address changes.
  const double fy = 96, fw = 230;
  const char* fields[] = {"bits 62-63: swizzle (1 = 128 B)", "bits 32-45: stride >> 4", "bits 16-29: leading >> 4",
                          "bits 0-13: start address >> 4"};
  const std::uint64_t values[] = {a_stage0 >> 62, (a_stage0 >> 32) & 0x3fff, (a_stage0 >> 16) & 0x3fff, a_stage0 & 0x3fff};
  for (int f = 0; f < 4; ++f) {
    const bool moves = f == 3;
    svg.rect(30 + f * (fw + 10), fy, fw, 52, moves ? "#fdd0a2" : "#e6e6e6", "#555555", 0.8);
    svg.text(30 + f * (fw + 10) + fw / 2, fy + 20, fields[f], 12, "middle");
    svg.text(30 + f * (fw + 10) + fw / 2, fy + 40, (moves ? "stage 0: " : "") + hex(values[f], 1), 13, "middle", "#1a1a1a", true);
  }
  svg.text(30, fy + 78, "Shared memory is under 228 KB, so start >> 4 stays below 2^14: adding an offset >> 4 to the "
                        "64-bit descriptor", 14);
  svg.text(30, fy + 96, "changes the start field alone, without a carry into the others. Step 20 rebuilds each descriptor "
                        "from the stage's address,", 14);
  svg.text(30, fy + 114, "per thread (ptxas cannot tell that the consumer's index is the same in every lane); step 21 adds "
                         "to stage 0's, in uniform registers.", 14);
  // The grid: stage by k-step.
  svg.text(x0 - 12, top - 14, "stage  (+ stage × " + std::to_string(stage_bytes(c) >> 4) + ")", 13, "end", "#1a1a1a", true);
  for (int kk = 0; kk < k_steps; ++kk)
    svg.text(x0 + col_w * (kk + 0.5), top - 14, "k-step " + std::to_string(kk) + "  (+ " +
                                                    std::to_string(descriptor_offset(stage_bytes(c), 0, kk)) + ")", 13, "middle",
                                                    "#1a1a1a", true);
  for (int stage = 0; stage < c.stages; ++stage) {
    const double y = top + stage * row_h;
    svg.text(x0 - 12, y + row_h / 2 + 5, std::to_string(stage), 14, "end");
    for (int kk = 0; kk < k_steps; ++kk) {
      const std::uint32_t address = stage0 + std::uint32_t(stage * stage_bytes(c)) + std::uint32_t(operand_offset(consumer, kk));
      const std::uint64_t built = wgmma_descriptor(address, strides);
      const std::uint64_t offset = descriptor_offset(stage_bytes(c), stage, kk);
      const bool same = built == a_stage0 + offset;
      svg.rect(x0 + col_w * kk + 2, y + 2, col_w - 4, row_h - 4, same ? "#c7e9c0" : "#fcbba1", "#555555", 0.8);
      svg.text(x0 + col_w * (kk + 0.5), y + 22, "address " + std::to_string(address) + " → start " + hex(built & 0x3fff, 1), 12,
               "middle");
      svg.text(x0 + col_w * (kk + 0.5), y + 42, "stage 0's + " + std::to_string(offset) + (same ? " (equal)" : " (DIFFERENT)"),
               12, "middle", "#1a1a1a", !same);
    }
  }
  svg.text(30, top + row_h * c.stages + 40, "Each cell: the descriptor step 20 builds from the address (wgmma_descriptor), "
                                            "and the one step 21 adds up; green where they are equal.", 14);
  return svg.str();
}

const Registration descriptors_21_registered("diagram-21-descriptors.svg", descriptors_21);

}  // namespace
}  // namespace diagrams
