// gdedup-faults: the gdedup command built with this file, for tests only.
// With GDEDUP_FAIL_REPLACEMENT=N:PATH in its environment, the Nth write of
// file PATH fails (failing_replacement.h), so tests/cli_checkpoint_test.cpp
// and tests/hostile can drive a failing checkpoint write through the command.
// The shipped command and the library have no such hook.
#include <cstdlib>
#include <memory>
#include <string>

#include "failing_replacement.h"

namespace {

std::unique_ptr<gdedup::test::FailingReplacement> install_from_environment() {
  const char* spec = std::getenv("GDEDUP_FAIL_REPLACEMENT");
  if (spec == nullptr) return nullptr;
  const std::string text = spec;
  const size_t colon = text.find(':');
  if (colon == std::string::npos) std::abort();  // a broken test, not a user error
  return std::make_unique<gdedup::test::FailingReplacement>(
      text.substr(colon + 1), std::strtoull(text.c_str(), nullptr, 10));
}

// Installed before main runs; fs::set_observer's variable is constant-initialized.
const auto g_fault = install_from_environment();

}  // namespace
