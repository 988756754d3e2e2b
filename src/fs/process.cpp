#include "fs/process.h"

#include <unistd.h>

namespace gdedup::fs {

int64_t process_id() { return static_cast<int64_t>(::getpid()); }

}  // namespace gdedup::fs
