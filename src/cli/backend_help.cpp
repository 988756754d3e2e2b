#include "cli/backend_help.h"

#include "cli/flags.h"

namespace gdedup::cli {

std::string backend_choices_help() {
  std::string help = "auto (the first usable of " + backend_names() + ")";
  for (const BackendEntry& e : backend_registry()) {
    help += "; " + e.name + ": " + backend_summary(e);
  }
  return help;
}

std::string backend_summary(const BackendEntry& entry) {
  return entry.uses_device ? entry.summary + " (" + flag::kDevice + " N)" : entry.summary;
}

}  // namespace gdedup::cli
