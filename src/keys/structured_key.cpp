#include "keys/structured_key.h"

#include <simdjson.h>

#include <cstring>
#include <vector>

namespace gdedup::keys {
namespace {

namespace od = simdjson::ondemand;
namespace dom = simdjson::dom;
using simdjson::SUCCESS;

// Deeper values are refused as not JSON: each level costs stack here.
constexpr int kMaxDepth = 1024;
// The DOM parser refuses a value at its max_depth or deeper.
constexpr size_t kDomMaxDepth = kMaxDepth + 1;
// A parser holds about twice the largest record it parsed; past this, the
// memory goes back once the record is done, not at the thread's end.
constexpr size_t kKeptParserBytes = size_t{1} << 20;

// One per thread: simdjson's parsers keep state between documents, and the
// record is copied into a buffer with SIMDJSON_PADDING readable bytes after
// it (a record in a batch may end where its mapping does). Strict reading
// parses with the DOM parser first: it checks a whole record in about two
// thirds of the time an On-Demand walk of every value takes (bench/RESULTS.md,
// 2026-12-07), as fast as the default reading.
struct ThreadParser {
  od::parser parser;
  dom::parser whole;
  std::vector<char> padded;
  size_t size = 0;  // the record's bytes at the start of `padded`

  void take(std::string_view json) {
    if (padded.size() < json.size() + simdjson::SIMDJSON_PADDING) {
      padded.resize(json.size() + simdjson::SIMDJSON_PADDING + json.size() / 2);
    }
    std::memcpy(padded.data(), json.data(), json.size());
    std::memset(padded.data() + json.size(), 0, simdjson::SIMDJSON_PADDING);
    size = json.size();
  }

  simdjson::simdjson_result<od::document> iterate() {
    return parser.iterate(padded.data(), size, padded.size());
  }

  simdjson::simdjson_result<dom::element> parse_whole() {
    if (whole.max_depth() != kDomMaxDepth) {
      const simdjson::error_code e = whole.allocate(size, kDomMaxDepth);
      if (e != SUCCESS) return e;
    }
    return whole.parse(reinterpret_cast<const uint8_t*>(padded.data()), size, false);
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
  p.whole = dom::parser();
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

// The member's name as written, when it has no backslash: then it is its
// own unescaped text (stage 1 checked its UTF-8 and its closing quote), and
// is compared in place: unescaping every name before the one sought doubled
// the time a record took.
bool plain_name(od::field& member, std::string_view& name) {
  const char* const raw = member.key().raw();
  const char* end = raw;
  while (*end != '"' && *end != '\\') ++end;
  name = std::string_view(raw, static_cast<size_t>(end - raw));
  return *end == '"';
}

// The member's name, unescaped; false when its escapes are not JSON.
bool member_name(od::field& member, std::string_view& name) {
  return plain_name(member, name) || member.unescaped_key().get(name) == SUCCESS;
}

// Whether the string `v` is JSON. Stage 1 checked its UTF-8, its control
// bytes and its closing quote, so one without a backslash is; escapes are
// checked by unescaping it. Either way it is read, not left to be skipped:
// skipped, a string followed by ':' would be taken for a member's name.
bool string_is_json(od::value& v) {
  const char* p = v.raw_json_token().data() + 1;
  while (*p != '"' && *p != '\\') ++p;
  od::raw_json_string raw;
  std::string_view s;
  return *p == '"' ? v.get_raw_json_string().get(raw) == SUCCESS
                   : v.get_string().get(s) == SUCCESS;
}

// Whether `v` is JSON, every value in it read; writes nothing.
bool is_json(od::value v, int depth) {
  if (depth > kMaxDepth) return false;
  od::json_type type;
  if (v.type().get(type) != SUCCESS) return false;
  switch (type) {
    case od::json_type::string:
      return string_is_json(v);
    case od::json_type::number:
      return is_json_number(trim_space(v.raw_json_token()));
    case od::json_type::boolean: {
      bool b;
      return v.get_bool().get(b) == SUCCESS;
    }
    case od::json_type::null: {
      bool null = false;
      return v.is_null().get(null) == SUCCESS && null;
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a) != SUCCESS) return false;
      for (auto element : a) {
        od::value e;
        if (std::move(element).get(e) != SUCCESS || !is_json(e, depth + 1)) return false;
      }
      return true;
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o) != SUCCESS) return false;
      for (auto member : o) {
        od::field f;
        if (std::move(member).get(f) != SUCCESS) return false;
        std::string_view name;
        if (!member_name(f, name) || !is_json(f.value(), depth + 1)) return false;
      }
      return true;
    }
  }
  return false;
}

