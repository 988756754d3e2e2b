// Checks made before any output is created, so that a typo costs nothing:
// every input readable, no output that would overwrite an input.
#pragma once

#include <string>
#include <vector>

namespace gdedup::cli {

// Throws Error (exit 1), worded as opening the input would, for the first
// input that cannot be read; UsageError when standard input is named twice.
void check_inputs(const std::vector<std::string>& inputs);

// Throws UsageError naming both paths when `output` ("-" for standard output)
// is the same file as one of `inputs`: it would be truncated before it is read.
void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs,
                        const char* what);

// Throws Error unless a file can be created at `path` (its folder exists and
// is writable): a filter is saved at the end, so find out at the start.
void check_creatable(const std::string& path);

bool file_exists(const std::string& path);

}  // namespace gdedup::cli
