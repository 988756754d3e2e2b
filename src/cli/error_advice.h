// The command line's advice on a library error: the library says what went
// wrong in its own terms and gives the kind (gdedup/error.h); which flag to
// change is the command line's to say.
#pragma once

#include <string>

#include "gdedup/error.h"

namespace gdedup::cli {

// What the failed command held its keys in: the flags that size a Bloom
// filter (--fpr, --memory) are refused in exact mode, which --max-memory
// caps instead.
enum class AdviceFor { kFilter, kExactSet };

// The flags that help with errors of `kind`, as a clause to end a message
// with; empty when no flag helps.
std::string flag_advice(ErrorKind kind, AdviceFor job = AdviceFor::kFilter);

// e.what() with flag_advice(e.kind(), job) added: the line to show the user.
std::string with_advice(const Error& e, AdviceFor job = AdviceFor::kFilter);

}  // namespace gdedup::cli
