// The one message for an input file found changed while it was read, shared
// by the sequential reader (fd_source.h) and positional reads
// (random_access.h): the output of such a run holds neither version.
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/error.h"

namespace gdedup::io {

// ErrorKind::input_changed. `was` and `now` are the file's sizes when opened
// and now; `progress` says how far reading got ("after N bytes were read").
Error input_changed_error(const std::string& name, uint64_t was, uint64_t now,
                          const std::string& progress);

}  // namespace gdedup::io
