// The viewer's look: the colours the panels draw with besides the model's (lanes, blocks, untouched
// cells), per theme, and the font size.
#pragma once

#include <imgui.h>

#include <string>

#include "viewer_model.hpp"

namespace gemm::viewer {

struct Palette {
  ImU32 text = IM_COL32(200, 200, 200, 255);     // labels drawn on the canvas
  ImU32 axis = IM_COL32(160, 160, 160, 255);
  ImU32 outline = IM_COL32(255, 255, 255, 255);  // the selected warp's cells
  ImU32 cublas = IM_COL32(255, 210, 60, 255);
  ImU32 peak = IM_COL32(255, 90, 90, 255);
  ImU32 conflict = IM_COL32(255, 40, 40, 255), conflict_text = IM_COL32(255, 90, 90, 255);
  ImU32 tf32 = IM_COL32(150, 200, 255, 255), message = IM_COL32(255, 204, 102, 255);
};
extern Palette palette;

// ImGui's style and this palette for --theme dark|light, the font rasterised for --font-scale.
void use_theme(const std::string& theme, float font_scale);
// The window's background behind the panels.
ImVec4 clear_colour(const std::string& theme);

inline ImU32 im(Rgba c) { return ImU32(c); }
// A width laid out for the 13-pixel font, at the font's size (--font-scale).
inline float ui(float pixels) { return pixels * ImGui::GetFontSize() / 13.0f; }

}  // namespace gemm::viewer
