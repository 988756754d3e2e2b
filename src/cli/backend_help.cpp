#include "cli/backend_help.h"

namespace gdedup::cli {

std::string backend_choices_help() {
  std::string help = "auto (the first usable of " + backend_names() + ")";
  for (const BackendEntry& e : backend_registry()) {
    help += "; " + e.name + ": " + backend_summary(e);
  }
  return help;
}

std::string backend_summary(const BackendEntry& entry) {
  return entry.uses_device ? entry.summary + " (--device N)" : entry.summary;
}

}  // namespace gdedup::cli
