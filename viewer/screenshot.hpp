// Headless mode (--screenshot): the frame drawn written as a PNG, cropped to the --panel asked for
// (with --docs: down to what the panel drew), and the geometry file beside it: where each panel and
// grid was drawn, what the panels showed, the selection.
#pragma once

#include "app.hpp"
#include "args.hpp"

namespace gemm::viewer {

// Reads the back buffer (fb_width x fb_height pixels; scale: pixels per window unit). False, with a
// message, when the PNG cannot be written.
bool write_screenshot(const App& app, const Args& args, int fb_width, int fb_height, float scale);
// The geometry file's content but the image's size: where each panel and grid was drawn in the last
// frame (in pixels from (x0, y0) of the framebuffer), what the panels showed, the selection. The
// browser's page reports the same (web/web_main.cpp).
nlohmann::json geometry_json(const App& app, int x0, int y0, float scale);

}  // namespace gemm::viewer
