// The process itself, as the OS names it.
#pragma once

#include <cstdint>

namespace gdedup::fs {

// This process's id (getpid(2)). A child made by fork() gets a new one, so
// a value kept from before tells whether the caller is still that process.
int64_t process_id();

}  // namespace gdedup::fs
