// A selection of the viewer as a link: the query of the browser page's URL (tools/web), and of the
// docs' links to it (tools/pictures.py writes them), is the command line with each "--option value"
// written "option=value" and a flag ("--defaults") written bare:
//   step=14_mma_ldmatrix&shape=128x128x64&param=BM=64&warp=1   <->
//   --step 14_mma_ldmatrix --shape 128x128x64 --param BM=64 --warp 1
// so that args.cpp parses the link as it parses the native command line, and the two cannot drift.
// Header-only and plain C++ (the viewer's tests check the round trip without a browser).
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace gemm::viewer {

namespace link_detail {

inline bool plain(char c) {  // kept as is in a link; anything else is %XX
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '~' || c == ',' ||
         c == '=' || c == ':';
}

inline std::string encode(const std::string& text) {
  static const char* const hex = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    if (plain(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  }
  return out;
}

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX and '+' (a space, as forms write it) decoded; a malformed %-sequence is kept as written.
inline std::string decode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
      out += char(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace link_detail

// "?step=05_smem_tiling&defaults" (the leading '?' optional) -> {"--step", "05_smem_tiling",
// "--defaults"}. A value keeps every '=' after the first (param=BM=64 -> --param BM=64); empty
// parts (a trailing '&') are skipped.
inline std::vector<std::string> arguments_from_query(std::string query) {
  if (!query.empty() && query[0] == '?') query.erase(0, 1);
  std::vector<std::string> arguments;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string part = query.substr(start, end - start);
    if (!part.empty()) {
      const size_t eq = part.find('=');
      arguments.push_back("--" + link_detail::decode(part.substr(0, eq)));
      if (eq != std::string::npos) arguments.push_back(link_detail::decode(part.substr(eq + 1)));
    }
    start = end + 1;
  }
  return arguments;
}

// The reverse, without the '?': an option followed by another option, or last, is a flag.
inline std::string query_from_arguments(const std::vector<std::string>& arguments) {
  std::string query;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& option = arguments[i];
    const std::string key = option.rfind("--", 0) == 0 ? option.substr(2) : option;
    if (!query.empty()) query += '&';
    query += link_detail::encode(key);
    if (i + 1 < arguments.size() && arguments[i + 1].rfind("--", 0) != 0) query += "=" + link_detail::encode(arguments[++i]);
  }
  return query;
}

}  // namespace gemm::viewer
