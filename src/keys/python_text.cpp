#include "keys/python_text.h"

#include <punycode.h>
#include <stringprep.h>
#include <unicase.h>
#include <unictype.h>
#include <uninorm.h>
#include <unistr.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <vector>

#include "keys/bytes.h"

namespace gdedup::keys {
namespace {

// libunistring writes its result into the buffer it is given when that is
// large enough, and otherwise into memory it allocates (NULL when it could
// not). `call(buffer, &length)` is one of its functions with the buffer
// arguments left open; `use(result, length)` takes the result.
template <typename Unit, typename Call, typename Use>
void with_result(Call call, Use use) {
  thread_local std::vector<Unit> buffer(256);
  size_t length = buffer.size();
  Unit* result = call(buffer.data(), &length);
  if (result == nullptr) throw std::bad_alloc();
  const std::unique_ptr<Unit, void (*)(Unit*)> allocated(result == buffer.data() ? nullptr : result,
                                                         [](Unit* p) { std::free(p); });
  use(result, length);
}

const uint8_t* bytes(std::string_view text) {
  return reinterpret_cast<const uint8_t*>(text.data());
}

// encodings.idna's `dots`: the full stop, and the ideographic, fullwidth
// and halfwidth ideographic ones.
bool is_dot(uint32_t c) { return c == '.' || c == 0x3002 || c == 0xFF0E || c == 0xFF61; }

// RFC 3454's table B.1, the characters nameprep maps to nothing, as libidn
// holds it: in ascending order, a range ending at `end`, a single character
// with `end` 0.
bool maps_to_nothing(uint32_t c) {
  for (const Stringprep_table_element* e = stringprep_rfc3454_B_1; e->start != 0; ++e) {
    if (c < e->start) return false;
    if (c == e->start || c <= e->end) return true;
  }
  return false;
}

// ToASCII accepts only labels of 63 characters or fewer after nameprep,
// and nameprep's NFKC joins at most 4 characters into one (no character's
// canonical decomposition is longer, in Unicode 3.2 or 14.0), so a label
// of more characters than this, not counting those mapped to nothing,
// fails. Stopping there spares libidn its quadratic steps on a long label
// (its table mapping moves the rest of the label at each character it
// maps).
constexpr size_t kLongestPreparedLabel = 4 * 63;

// libidn's nameprep profile (RFC 3491) in two parts: its mapping steps
// (tables B.1 and B.2) before NFKC, and its checks after (prohibited
// characters, bidi). Python's NFKC goes between them: see nameprep().
struct NameprepSteps {
  std::vector<Stringprep_profile> mapping;
  std::vector<Stringprep_profile> checks;

