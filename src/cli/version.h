// The version `gdedup --version` prints; kept equal to project(VERSION) in
// CMakeLists.txt.
#pragma once

namespace gdedup::cli {

inline constexpr const char* kVersion = "0.1.0";

}  // namespace gdedup::cli
