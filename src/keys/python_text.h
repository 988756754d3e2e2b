// The Python text functions that w3lib applies to a host that is not ASCII,
// on UTF-8, as Python 3.11 computes them: str.lower() and
// unicodedata.normalize("NFKC", ...) with its Unicode 14.0 tables (from
// libunistring 1.0, which has the same ones), and str.encode("idna"), the
// IDNA 2003 codec of Lib/encodings/idna.py (RFC 3490's ToASCII with
// nameprep and Unicode 3.2 tables, from libidn 1.x).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gdedup::keys {

// The arguments are valid UTF-8.

// Appends str.lower(text) to `out`: full lowercase mappings, and a final
// capital sigma as ς.
void append_python_lower(std::string_view text, std::string& out);

// unicodedata.normalize("NFKC", text), a character at a time: `take(c)`
// gets each character of the result in order, and returns false to stop
// there (for_each_nfkc then returns false too). However long the text,
// only a run of combining marks is held at once.
bool for_each_nfkc(std::string_view text, const std::function<bool(char32_t)>& take);

// Appends unicodedata.normalize("NFKC", text).encode("idna") to `out` and
// returns true, or returns false, appending nothing, where Python raises
// UnicodeError (an empty or too long label, a prohibited character, a bidi
// violation, a label of other characters that starts with "xn--"). The
// NFKC form is never held whole: a long host that must fail fails at its
// first label that is too long.
bool append_python_nfkc_idna(std::string_view text, std::string& out);

}  // namespace gdedup::keys
