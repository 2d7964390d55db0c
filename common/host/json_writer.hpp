// A minimal JSON value and writer: enough for results files, with no dependency beyond C++17.
// (The viewer reads results with nlohmann-json; common/ must build from the CUDA Toolkit alone.)
#pragma once

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gemm {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order

  Json() : value_(nullptr) {}
  Json(std::nullptr_t) : value_(nullptr) {}
  Json(bool value) : value_(value) {}
  Json(int value) : value_(double(value)) {}
  Json(long long value) : value_(double(value)) {}
  Json(double value) : value_(value) {}
  Json(const char* value) : value_(std::string(value)) {}
  Json(std::string value) : value_(std::move(value)) {}
  Json(Array value) : value_(std::move(value)) {}
  Json(Object value) : value_(std::move(value)) {}

  static Json object() { return Json(Object{}); }
  static Json array() { return Json(Array{}); }

  // Object: appends (or replaces) a member. Array: appends an element.
  Json& set(const std::string& key, Json value);
  Json& push(Json value);

  // Two-space indentation; numbers with up to 17 significant digits; NaN and Inf as null.
  std::string dump() const;

 private:
  void write(std::string& out, int indent) const;
  std::variant<std::nullptr_t, bool, double, std::string, Array, Object> value_;
};

std::string json_escape(const std::string& text);

}  // namespace gemm
