// A small JSON object writer for --json and --stats output. Written by hand to
// keep the tool free of a JSON dependency; strings are escaped per RFC 8259,
// and bytes that are not valid UTF-8 (file names may hold any bytes) become
// U+FFFD so the output always parses.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdedup {

// The JSON string literal for `text`, quotes included.
std::string json_string(std::string_view text);

// The shortest decimal that reads back as `value`; null when not finite.
std::string json_number(double value);

// An object whose members keep the order they are added in:
//   JsonObject o; o.add("records", n).add("backend", name); o.str()
class JsonObject {
 public:
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add(std::string_view key, const char* value) {
    return add(key, std::string_view(value));
  }
  JsonObject& add(std::string_view key, const std::string& value) {
    return add(key, std::string_view(value));
  }
  JsonObject& add(std::string_view key, uint64_t value);
  JsonObject& add(std::string_view key, unsigned value) { return add(key, uint64_t{value}); }
  JsonObject& add(std::string_view key, double value);
  // A count, or null when there is none.
  JsonObject& add(std::string_view key, std::optional<uint64_t> value);
  JsonObject& add(std::string_view key, std::optional<double> value);
  JsonObject& add(std::string_view key, bool value);
  JsonObject& add(std::string_view key, JsonObject value);
  // An array of strings, on one line.
  JsonObject& add(std::string_view key, const std::vector<std::string>& values);
  // An array of objects, one after another.
  JsonObject& add(std::string_view key, std::vector<JsonObject> values);

  // Two-space indented, without a trailing newline.
  std::string str(int indent = 0) const;

 private:
  struct Member {
    std::string key;
    std::string value;                   // the rendered scalar
    std::shared_ptr<JsonObject> object;  // or a nested object
    std::shared_ptr<std::vector<JsonObject>> objects;  // or an array of them
  };
  std::vector<Member> members_;
};

}  // namespace gdedup
