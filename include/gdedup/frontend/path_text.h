// A path as a message shows it. A file name may hold any byte but '/' and
// NUL: a newline would break a message in two, a carriage return or an
// escape sequence would overwrite the terminal, and bytes that are not UTF-8
// garble it. Every message that names a path names it through printable().
#pragma once

#include <string>

namespace gdedup::fs {

// `text` with every byte that does not print shown escaped: tab, newline and
// carriage return as \t, \n and \r, other control bytes (C0, DEL, and C1 as
// UTF-8), bytes that are not part of valid UTF-8, and the invisible
// characters that reorder text (bidirectional controls) as \xNN per byte.
// Printable ASCII and other valid UTF-8 stay as they are, a backslash too:
// a file literally named `a\nb` reads the same as one with a newline, a
// rare name that no message can tell apart without quoting every backslash.
std::string printable(const std::string& text);

}  // namespace gdedup::fs