  NameprepSteps() {
    bool after_nfkc = false;
    for (const Stringprep_profile* step = stringprep_nameprep; step->operation != 0; ++step) {
      if (step->operation == STRINGPREP_NFKC) {
        after_nfkc = true;
      } else {
        (after_nfkc ? checks : mapping).push_back(*step);
      }
    }
    mapping.push_back({});  // a profile ends with a zero step
    checks.push_back({});
  }
};

// encodings.idna.nameprep(label) into `label`, which comes without the
// characters nameprep maps to nothing; false where it raises.
bool nameprep(std::vector<uint32_t>& label) {
  static const NameprepSteps steps;
  // Python maps each character to the str.lower() of it alone
  // (stringprep.map_table_b3, with Python's Unicode 14.0) before table B.2,
  // whose RFC 3454 form covers Unicode 3.2 only: lowering first gives later
  // characters Python's mapping (Ⰰ → ⰰ, ẞ → ß → ss).
  thread_local std::vector<uint32_t> lowered;
  lowered.clear();
  for (const uint32_t c : label) {
    with_result<uint32_t>(
        [c](uint32_t* buffer, size_t* length) {
          return u32_tolower(&c, 1, nullptr, nullptr, buffer, length);
        },
        [](const uint32_t* text, size_t length) {
          lowered.insert(lowered.end(), text, text + length);
        });
  }
  if (lowered.empty()) return false;  // an empty label
  size_t length = lowered.size();
  lowered.resize(length * STRINGPREP_MAX_MAP_CHARS + 1);  // room for the mappings
  int rc = stringprep_4i(lowered.data(), &length, lowered.size(), Stringprep_profile_flags{},
                         steps.mapping.data());
  if (rc == STRINGPREP_MALLOC_ERROR) throw std::bad_alloc();
  if (rc != STRINGPREP_OK) return false;
  // Python's NFKC for Unicode 3.2 (unicodedata.ucd_3_2_0) orders combining
  // marks by their classes in its own Unicode (14.0), where libidn's NFKC
  // has older ones that miss some (U+035C), and does not decompose what
  // Unicode 3.2 had not assigned: on a label that w3lib has put in NFKC
  // already, that is libunistring's NFKC.
  with_result<uint32_t>(
      [length](uint32_t* buffer, size_t* size) {
        return u32_normalize(UNINORM_NFKC, lowered.data(), length, buffer, size);
      },
      [&label](const uint32_t* text, size_t size) { label.assign(text, text + size); });
  length = label.size();
  rc = stringprep_4i(label.data(), &length, label.size(), Stringprep_profile_flags{},
                     steps.checks.data());
  if (rc == STRINGPREP_MALLOC_ERROR) throw std::bad_alloc();
  return rc == STRINGPREP_OK;
}

bool is_ascii(const std::vector<uint32_t>& label) {
  return std::all_of(label.begin(), label.end(), [](uint32_t c) { return c < 0x80; });
}

// encodings.idna.ToASCII(label), appended to `out`; false where it raises.
// `label` comes without the characters nameprep maps to nothing, and
// `ascii` says whether it was all ASCII with them.
bool append_label(std::vector<uint32_t>& label, bool ascii, std::string& out) {
  if (!ascii && !nameprep(label)) return false;
  if (is_ascii(label)) {  // steps 1 and 4: the label as it is, of 1 to 63 characters
    if (label.empty() || label.size() > 63) return false;
    for (const uint32_t c : label) out += static_cast<char>(c);
    return true;
  }
  // Steps 5 to 8: a label that does not start with "xn--", in punycode
  // after "xn--", of at most 63 characters (and so of at most 59 before,
  // since punycode writes at least a character for each).
  constexpr std::string_view kAce = "xn--";
  constexpr size_t kLongestPunycode = 63 - kAce.size();
  if (label.size() > kLongestPunycode ||
      std::equal(kAce.begin(), kAce.end(), label.begin(),
                 label.begin() + std::min(label.size(), kAce.size()))) {
    return false;
  }
  char punycode[kLongestPunycode];
  size_t length = sizeof punycode;
  if (punycode_encode(label.size(), label.data(), nullptr, &length, punycode) != PUNYCODE_SUCCESS) {
    return false;
  }
  out += kAce;
  out.append(punycode, length);
  return true;
}

// The codec's encode (encodings.idna.Codec.encode) on text that comes a
// character at a time: labels between dots, each through ToASCII as it
// ends, joined with '.'; an empty last label is a final dot, kept as '.'.
// (Its fast path for ASCII text gives the same.)
class LabelWriter {
 public:
  explicit LabelWriter(std::string& out) : out_(out) { label_.clear(); }

  // False once the text must fail.
  bool take(char32_t c) {
    if (is_dot(c)) {
      if (!end_label()) return false;
      out_ += '.';
      after_dot_ = true;
      return true;
    }
    after_dot_ = false;
    empty_ = false;
    ascii_ = ascii_ && c < 0x80;
    if (maps_to_nothing(c)) return true;  // nameprep's first step
    label_.push_back(c);
    return label_.size() <= kLongestPreparedLabel;
  }

  bool finish() { return after_dot_ || end_label(); }

 private:
  bool end_label() {
    const bool ok = !empty_ && append_label(label_, ascii_, out_);
    label_.clear();
    ascii_ = true;
    empty_ = true;
    return ok;
  }

