// The command line's advice on a library error: the library says what went
// wrong in its own terms and gives the kind (gdedup/error.h); which flag to
// change is the command line's to say.
#pragma once

#include <string>

#include "gdedup/error.h"

namespace gdedup::cli {

// The flags that help with errors of `kind`, as a clause to end a message
// with; empty when no flag helps.
std::string flag_advice(ErrorKind kind);

// e.what() with flag_advice(e.kind()) added: the line to show the user.
std::string with_advice(const Error& e);

}  // namespace gdedup::cli
