#include "keys/query.h"

#include <algorithm>
#include <cstdint>
#include <cstring>


namespace gdedup::keys {
namespace {

struct Param {
  size_t begin;
  size_t end;
  size_t name_end;
  size_t order;  // input position: makes the sort stable without allocating
};

size_t name_end(const Out& out, size_t begin, size_t end) {
  const void* eq = std::memchr(out.data + begin, '=', end - begin);
  return eq ? static_cast<size_t>(static_cast<const char*>(eq) - out.data) : end;
}

}  // namespace

void copy_query(std::string_view query, const QueryRules& rules, Out& out) {
  const size_t mark = out.size;
  out.put('?');
  if (!rules.rewrites()) {
    copy_part(query, rules.percent, rules.lower, out);
    return;
  }
  // Reused between records, so that sorting allocates only while the
  // largest query seen so far grows.
  thread_local std::vector<Param> params;
  params.clear();
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    if (amp == std::string_view::npos) amp = query.size();
    const size_t begin = out.size;
    // Without sorting the result is written in place, '&' included.
    if (!rules.sort && !params.empty()) out.put('&');
    const size_t part_begin = out.size;
    copy_part(query.substr(pos, amp - pos), rules.percent, rules.lower, out);
    const size_t end = out.size;
    const size_t name = name_end(out, part_begin, end);
    if (end == part_begin || rules.drop.matches(out.view(part_begin, name))) {
      out.size = begin;
    } else {
      params.push_back({part_begin, end, name, params.size()});
    }
    pos = amp + 1;
  }
  if (params.empty()) {
    out.size = mark;
    return;
  }
  if (!rules.sort) return;

  const char* base = out.data;
  std::sort(params.begin(), params.end(), [base](const Param& a, const Param& b) {
    const std::string_view na(base + a.begin, a.name_end - a.begin);
    const std::string_view nb(base + b.begin, b.name_end - b.begin);
    const int c = na.compare(nb);
    return c != 0 ? c < 0 : a.order < b.order;
  });
  const size_t first = mark + 1;
  const size_t staged = out.size;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) out.put('&');
    out.put(out.view(params[i].begin, params[i].end));
  }
  const size_t length = out.size - staged;
  std::memmove(out.data + first, out.data + staged, length);
  out.size = first + length;
}

}  // namespace gdedup::keys
