// A small SVG writer for the docs' concept diagrams (tools/draw_diagrams.cpp): rectangles, lines,
// arrows and text at fixed sizes with fixed number formatting, so that the same drawing gives the
// same bytes (the docs.diagrams_current test compares them byte for byte); and the diagrams' fills.
#pragma once

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>

namespace diagrams {

// A coordinate with one decimal at most ("12", "12.5").
inline std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", v);
  std::string s = buffer;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

inline std::string escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '&') out += "&amp;";
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else out += ch;
  }
  return out;
}

struct Svg {
  double width, height;
  std::ostringstream body;
  Svg(double w, double h) : width(w), height(h) {}
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none",
            double stroke_width = 1) {
    body << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w) << "\" height=\"" << num(h)
         << "\" fill=\"" << fill << "\" stroke=\"" << stroke << "\" stroke-width=\"" << num(stroke_width) << "\"/>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width = 1,
            const std::string& extra = "") {
    body << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\"" << num(y2)
         << "\" stroke=\"" << stroke << "\" stroke-width=\"" << num(stroke_width) << "\"" << extra << "/>\n";
  }
  void arrow(double x1, double y1, double x2, double y2, const std::string& colour, const std::string& marker) {
    line(x1, y1, x2, y2, colour, 1.5, " marker-end=\"url(#" + marker + ")\"");
  }
  // size in pixels (at least 12 everywhere: the docs are read in a browser)
  void text(double x, double y, const std::string& s, int size = 14, const std::string& anchor = "start",
            const std::string& fill = "#1a1a1a", bool bold = false) {
    body << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << size << "\"";
    if (anchor != "start") body << " text-anchor=\"" << anchor << "\"";
    if (bold) body << " font-weight=\"bold\"";
    if (fill != "#1a1a1a") body << " fill=\"" << fill << "\"";
    body << ">" << escape(s) << "</text>\n";
  }
  std::string str() const {
    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
        << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
        << "<defs>\n";
    for (const auto& [id, colour] : std::map<std::string, std::string>{{"arrow-blue", "#1f5fbf"}, {"arrow-orange", "#c85a00"}})
      out << "<marker id=\"" << id << "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
          << "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"" << colour << "\"/></marker>\n";
    out << "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n" << body.str() << "</svg>\n";
    return out.str();
  }
};

// Eight light, distinguishable fills (warps, stages, phases), and 32 hues for lanes.
inline const char* const kFills[] = {"#9ecae1", "#fdae6b", "#a1d99b", "#fcbba1", "#bcbddc", "#fdd0a2", "#c7e9c0", "#d9d9d9"};
inline std::string fill_of(int index) { return kFills[index % 8]; }
inline std::string lane_fill(int lane) {
  // HSL(hue, 65%, 78%) around the wheel, as hex: light enough for black text.
  const double h = double(lane * 11 % 32) / 32.0 * 6.0, s = 0.65, l = 0.78;
  const double c = (1 - std::abs(2 * l - 1)) * s, x = c * (1 - std::abs(std::fmod(h, 2.0) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  if (h < 1) r = c, g = x;
  else if (h < 2) r = x, g = c;
  else if (h < 3) g = c, b = x;
  else if (h < 4) g = x, b = c;
  else if (h < 5) r = x, b = c;
  else r = c, b = x;
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "#%02x%02x%02x", int((r + m) * 255 + 0.5), int((g + m) * 255 + 0.5),
                int((b + m) * 255 + 0.5));
  return buffer;
}

}  // namespace diagrams