// The key of the value `v` the path leads to: a string's bytes, not its
// JSON text; another value's canonical text.
bool value_key(od::value v, std::string& out, int depth) {
  od::json_type type;
  if (v.type().get(type) != SUCCESS) return false;
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s) != SUCCESS) return false;
    out.assign(s.data(), s.size());
    return true;
  }
  return write_canonical(v, out, depth);
}

// The key at path[step..] of `node`: the first member of the step's name
// of an object, or the element it numbers of an array, then the rest of
// the path in it. By default the walk stops at the key, the values before
// it skipped unread; strictly it reads every other value too, and fails on
// one that is not JSON.
template <bool kStrict, typename Node>
bool key_at(Node& node, const std::vector<std::string>& path, size_t step, std::string& out) {
  const int depth = static_cast<int>(step) + 1;  // of the node's children
  bool found = false;
  // The child the step names is taken; the others are read only strictly.
  const auto child = [&](bool named, od::value v) {
    if (!named) return !kStrict || is_json(v, depth);
    found = true;
    return step + 1 == path.size() ? value_key(v, out, depth)
                                   : key_at<kStrict>(v, path, step + 1, out);
  };
  od::json_type type;
  if (node.type().get(type) != SUCCESS) return false;
  if (type == od::json_type::object) {
    od::object o;
    if (node.get_object().get(o) != SUCCESS) return false;
    for (auto member : o) {
      od::field f;
      std::string_view name;
      if (std::move(member).get(f) != SUCCESS || !member_name(f, name)) return false;
      if (!child(!found && name == path[step], f.value())) return false;
      if (found && !kStrict) return true;
    }
    return found;
  }
  uint64_t index;
  if (type != od::json_type::array || !array_index(path[step], index)) return false;
  od::array a;
  if (node.get_array().get(a) != SUCCESS) return false;
  uint64_t i = 0;
  for (auto element : a) {
    od::value e;
    if (std::move(element).get(e) != SUCCESS) return false;
    if (!child(i++ == index, e)) return false;
    if (found && !kStrict) return true;
  }
  return found;
}

// Whether nothing follows the record's first value: its brackets are
// skipped, by count, to the end of that value.
bool ends_after_its_value(od::document& doc) {
  std::string_view whole;
  return doc.raw_json().get(whole) == SUCCESS &&
         doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
}

// The key of the record in the thread parser, walked with On-Demand (by
// default, or strictly), then the rest of the record skipped by its
// brackets: nothing may follow its first value.
template <bool kStrict>
bool walked_key(const std::vector<std::string>& path, std::string& out) {
  od::document doc;
  return thread_parser().iterate().get(doc) == SUCCESS &&
         key_at<kStrict>(doc, path, 0, out) && ends_after_its_value(doc);
}

// The member named `step` (the first of that name) of an object, or the
// element it numbers of an array, in a record the DOM parser read.
bool dom_step(dom::element& e, const std::string& step) {
  dom::object o;
  if (e.get_object().get(o) == SUCCESS) {
    for (const dom::key_value_pair member : o) {
      if (member.key == step) {
        e = member.value;
        return true;
      }
    }
    return false;
  }
  dom::array a;
  uint64_t index;
  return e.get_array().get(a) == SUCCESS && array_index(step, index) &&
         a.at(index).get(e) == SUCCESS;
}

// Strict: the key of the record in the thread parser, which must be one
// JSON value, every value in it JSON. The DOM parser reads most records:
// one it accepts is JSON, and a string found there is the key. It keeps
// numbers as doubles, so the text of another value comes from a reading
// to it, and it refuses numbers past a double's range, which JSON allows:
// a record it refuses is read again by an On-Demand walk of every value.
bool key_read_whole(const std::vector<std::string>& path, std::string& out) {
  dom::element e;
  if (thread_parser().parse_whole().get(e) == SUCCESS) {
    for (const std::string& step : path) {
      if (!dom_step(e, step)) return false;
    }
    std::string_view s;
    if (e.get_string().get(s) != SUCCESS) return walked_key<false>(path, out);
    out.assign(s.data(), s.size());
    return true;
  }
  return walked_key<true>(path, out);
}

// The key is copied out of the parser's buffers, which may then go.
bool json_key(const std::vector<std::string>& path, std::string_view json, bool strict,
              std::string& out) {
  thread_parser().take(json);
  const bool found = strict ? key_read_whole(path, out) : walked_key<false>(path, out);
  if (json.size() > kKeptParserBytes) release_thread_parser();
  return found;
}

}  // namespace

bool structured_key(const KeySpec& spec, std::string_view record, bool strict_json,
                    std::string& out) {
  out.clear();
  if (spec.kind == KeySpec::Kind::kJson) {
    if (json_key(spec.path, record, strict_json, out)) return true;
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
      if (json_key(spec.path, record.substr(time_end + 1), strict_json, out)) return true;
      out.clear();
      return false;
  }
}

}  // namespace gdedup::keys
