#include "json_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace gemm {

Json& Json::set(const std::string& key, Json value) {
  auto* object = std::get_if<Object>(&value_);
  if (!object) throw std::logic_error("Json::set on a non-object");
  for (auto& member : *object)
    if (member.first == key) {
      member.second = std::move(value);
      return *this;
    }
  object->emplace_back(key, std::move(value));
  return *this;
}

Json& Json::push(Json value) {
  auto* array = std::get_if<Array>(&value_);
  if (!array) throw std::logic_error("Json::push on a non-array");
  array->push_back(std::move(value));
  return *this;
}

std::string json_escape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", unsigned(static_cast<unsigned char>(ch)));
          out += buffer;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

namespace {
void write_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    out += buffer;
    return;
  }
  // Shortest of %.{6..17}g that reads back exactly.
  char buffer[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  out += buffer;
}
}  // namespace

void Json::write(std::string& out, int indent) const {
  const std::string pad(size_t(indent) * 2, ' ');
  const std::string inner(size_t(indent + 1) * 2, ' ');
  if (std::holds_alternative<std::nullptr_t>(value_)) {
    out += "null";
  } else if (const bool* flag = std::get_if<bool>(&value_)) {
    out += *flag ? "true" : "false";
  } else if (const double* number = std::get_if<double>(&value_)) {
    write_number(out, *number);
  } else if (const std::string* text = std::get_if<std::string>(&value_)) {
    out += '"' + json_escape(*text) + '"';
  } else if (const Array* array = std::get_if<Array>(&value_)) {
    if (array->empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    for (size_t i = 0; i < array->size(); ++i) {
      out += inner;
      (*array)[i].write(out, indent + 1);
      out += i + 1 < array->size() ? ",\n" : "\n";
    }
    out += pad + "]";
  } else if (const Object* object = std::get_if<Object>(&value_)) {
    if (object->empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    for (size_t i = 0; i < object->size(); ++i) {
      out += inner + '"' + json_escape((*object)[i].first) + "\": ";
      (*object)[i].second.write(out, indent + 1);
      out += i + 1 < object->size() ? ",\n" : "\n";
    }
    out += pad + "}";
  }
}

std::string Json::dump() const {
  std::string out;
  write(out, 0);
  out += '\n';
  return out;
}

}  // namespace gemm
