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

}  // namespace gemm::viewer
