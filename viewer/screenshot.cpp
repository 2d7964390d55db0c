// The PNG and the geometry file of --screenshot.
#include "screenshot.hpp"

#include <stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace gemm::viewer {

bool write_screenshot(const App& app, const Args& args, int fb_width, int fb_height, float scale) {
  std::vector<unsigned char> pixels(size_t(fb_width) * size_t(fb_height) * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, fb_width, fb_height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's rows run bottom-up; a PNG's top-down. Crop to the panel asked for.
  int x0 = 0, y0 = 0, w = fb_width, h = fb_height;
  if (args.panel != "all") {
    const auto& r = app.panels.at(args.panel);
    x0 = int(r[0] * scale), y0 = int(r[1] * scale), w = int(r[2] * scale), h = int(r[3] * scale);
    // --docs: down to what the panel drew, and a margin (the window is taller than most panels).
    if (app.docs) h = std::min(h, int((app.drawn_bottom.at(args.panel) - r[1]) * scale) + int(8 * scale));
    w = std::min(w, fb_width - x0), h = std::min(h, fb_height - y0);
  }
  std::vector<unsigned char> out(size_t(w) * size_t(h) * 3);
  for (int y = 0; y < h; ++y)
    std::copy_n(&pixels[(size_t(fb_height - 1 - (y0 + y)) * size_t(fb_width) + size_t(x0)) * 3], size_t(w) * 3,
                &out[size_t(y) * size_t(w) * 3]);
  if (!stbi_write_png(args.screenshot.c_str(), w, h, 3, out.data(), w * 3)) {
    std::fprintf(stderr, "gemm_viewer: cannot write %s\n", args.screenshot.c_str());
    return false;
  }
  nlohmann::json geometry = geometry_json(app, x0, y0, scale);
  geometry["image"] = {{"width", w}, {"height", h}, {"origin_x", x0}, {"origin_y", y0}, {"scale", scale}};
  std::ofstream(args.geometry) << geometry.dump(2) << "\n";
  return true;
}

nlohmann::json geometry_json(const App& app, int x0, int y0, float scale) {
  nlohmann::json geometry;
  for (const auto& [name, r] : app.panels) geometry["panels"][name] = {r[0] * scale - float(x0), r[1] * scale - float(y0), r[2] * scale, r[3] * scale};
  for (const DrawnGrid& g : app.grids)
    geometry["grids"].push_back({{"name", g.name}, {"x", g.x * scale - float(x0)}, {"y", g.y * scale - float(y0)},
                                 {"cell", g.cell * scale}, {"row0", g.row0}, {"col0", g.col0}, {"rows", g.rows},
                                 {"cols", g.cols}});
  const TraceProblem p = app.problem();
  geometry["shown"] = app.shown;
  geometry["selection"] = {{"step", app.current().step}, {"variant", app.current().variant},
                           {"shape", {p.shape.m, p.shape.n, p.shape.k}}, {"beta", p.beta}, {"params", p.params},
                           {"block", {app.block.x, app.block.y}}, {"warp", app.warp},
                           {"iteration_index", app.iteration_index}, {"instruction_index", app.instruction_index}};
  return geometry;
}

}  // namespace gemm::viewer
