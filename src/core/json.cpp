#include "gdedup/frontend/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gdedup {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one
// (overlong forms, surrogates and code points above U+10FFFF included).
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned char c = b(i);
  size_t n;
  unsigned min;
  unsigned cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t j = 1; j < n; ++j) {
    if ((b(i + j) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + j) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else if (c >= 0x80) {
      const size_t n = utf8_length(text, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD
        ++i;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  return out;
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

JsonObject& JsonObject::add(std::string_view key, std::string_view value) {
  members_.push_back({std::string(key), json_string(value), nullptr, nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, uint64_t value) {
  members_.push_back({std::string(key), std::to_string(value), nullptr, nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, std::optional<uint64_t> value) {
  members_.push_back({std::string(key), value ? std::to_string(*value) : "null", nullptr, nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, std::optional<double> value) {
  members_.push_back({std::string(key), value ? json_number(*value) : "null", nullptr, nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, double value) {
  members_.push_back({std::string(key), json_number(value), nullptr, nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, bool value) {
  members_.push_back({std::string(key), value ? "true" : "false", nullptr, nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, const std::vector<std::string>& values) {
  std::string rendered = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    rendered += (i > 0 ? ", " : "") + json_string(values[i]);
  }
  members_.push_back({std::string(key), rendered + "]", nullptr, nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, JsonObject value) {
  members_.push_back(
      {std::string(key), "", std::make_shared<JsonObject>(std::move(value)), nullptr});
  return *this;
}

JsonObject& JsonObject::add(std::string_view key, std::vector<JsonObject> values) {
  members_.push_back({std::string(key), "", nullptr,
                      std::make_shared<std::vector<JsonObject>>(std::move(values))});
  return *this;
}

std::string JsonObject::str(int indent) const {
  if (members_.empty()) return "{}";
  const std::string pad(static_cast<size_t>(indent) + 2, ' ');
  std::string out = "{\n";
  for (size_t i = 0; i < members_.size(); ++i) {
    const Member& m = members_[i];
    out += pad + json_string(m.key) + ": ";
    if (m.object) {
      out += m.object->str(indent + 2);
    } else if (m.objects) {
      out += "[";
      for (size_t j = 0; j < m.objects->size(); ++j) {
        out += (j > 0 ? ",\n" : "\n") + pad + "  " + (*m.objects)[j].str(indent + 4);
      }
      out += m.objects->empty() ? "]" : "\n" + pad + "]";
    } else {
      out += m.value;
    }
    out += i + 1 < members_.size() ? ",\n" : "\n";
  }
  out += std::string(static_cast<size_t>(indent), ' ') + "}";
  return out;
}

}  // namespace gdedup
