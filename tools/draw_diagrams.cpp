// draw_diagrams: the concept diagrams of the docs, as SVG, computed from the steps' own mapping
// functions and configurations (steps/*/mapping.hpp): nothing here is a second copy of a mapping.
// Each diagram is drawn by a function of tools/diagrams/, a file per family (loop orders, tiling,
// timelines, wave split, swizzle, tile order, descriptors, rounds), with the SVG writer svg.hpp.
//
//   draw_diagrams --out docs/images          writes every diagram
//   draw_diagrams --out DIR --list           names them
//
// tools/pictures.py runs it (with the viewer's pictures); the docs.diagrams_current test reruns it
// into a temporary folder and compares the files byte for byte. The output is deterministic: fixed
// sizes, fixed number formatting, no dates.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "diagrams.hpp"
#include "exit_codes.hpp"

namespace {

struct Diagram {
  const char* file;
  std::string (*draw)();
};
// Every diagram, with the file it is written to (docs/images/), in step order.
const Diagram kDiagrams[] = {
    {"diagram-00-loop-order.svg", diagrams::loop_order_00},
    {"diagram-09-tiling.svg", diagrams::tiling_09},
    {"diagram-10-pipeline.svg", diagrams::pipeline_10},
    {"diagram-11-wave-split.svg", diagrams::wave_split_11},
    {"diagram-14-swizzle.svg", diagrams::swizzle_14},
    {"diagram-16-handoff.svg", diagrams::handoff_16},
    {"diagram-17-tile-order.svg", diagrams::tile_order_17},
    {"diagram-20-overlap.svg", diagrams::overlap_20},
    {"diagram-21-descriptors.svg", diagrams::descriptors_21},
    {"diagram-22-rounds.svg", diagrams::rounds_22},
};

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) out = argv[++i];
    else if (arg == "--list") list = true;
    else if (arg == "--help" || arg == "-h") {
      std::printf("usage: draw_diagrams --out DIR [--list]\n  writes the docs' concept diagrams (SVG) into DIR\n");
      return 0;
    } else {
      std::fprintf(stderr, "draw_diagrams: unknown argument '%s' (usage: draw_diagrams --out DIR [--list])\n", arg.c_str());
      return gemm::kExitUsage;
    }
  }
  if (list) {
    for (const Diagram& d : kDiagrams) std::printf("%s\n", d.file);
    return 0;
  }
  if (out.empty()) {
    std::fprintf(stderr, "draw_diagrams: --out DIR is required (e.g. --out docs/images)\n");
    return gemm::kExitUsage;
  }
  std::filesystem::create_directories(out);
  for (const Diagram& d : kDiagrams) {
    const std::filesystem::path path = std::filesystem::path(out) / d.file;
    std::ofstream file(path, std::ios::binary);
    file << d.draw();
    if (!file) {
      std::fprintf(stderr, "draw_diagrams: cannot write %s\n", path.string().c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.string().c_str());
  }
  return 0;
}
