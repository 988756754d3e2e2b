// CLI11's classes by name only: the headers that declare the functions
// which fill a command line need no more, and CLI11's header costs every
// file that includes it seconds of compiling. The files that call CLI11
// include <CLI/CLI.hpp> themselves.
#pragma once

namespace CLI {
class App;
class Option;
}  // namespace CLI
