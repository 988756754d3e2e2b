// The resume state section of a checkpoint file, as bytes (docs/FORMAT.md,
// "Checkpoint file"). The filter fields of ResumeState live in the header and
// are not part of this section.
#pragma once

#include <string>

#include "gdedup/checkpoint.h"

namespace gdedup::format {

std::string encode_resume_state(const ResumeState& state);

// Throws Error naming `path` when the bytes do not decode to exactly one
// state (only possible for a file whose checksums were forged).
ResumeState decode_resume_state(const std::string& path, const std::string& bytes);

}  // namespace gdedup::format
