// The dark and light themes and the font size.
#include "theme.hpp"

#include <cmath>

namespace gemm::viewer {

Palette palette;

namespace {
void use_light_theme() {
  ImGui::StyleColorsLight();
  palette.text = IM_COL32(20, 20, 20, 255);
  palette.axis = IM_COL32(90, 90, 90, 255);
  palette.outline = IM_COL32(0, 0, 0, 255);
  palette.cublas = IM_COL32(190, 120, 0, 255);
  palette.peak = IM_COL32(200, 30, 30, 255);
  palette.conflict = IM_COL32(220, 0, 0, 255);
  palette.conflict_text = IM_COL32(200, 0, 0, 255);
  palette.tf32 = IM_COL32(20, 90, 180, 255);
  palette.message = IM_COL32(150, 80, 0, 255);
}
}  // namespace

void use_theme(const std::string& theme, float font_scale) {
  if (theme == "light") use_light_theme();
  else ImGui::StyleColorsDark();
  if (font_scale != 1.0f) {
    // The built-in font rasterised at the size asked (sharper than scaling the 13-pixel one).
    ImFontConfig font;
    font.SizePixels = std::round(13.0f * font_scale);
    ImGui::GetIO().Fonts->AddFontDefault(&font);
    ImGui::GetStyle().ScaleAllSizes(font_scale);
  }
  // Without anti-aliased lines and fills ImGui emits a third of the vertices: the frame stays well
  // under 16 ms with a software renderer (Mesa's llvmpipe in CI), at the cost of jagged chart lines.
  ImGui::GetStyle().AntiAliasedLines = false;
  ImGui::GetStyle().AntiAliasedFill = false;
}

ImVec4 clear_colour(const std::string& theme) {
  return theme == "light" ? ImVec4(0.94f, 0.94f, 0.94f, 1) : ImVec4(0.08f, 0.08f, 0.09f, 1);
}

}  // namespace gemm::viewer