  std::string& out_;
  static thread_local std::vector<uint32_t> label_;  // without what nameprep drops
  bool ascii_ = true;
  bool empty_ = true;  // no character since the last dot
  bool after_dot_ = false;
};

thread_local std::vector<uint32_t> LabelWriter::label_;

void append_utf8(const uint8_t* text, size_t length, std::string& out) {
  out.append(reinterpret_cast<const char*>(text), length);
}

void append_lower(std::string_view text, std::string& out) {
  if (text.empty()) return;
  with_result<uint8_t>(
      [text](uint8_t* buffer, size_t* length) {
        return u8_tolower(bytes(text), text.size(), nullptr, nullptr, buffer, length);
      },
      [&out](const uint8_t* lowered, size_t length) { append_utf8(lowered, length, out); });
}

constexpr std::string_view kCapitalSigma = "\u03A3";

// Whether str.lower() writes the capital sigma at `at` as a final ς:
// Python's handle_capital_sigma, which skips every case-ignorable
// character before and after it, then asks whether the one it reaches
// before is cased and the one after is not (or is the end). Unicode's
// Final_Sigma, which libunistring follows, also takes a character that is
// both cased and case-ignorable (U+0345, ᵀ) as the cased one before.
bool final_sigma(std::string_view text, size_t at) {
  const uint8_t* begin = bytes(text);
  const uint8_t* end = begin + text.size();
  ucs4_t c = 0;
  const uint8_t* p = begin + at;
  do {
    p = u8_prev(&c, p, begin);
  } while (p != nullptr && uc_is_property_case_ignorable(c));
  if (p == nullptr || !uc_is_property_cased(c)) return false;
  p = begin + at + kCapitalSigma.size();
  while (p != end) {
    p += u8_mbtouc_unsafe(&c, p, static_cast<size_t>(end - p));
    if (!uc_is_property_case_ignorable(c)) return !uc_is_property_cased(c);
  }
  return true;
}

}  // namespace

void append_python_lower(std::string_view text, std::string& out) {
  // Each capital sigma on its own, as Python decides it (below); the text
  // between them, which holds no other character whose lowercase depends
  // on its neighbours, through libunistring.
  size_t start = 0;
  while (start < text.size()) {
    const size_t sigma = std::min(text.find(kCapitalSigma, start), text.size());
    append_lower(text.substr(start, sigma - start), out);
    if (sigma == text.size()) break;
    out += final_sigma(text, sigma) ? "\u03C2" : "\u03C3";
    start = sigma + kCapitalSigma.size();
  }
}

bool for_each_nfkc(std::string_view text, const std::function<bool(char32_t)>& take) {
  // libunistring's filter hands each character of the result to deliver(),
  // which no exception may leave (it is called from C).
  struct Stream {
    const std::function<bool(char32_t)>& take;
    bool stopped = false;
    std::exception_ptr error;
  } stream{take, false, nullptr};
  auto deliver = [](void* data, ucs4_t c) {
    auto& s = *static_cast<Stream*>(data);
    if (s.stopped) return 0;
    try {
      s.stopped = !s.take(static_cast<char32_t>(c));
    } catch (...) {
      s.error = std::current_exception();
      s.stopped = true;
    }
    return 0;
  };
  const std::unique_ptr<uninorm_filter, int (*)(uninorm_filter*)> filter(
      uninorm_filter_create(UNINORM_NFKC, deliver, &stream), uninorm_filter_free);
  if (filter == nullptr) throw std::bad_alloc();
  const uint8_t* p = bytes(text);
  const uint8_t* const end = p + text.size();
  while (p != end && !stream.stopped) {
    ucs4_t c = 0;
    p += u8_mbtouc_unsafe(&c, p, static_cast<size_t>(end - p));
    if (uninorm_filter_write(filter.get(), c) != 0) throw std::bad_alloc();
  }
  if (!stream.stopped && uninorm_filter_flush(filter.get()) != 0) throw std::bad_alloc();
  if (stream.error) std::rethrow_exception(stream.error);
  return !stream.stopped;
}

bool append_python_nfkc_idna(std::string_view text, std::string& out) {
  const size_t written = out.size();
  LabelWriter writer(out);
  if (for_each_nfkc(text, [&writer](char32_t c) { return writer.take(c); }) && writer.finish()) {
    return true;
  }
  out.resize(written);
  return false;
}

}  // namespace gdedup::keys
