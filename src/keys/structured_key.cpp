#include "keys/structured_key.h"

#include <simdjson.h>

#include <cstring>
#include <vector>

namespace gdedup::keys {
namespace {

namespace od = simdjson::ondemand;
using simdjson::SUCCESS;

// Deeper values are refused as not JSON: each level costs stack here.
constexpr int kMaxDepth = 1024;
// A parser holds about twice the largest record it parsed; past this, the
// memory goes back once the record is done, not at the thread's end.
constexpr size_t kKeptParserBytes = size_t{1} << 20;

// One per thread: simdjson's parser keeps state between documents, and the
// record is copied into a buffer with SIMDJSON_PADDING readable bytes after
// it (a record in a batch may end where its mapping does).
struct ThreadParser {
  od::parser parser;
  std::vector<char> padded;

  simdjson::simdjson_result<od::document> iterate(std::string_view json) {
    if (padded.size() < json.size() + simdjson::SIMDJSON_PADDING) {
      padded.resize(json.size() + simdjson::SIMDJSON_PADDING + json.size() / 2);
    }
    std::memcpy(padded.data(), json.data(), json.size());
    std::memset(padded.data() + json.size(), 0, simdjson::SIMDJSON_PADDING);
    return parser.iterate(padded.data(), json.size(), padded.size());
  }
};

ThreadParser& thread_parser() {
  thread_local ThreadParser p;
  return p;
}

// After a record larger than kKeptParserBytes.
void release_thread_parser() {
  ThreadParser& p = thread_parser();
  p.parser = od::parser();
  std::vector<char>().swap(p.padded);
}

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view t) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > from;
  };
  if (i < t.size() && t[i] == '-') ++i;
  if (i < t.size() && t[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == t.size();
}

std::string_view trim_space(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\n' ||
                        t.back() == '\r')) {
    t.remove_suffix(1);
  }
  return t;
}

// A string in canonical form: only '"', '\\' and the bytes below 0x20 are
// escaped, those with a short escape by it, the others as \u00xx.
void write_string(std::string_view s, std::string& out) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && c != '"' && c != '\\') {
      out += c;
      continue;
    }
    out += '\\';
    switch (c) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '\b': out += 'b'; break;
      case '\f': out += 'f'; break;
      case '\n': out += 'n'; break;
      case '\r': out += 'r'; break;
      case '\t': out += 't'; break;
      default:
        out += "u00";
        out += kHex[b >> 4];
        out += kHex[b & 15];
    }
  }
  out += '"';
}

// The canonical text of `v` (docs/KEYS.md): no whitespace, members in input
// order with only the first of duplicate names, strings as write_string
// makes them, numbers as written. False for a value that is not JSON.
bool write_canonical(od::value v, std::string& out, int depth) {
  if (depth > kMaxDepth) return false;
  od::json_type type;
  if (v.type().get(type) != SUCCESS) return false;
  switch (type) {
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s) != SUCCESS) return false;
      write_string(s, out);
      return true;
    }
    case od::json_type::number: {
      const std::string_view token = trim_space(v.raw_json_token());
      if (!is_json_number(token)) return false;
      out += token;
      return true;
    }
    case od::json_type::boolean: {
      bool b;
      if (v.get_bool().get(b) != SUCCESS) return false;
      out += b ? "true" : "false";
      return true;
    }
    case od::json_type::null: {
      bool null = false;
      if (v.is_null().get(null) != SUCCESS || !null) return false;
      out += "null";
      return true;
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a) != SUCCESS) return false;
      out += '[';
      bool first = true;
      for (auto element : a) {
        od::value e;
        if (std::move(element).get(e) != SUCCESS) return false;
        if (!first) out += ',';
        first = false;
        if (!write_canonical(e, out, depth + 1)) return false;
      }
      out += ']';
      return true;
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o) != SUCCESS) return false;
      out += '{';
      // Names live in the parser's string buffer until the next document.
      std::vector<std::string_view> names;
      for (auto member : o) {
        od::field f;
        if (std::move(member).get(f) != SUCCESS) return false;
        std::string_view name;
        if (f.unescaped_key().get(name) != SUCCESS) return false;
        bool repeated = false;
        for (const std::string_view n : names) repeated = repeated || n == name;
        if (repeated) {
          // Skipped, but it must still be JSON, as a whole parse would find.
          std::string ignored;
          if (!write_canonical(f.value(), ignored, depth + 1)) return false;
          continue;
        }
        names.push_back(name);
        if (names.size() > 1) out += ',';
        write_string(name, out);
        out += ':';
        if (!write_canonical(f.value(), out, depth + 1)) return false;
      }
      out += '}';
      return true;
    }
  }
  return false;
}

