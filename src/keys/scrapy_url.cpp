#include "keys/scrapy_url.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "keys/bytes.h"
#include "keys/ipv6_text.h"
#include "keys/w3lib_host.h"

namespace gdedup::keys {
namespace {

// The byte sets of w3lib.url (_url.py): each keeps the unreserved bytes and
// the ones named; every other byte is written as %XX with uppercase digits.
constexpr ByteSet kUserinfoSafe("!$&'()*+,");
constexpr ByteSet kPathSafest(":/?@!$&'()*+,;=%");      // also the query's and fragment's
constexpr ByteSet kSpecialQuerySafest(":/?@!$&()*+,;=%");  // no '
constexpr ByteSet kPathSafe(":/?[]@!$&'()*+,;=|%");     // the canonical path's
constexpr ByteSet kNone("");

constexpr std::string_view kSpecialSchemes[] = {"ftp", "file", "http", "https", "ws", "wss"};
// urllib.parse.uses_params and uses_netloc, which urlparse and urlunsplit follow.
// Python 3.11's lists: w3lib reads the running Python's.
constexpr std::string_view kUsesParams[] = {
    "",      "ftp",  "hdl",   "prospero", "http", "imap", "https", "shttp",
    "rtsp",  "rtsps", "rtspu", "sip",      "sips", "mms",  "sftp",  "tel"};
constexpr std::string_view kUsesNetloc[] = {
    "ftp",   "http",    "gopher", "nntp",  "telnet", "imap",  "wais",    "file", "mms",
    "https", "shttp",   "snews",  "prospero", "rtsp", "rtsps", "rtspu", "rsync", "svn",
    "svn+ssh", "sftp",  "nfs",    "git",   "git+ssh", "ws",    "wss"};

template <size_t N>
bool one_of(std::string_view s, const std::string_view (&set)[N]) {
  return std::find(set, set + N, s) != set + N;
}

constexpr char kHex[] = "0123456789ABCDEF";

void quote(std::string_view in, const ByteSet& safe, bool plus, std::string& out) {
  for (const char c : in) {
    const auto b = static_cast<unsigned char>(c);
    if (is_unreserved(b) || safe[c]) {
      out += c;
    } else if (plus && c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
}

// w3lib's _unquote (with `plus`, _unquote_plus): "%HH" becomes its byte, a
// '%' without two hex digits stays. With `keep`, the escapes of the bytes it
// names stay escaped, in uppercase (_unquotepath: %25, %2F, %3B, %3F).
void unquote(std::string_view in, bool plus, const ByteSet& keep, std::string& out) {
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%' && i + 2 < in.size() && is_hex(static_cast<unsigned char>(in[i + 1])) &&
        is_hex(static_cast<unsigned char>(in[i + 2]))) {
      const char b = static_cast<char>(hex_value(static_cast<unsigned char>(in[i + 1])) * 16 +
                                       hex_value(static_cast<unsigned char>(in[i + 2])));
      if (keep[b]) {
        out += '%';
        out += to_upper(in[i + 1]);
        out += to_upper(in[i + 2]);
      } else {
        out += b;
      }
      i += 2;
    } else {
      out += plus && c == '+' ? ' ' : c;
    }
  }
}

// A port as urlsplit's SplitResult.port takes it: ASCII digits of a number
// up to 65535, written back without leading zeros. False otherwise.
bool canonical_port(std::string_view port, std::string& out) {
  if (port.empty()) return false;
  uint32_t value = 0;
  for (const char c : port) {
    if (!is_digit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + static_cast<uint32_t>(c - '0');
    if (value > 65535) return false;
  }
  out += std::to_string(value);
  return true;
}

// The query sorted as parse_qsl(keep_blank_values=True) then urlencode give
// it: names and values decoded, pairs in byte order, written back encoded.
void canonical_query(std::string_view query, std::string& out) {
  thread_local std::vector<std::pair<std::string, std::string>> pairs;
  size_t count = 0;
  while (true) {
    const size_t amp = query.find('&');
    const std::string_view field = query.substr(0, amp);
    if (!field.empty()) {
      if (pairs.size() == count) pairs.emplace_back();
      auto& [name, value] = pairs[count++];
      name.clear();
      value.clear();
      const size_t eq = field.find('=');
      unquote(field.substr(0, eq), true, kNone, name);
      if (eq != std::string_view::npos) unquote(field.substr(eq + 1), true, kNone, value);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  std::sort(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(count));
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out += '&';
    quote(pairs[i].first, kNone, true, out);
    out += '=';
    quote(pairs[i].second, kNone, true, out);
  }
}

// RFC 3986's remove_dot_segments on a path that starts with '/', as w3lib's
// _remove_dot_segments does it.
void remove_dot_segments(std::string& path) {
  if (path.find("/.") == std::string::npos) return;
  thread_local std::vector<std::string_view> kept;
  thread_local std::string source;
  kept.clear();
  source.assign(path);
  std::string_view rest = std::string_view(source).substr(1);
  while (true) {
    const size_t slash = rest.find('/');
    const std::string_view segment = rest.substr(0, slash);
    const bool last = slash == std::string_view::npos;
    if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
      if (last) kept.emplace_back();
    } else if (segment == ".") {
      if (last) kept.emplace_back();
    } else {
      kept.push_back(segment);
    }
    if (last) break;
    rest.remove_prefix(slash + 1);
  }
  path.clear();
  for (const std::string_view segment : kept) {
    path += '/';
    path += segment;
  }
  if (kept.empty()) path = "/";
}

// The length of the valid UTF-8 character that starts at `s[i]` (a byte
// above 0x7F), or 0 where Python's decoder reports an error at that byte.
size_t utf8_char_size(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) low = 0xA0;
    if (b == 0xED) high = 0x9F;  // no surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) low = 0x90;
    if (b == 0xF4) high = 0x8F;  // up to U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF)) return 0;
  }
  return n;
}

// Appends byte `b` as %XX, as w3lib writes a byte that is not UTF-8.
void append_escaped(unsigned char b, std::string& out) {
  out += '%';
  out += kHex[b >> 4];
  out += kHex[b & 15];
}

// The URL with what _strip and urlsplit remove taken out: bytes up to 0x20
// at both ends, tabs and line breaks anywhere. w3lib decodes the URL before
// it removes them, so a byte that a tab or line break parts from the rest of
// its UTF-8 character is not UTF-8 there: it is written as %XX, as w3lib
// writes it (the parts that keep a byte above 0x7F write it as %XX too).
std::string_view stripped(std::string_view url, std::string& buffer) {
  url = trim_spaces(url);
  if (url.find_first_of("\t\n\r") == std::string_view::npos) return url;
  buffer.clear();
  for (size_t i = 0; i < url.size(); ++i) {
    const char c = url[i];
    const auto b = static_cast<unsigned char>(c);
    if (c == '\t' || c == '\n' || c == '\r') continue;
    const size_t size = b < 0x80 ? 1 : utf8_char_size(url, i);
    if (size == 0) {
      append_escaped(b, buffer);
    } else {
      buffer.append(url.substr(i, size));
      i += size - 1;
    }
  }
  return buffer;
}

// The scheme as urlsplit's pattern [a-zA-Z][a-zA-Z0-9+.-]*: finds it, or
// npos when the URL has none.
size_t scheme_end(std::string_view url) {
  if (url.empty() || !is_alpha(static_cast<unsigned char>(url[0]))) return std::string_view::npos;
  for (size_t i = 1; i < url.size(); ++i) {
    const auto c = static_cast<unsigned char>(url[i]);
    if (c == ':') return i;
    if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.') break;
  }
  return std::string_view::npos;
}

// w3lib decodes a URL as UTF-8 and writes a byte that does not decode as
// %XX. Puts that text of the authority into `out` where it differs (`out`
// stays empty when the authority has no such byte) and returns whether it
// holds a character above 0x7F, which w3lib hands to NFKC and IDNA.
bool decode_authority(std::string_view netloc, std::string& out) {
  bool characters = false;
  for (size_t i = 0; i < netloc.size(); ++i) {
    const auto b = static_cast<unsigned char>(netloc[i]);
    const size_t size = b < 0x80 ? 1 : utf8_char_size(netloc, i);
    if (size != 0) {
      characters = characters || size > 1;
      if (!out.empty()) out.append(netloc.substr(i, size));
      i += size - 1;
      continue;
    }
    if (out.empty()) out.assign(netloc.substr(0, i));
    append_escaped(b, out);
  }
  return characters;
}

// urlsplit's IPvFuture pattern, v<hex digits>.<anything>, on the host as
// written (a host that starts with 'V' is refused).
bool is_ipv_future(std::string_view host) {
  if (host.size() < 4 || host[0] != 'v') return false;
  size_t i = 1;
  while (i < host.size() && is_hex(static_cast<unsigned char>(host[i]))) ++i;
  return i > 1 && i + 1 < host.size() && host[i] == '.';
}

// A host and port in an authority that has '[' or ']', as urlsplit checks
// them and w3lib writes them: "[IPv6]" in Python's short form, an IPvFuture
// host lowercased (without its brackets when it has no ':', and then
// through IDNA as any host). Sets `port` to the text after "]:". False
// where urlsplit or w3lib raises (on any character above 0x7F but in an
// IPvFuture host without ':'), and for brackets that are not around the
// host (which it reads in ways not copied here).
bool bracketed_host(std::string_view host_port, std::string& out, std::string_view& port) {
  if (host_port.empty() || host_port[0] != '[') return false;
  const size_t close = host_port.find(']');
  if (close == std::string_view::npos) return false;
  const std::string_view after = host_port.substr(close + 1);
  if (!after.empty() && after[0] != ':') return false;
  port = after.empty() ? after : after.substr(1);
  const std::string_view written = host_port.substr(1, close - 1);
  if (written.empty()) return false;
  thread_local std::string host;
  host.clear();
  for (const char c : written) host += to_lower(c);
  if (host.find_first_of("[]") != std::string::npos) return false;
  const bool ascii = is_ascii(written);
  if (written[0] == 'v' || written[0] == 'V') {
    if (!is_ipv_future(written)) return false;
    const bool colon = host.find(':') != std::string::npos;
    if (!ascii) {
      if (colon) return false;
      append_w3lib_host(written, out);
      return true;
    }
    if (colon) out += '[';
    out += host;
    if (colon) out += ']';
    return true;
  }
  if (!ascii) return false;
  out += '[';
  if (!append_python_ipv6(host, out)) return false;
  out += ']';
  return true;
}

struct Parts {
  std::string scheme;
  std::string netloc;
  std::string path;
  std::string query;
  std::string fragment;
};

// safe_url_string's split (_safe_url_split). False where urlsplit raises
// or the authority needs what is not copied here.
bool safe_split(std::string_view url, Parts& p) {
  thread_local std::string strip_buffer;
  thread_local std::string slash_buffer;
  thread_local std::string piece;
  thread_local std::string netloc_buffer;
  netloc_buffer.clear();
  std::string_view rest = stripped(url, strip_buffer);
  p.scheme.clear();
  const size_t colon = scheme_end(rest);
  if (colon != std::string_view::npos) {
    for (size_t i = 0; i < colon; ++i) p.scheme += to_lower(rest[i]);
    rest.remove_prefix(colon + 1);
  }
  const bool special = one_of(p.scheme, kSpecialSchemes);
  if (special && rest.find('\\') != std::string_view::npos) {
    // A backslash is a slash in the authority and path of special schemes.
    const size_t cut = std::min(rest.find('?'), rest.find('#'));
    slash_buffer.assign(rest);
    std::replace(slash_buffer.begin(), slash_buffer.begin() +
                     static_cast<std::ptrdiff_t>(std::min(cut, rest.size())), '\\', '/');
    rest = slash_buffer;
  }

  std::string_view netloc;
  bool characters = false;
  const bool has_netloc = rest.substr(0, 2) == "//";
  if (has_netloc) {
    const size_t delim = std::min(rest.size(), rest.find_first_of("/?#", 2));
    netloc = rest.substr(2, delim - 2);
    rest.remove_prefix(delim);
    characters = decode_authority(netloc, netloc_buffer);
    if (!netloc_buffer.empty()) netloc = netloc_buffer;
    if (characters && nfkc_adds_delimiter(netloc)) return false;
  }
  const size_t hash = rest.find('#');
  const size_t question = rest.find('?');
  const std::string_view fragment =
      hash == std::string_view::npos ? std::string_view() : rest.substr(hash + 1);
  const std::string_view query = question < hash ? rest.substr(question + 1, hash - question - 1)
                                                 : std::string_view();
  const std::string_view path = rest.substr(0, std::min(question, hash));

  p.netloc.clear();
  const size_t at = netloc.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view userinfo = netloc.substr(0, at);
    const size_t sep = userinfo.find(':');
    piece.clear();
    unquote(userinfo.substr(0, sep), false, kNone, piece);
    quote(piece, kUserinfoSafe, false, p.netloc);
    if (sep != std::string_view::npos) {
      p.netloc += ':';
      piece.clear();
      unquote(userinfo.substr(sep + 1), false, kNone, piece);
      quote(piece, kUserinfoSafe, false, p.netloc);
    }
    p.netloc += '@';
  }
  const std::string_view host_port = netloc.substr(at == std::string_view::npos ? 0 : at + 1);
  std::string_view port;
  if (netloc.find_first_of("[]") != std::string_view::npos) {
    if (!bracketed_host(host_port, p.netloc, port)) return false;
  } else {
    const size_t port_colon = host_port.find(':');
    const std::string_view host = host_port.substr(0, port_colon);
    if (characters) {
      append_w3lib_host(host, p.netloc);
    } else {
      for (const char c : host) p.netloc += to_lower(c);
    }
    if (port_colon != std::string_view::npos) port = host_port.substr(port_colon + 1);
  }
  if (!port.empty()) {
    p.netloc += ':';
    if (!canonical_port(port, p.netloc)) return false;
  }

