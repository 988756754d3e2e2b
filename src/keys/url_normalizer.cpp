#include "keys/url_normalizer.h"

#include <cstring>

#include "keys/scrapy_url.h"

namespace gdedup::keys {
namespace {

// The length of "scheme" in "scheme://...", or 0 when `key` is not a URL.
size_t url_scheme_size(std::string_view key) {
  if (key.empty() || !is_alpha(static_cast<unsigned char>(key[0]))) return 0;
  size_t i = 1;
  while (i < key.size()) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.') break;
    ++i;
  }
  if (key.substr(i, 3) != "://") return 0;
  return i;
}

// Schemes with a default port; for these an empty path means "/" too.
int default_port(std::string_view scheme) {
  if (iequals(scheme, "http") || iequals(scheme, "ws")) return 80;
  if (iequals(scheme, "https") || iequals(scheme, "wss")) return 443;
  if (iequals(scheme, "ftp")) return 21;
  return -1;
}

struct Authority {
  size_t end;  // the first '/', '?' or '#', or the end of the URL
  size_t at;   // the last '@' before `end`, or npos
};

// One pass for both, by table: string_view::find_first_of would call memchr
// once per byte.
Authority scan_authority(std::string_view s, size_t from) {
  static constexpr ByteSet kStops("/?#@");
  Authority a{s.size(), std::string_view::npos};
  for (size_t i = from; i < s.size(); ++i) {
    if (!kStops[s[i]]) continue;
    if (s[i] != '@') {
      a.end = i;
      break;
    }
    a.at = i;
  }
  return a;
}

size_t find_or_end(std::string_view s, char c, size_t from, size_t end) {
  const void* hit = std::memchr(s.data() + from, c, end - from);
  return hit ? static_cast<size_t>(static_cast<const char*>(hit) - s.data()) : end;
}

}  // namespace

UrlNormalizer::UrlNormalizer(const NormalizeRules& rules)
    : rules_(rules), parse_urls_(rules.touches_urls() || rules.lowercase) {
  percent_.uppercase = rules.uppercase_percent;
  percent_.decode_unreserved = rules.decode_unreserved;
  query_.percent = percent_;
  query_.lower = rules.lowercase;
  query_.sort = rules.sort_query;
  query_.drop = NameFilter(rules.drop_params);
}

std::string_view UrlNormalizer::normalize(std::string_view key, std::string& scratch) const {
  if (rules_.scrapy) {
    // Where w3lib raises, or the key needs what scrapy_url.cpp does not copy,
    // the key is hashed as it is (docs/KEYS.md).
    if (!scrapy_canonicalize(key, rules_.keep_fragments, scratch)) return key;
    return scratch;
  }
  std::string_view out = normalize_once(key, scratch);
  if (!rules_.trim || out.empty() ||
      !is_space_or_control(static_cast<unsigned char>(out.back()))) {
    return out;
  }
  // Dropping a fragment, parameters or slashes can leave whitespace at the
  // end, which the next run would trim and then maybe drop more behind it.
  // Repeat until stable: every repeat trims at least one byte and nothing
  // grows a key that has been through once, so this ends.
  thread_local std::string again;
  do {
    again.assign(out);
    out = normalize_once(again, scratch);
  } while (!out.empty() && is_space_or_control(static_cast<unsigned char>(out.back())));
  if (out.data() != scratch.data()) {
    // A view of `again`: the contract is a view of `key` or of `scratch`.
    std::memmove(scratch.data(), out.data(), out.size());
    out = std::string_view(scratch.data(), out.size());
  }
  return out;
}

std::string_view UrlNormalizer::normalize_once(std::string_view key, std::string& scratch) const {
  const std::string_view in = rules_.trim ? trim_spaces(key) : key;
  const size_t scheme_size = parse_urls_ ? url_scheme_size(in) : 0;
  if (scheme_size == 0) {
    if (!rules_.lowercase) return in;
    size_t i = 0;
    while (i < in.size() && !is_upper(static_cast<unsigned char>(in[i]))) ++i;
    if (i == in.size()) return in;
    if (scratch.size() < in.size()) scratch.resize(in.size());
    for (size_t j = 0; j < in.size(); ++j) scratch[j] = to_lower(in[j]);
    return std::string_view(scratch.data(), in.size());
  }
  // Room for the worst case: one added '/', and sorting stages a second
  // copy of the query (see copy_query).
  const size_t need = 2 * in.size() + 16;
  if (scratch.size() < need) scratch.resize(need);
  Out out{scratch.data()};
  normalize_url(in, scheme_size, out);
  const std::string_view result(out.data, out.size);
  return result == in ? in : result;
}

void UrlNormalizer::normalize_url(std::string_view url, size_t scheme_size, Out& out) const {
  const std::string_view scheme = url.substr(0, scheme_size);
  const bool lower_scheme = rules_.lowercase_scheme || rules_.lowercase;
  for (char c : scheme) out.put(lower_scheme ? to_lower(c) : c);
  out.put("://");

  // Parts end at the first delimiter that can end them; decoding never
  // produces '/', '?', '#', '@' or ':', so a later run splits the same way.
  const size_t authority_begin = scheme_size + 3;
  const Authority authority = scan_authority(url, authority_begin);
  const size_t path_begin = authority.end;
  const size_t hash = find_or_end(url, '#', path_begin, url.size());
  const size_t question = find_or_end(url, '?', path_begin, hash);

  size_t host_begin_in = authority_begin;
  if (authority.at != std::string_view::npos) {
    copy_part(url.substr(authority_begin, authority.at - authority_begin), percent_,
              rules_.lowercase, out);
    out.put('@');
    host_begin_in = authority.at + 1;
  }
  const std::string_view host_port = url.substr(host_begin_in, path_begin - host_begin_in);
  const int port = default_port(scheme);
  const size_t host_begin = out.size;
  copy_part(host_port, percent_, rules_.lowercase_host || rules_.lowercase, out);
  HostPortRules host_rules;
  host_rules.drop_host_dot = rules_.drop_host_dot;
  host_rules.drop_www = rules_.drop_www;
  host_rules.default_port = rules_.drop_default_port ? port : -1;
  host_rules.drop_empty_port = rules_.drop_default_port;
  rewrite_host_port(host_rules, host_begin, out);

  const size_t path_out = out.size;
  copy_part(url.substr(path_begin, question - path_begin), percent_, rules_.lowercase, out);
  if (rules_.drop_trailing_slash) {
    while (out.size - path_out > 1 && out.data[out.size - 1] == '/') --out.size;
  }
  if (rules_.add_root_slash && port >= 0 && out.size == path_out) out.put('/');

  if (question < hash) copy_query(url.substr(question + 1, hash - question - 1), query_, out);
  if (hash < url.size() && !rules_.drop_fragment) {
    out.put('#');
    copy_part(url.substr(hash + 1), percent_, rules_.lowercase, out);
  }
}

}  // namespace gdedup::keys