// A name of digits without a leading zero, below 2^32, as an array index.
bool array_index(const std::string& step, uint64_t& index) {
  if (step.empty() || step.size() > 10 || (step.size() > 1 && step[0] == '0')) return false;
  index = 0;
  for (const char c : step) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + static_cast<uint64_t>(c - '0');
  }
  return index <= 0xffffffffu;
}

// Whether the member's name is `step`. A name without a backslash is its
// raw bytes, compared in place: unescaping every name before the one
// sought doubled the time a record took.
bool name_is(od::field& member, std::string_view step, bool& bad) {
  const char* const raw = member.key().raw();
  const char* end = raw;
  while (*end != '"' && *end != '\\') ++end;  // the quote ends it: stage 1 checked
  if (*end == '"') {
    return static_cast<size_t>(end - raw) == step.size() &&
           std::memcmp(raw, step.data(), step.size()) == 0;
  }
  std::string_view name;
  if (member.unescaped_key().get(name) != SUCCESS) {
    bad = true;
    return false;
  }
  return name == step;
}

// The member named `step` (the first of that name) of an object, or the
// element it numbers of an array; anything else has no such value.
template <typename Node>
bool step_into(Node& node, const std::string& step, od::value& out) {
  od::json_type type;
  if (node.type().get(type) != SUCCESS) return false;
  if (type == od::json_type::object) {
    od::object o;
    if (node.get_object().get(o) != SUCCESS) return false;
    for (auto member : o) {
      od::field f;
      if (std::move(member).get(f) != SUCCESS) return false;
      bool bad = false;
      if (name_is(f, step, bad)) {
        out = f.value();
        return true;
      }
      if (bad) return false;
    }
    return false;
  }
  uint64_t index;
  if (type != od::json_type::array || !array_index(step, index)) return false;
  od::array a;
  if (node.get_array().get(a) != SUCCESS) return false;
  uint64_t i = 0;
  for (auto element : a) {
    od::value e;
    if (std::move(element).get(e) != SUCCESS) return false;
    if (i++ == index) {
      out = e;
      return true;
    }
  }
  return false;
}

bool parse_json_key(const std::vector<std::string>& path, std::string_view json,
                    std::string& out) {
  od::document doc;
  if (thread_parser().iterate(json).get(doc) != SUCCESS) return false;
  od::value v;
  if (!step_into(doc, path[0], v)) return false;
  for (size_t i = 1; i < path.size(); ++i) {
    od::value next;
    if (!step_into(v, path[i], next)) return false;
    v = next;
  }
  od::json_type type;
  if (v.type().get(type) != SUCCESS) return false;
  // A string is its bytes, not its JSON text.
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s) != SUCCESS) return false;
    out.assign(s.data(), s.size());
    return true;
  }
  return write_canonical(v, out, static_cast<int>(path.size()));
}

// The key is copied out of the parser's buffers, which may then go.
bool json_key(const std::vector<std::string>& path, std::string_view json, std::string& out) {
  const bool found = parse_json_key(path, json, out);
  if (json.size() > kKeptParserBytes) release_thread_parser();
  return found;
}

}  // namespace

bool structured_key(const KeySpec& spec, std::string_view record, std::string& out) {
  out.clear();
  if (spec.kind == KeySpec::Kind::kJson) {
    if (json_key(spec.path, record, out)) return true;
    out.clear();
    return false;
  }
  // CDXJ: "SURT TIMESTAMP JSON", the first two fields not empty.
  const size_t surt_end = record.find(' ');
  if (surt_end == 0 || surt_end == std::string_view::npos) return false;
  const size_t time_end = record.find(' ', surt_end + 1);
  if (time_end == surt_end + 1 || time_end == std::string_view::npos) return false;
  switch (spec.kind) {
    case KeySpec::Kind::kCdxjSurt:
      out.assign(record.data(), surt_end);
      return true;
    case KeySpec::Kind::kCdxjTimestamp:
      out.assign(record.data() + surt_end + 1, time_end - surt_end - 1);
      return true;
    default:
      if (json_key(spec.path, record.substr(time_end + 1), out)) return true;
      out.clear();
      return false;
  }
}

}  // namespace gdedup::keys
