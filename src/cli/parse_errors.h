// CLI11's parse errors in our words: one sentence that names the option and
// the value, lowercase-led, without CLI11's terse forms ("--capacity: At Most
// 1 required but received 2", "files is required").
#pragma once

#include <string>

namespace gdedup::cli {

// `message` is CLI::ParseError::what(); `command` the subcommand it came
// from ("" for none). Messages of no known form come back unchanged.
std::string parse_error_text(const std::string& message, const std::string& command);

}  // namespace gdedup::cli