  p.path.clear();
  quote(path, kPathSafest, false, p.path);
  p.query.clear();
  quote(query, special ? kSpecialQuerySafest : kPathSafest, false, p.query);
  p.fragment.clear();
  quote(fragment, kPathSafest, false, p.fragment);
  if (p.path.empty() && !p.query.empty() && special) p.path = "/";
  return true;
}

}  // namespace

bool scrapy_canonicalize(std::string_view url, bool keep_fragments, std::string& out) {
  thread_local Parts p;
  thread_local std::string path;
  if (!safe_split(url, p)) return false;

  std::string_view params;
  std::string_view raw_path = p.path;
  if (one_of(p.scheme, kUsesParams)) {
    const size_t last_slash = raw_path.rfind('/');
    const size_t semi =
        raw_path.find(';', last_slash == std::string_view::npos ? 0 : last_slash + 1);
    if (semi != std::string_view::npos) {
      params = raw_path.substr(semi + 1);
      raw_path = raw_path.substr(0, semi);
    }
  }
  path.clear();
  if (raw_path.empty()) {
    path = "/";
  } else {
    static constexpr ByteSet kKeepEscaped("%/;?");
    thread_local std::string decoded;
    decoded.clear();
    unquote(raw_path, false, kKeepEscaped, decoded);
    quote(decoded, kPathSafe, false, path);
  }
  if (path[0] == '/') remove_dot_segments(path);

  out.clear();
  if (!p.scheme.empty()) {
    out += p.scheme;
    out += ':';
  }
  if (!p.netloc.empty()) {
    out += "//";
    out += p.netloc;
    if (path[0] != '/') out += '/';
  } else if (path.compare(0, 2, "//") == 0 ||
             (!p.scheme.empty() && one_of(p.scheme, kUsesNetloc) && path[0] == '/')) {
    out += "//";
  }
  out += path;
  if (!params.empty()) {
    out += ';';
    out += params;
  }
  if (!p.query.empty()) {
    const size_t before = out.size();
    out += '?';
    canonical_query(p.query, out);
    if (out.size() == before + 1) out.resize(before);
  }
  if (keep_fragments && !p.fragment.empty()) {
    out += '#';
    out += p.fragment;
  }
  return true;
}

}  // namespace gdedup::keys
