// draw_diagrams: the concept diagrams of the docs, as SVG, computed from the steps' own mapping
// functions and configurations (steps/*/mapping.hpp): nothing here is a second copy of a mapping.
// Each diagram is drawn by a function of tools/diagrams/, a file per family (loop orders, tiling,
// timelines, wave split, swizzle, tile order, descriptors, rounds) that registers it with its file
// name (diagrams.hpp), with the SVG writer svg.hpp.
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
#include <map>
#include <string>

#include "diagrams.hpp"
#include "exit_codes.hpp"

namespace diagrams {

namespace {
std::map<std::string, Draw>& registry() {
  static std::map<std::string, Draw> diagrams;
  return diagrams;
}
}  // namespace

const std::map<std::string, Draw>& registered() { return registry(); }

Registration::Registration(const std::string& file, Draw draw) { registry()[file] = draw; }

}  // namespace diagrams

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
    for (const auto& [file, draw] : diagrams::registered()) std::printf("%s\n", file.c_str());
    return 0;
  }
  if (out.empty()) {
    std::fprintf(stderr, "draw_diagrams: --out DIR is required (e.g. --out docs/images)\n");
    return gemm::kExitUsage;
  }
  std::filesystem::create_directories(out);
  for (const auto& [name, draw] : diagrams::registered()) {
    const std::filesystem::path path = std::filesystem::path(out) / name;
    std::ofstream file(path, std::ios::binary);
    file << draw();
    if (!file) {
      std::fprintf(stderr, "draw_diagrams: cannot write %s\n", path.string().c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.string().c_str());
  }
  return 0;
}
