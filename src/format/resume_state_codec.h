// The resume state section of a checkpoint file, as bytes (docs/FORMAT.md,
// "Checkpoint file"). The filter fields of ResumeState live in the header and
// are not part of this section.
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/checkpoint.h"

namespace gdedup::format {

std::string encode_resume_state(const ResumeState& state);

// Throws Error naming `path` when the bytes do not decode to exactly one
// state of checkpoint format `version` (only possible for a file whose
// checksums were forged). States before version 6 note no filter file.
ResumeState decode_resume_state(const std::string& path, const std::string& bytes,
                                uint32_t version);

}  // namespace gdedup::format
