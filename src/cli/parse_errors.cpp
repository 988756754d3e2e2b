#include "cli/parse_errors.h"

#include <regex>

namespace gdedup::cli {
namespace {

// What the positional arguments hold, for messages about their number.
std::string positional_noun(const std::string& name) {
  if (name == "files" || name == "filters") return "filter file";
  if (name == "INPUT") return "input";
  return "";
}

// "a,b,c" -> "a, b or c".
std::string alternatives(const std::string& set) {
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t comma = set.find(',', start);
    const std::string item = set.substr(start, comma - start);
    if (!out.empty()) out += comma == std::string::npos ? " or " : ", ";
    out += item;
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

std::string parse_error_text(const std::string& message, const std::string& command) {
  const std::string who = command.empty() ? "gdedup" : command;
  std::smatch m;
  if (std::regex_match(message, m,
                       std::regex(R"((\S+): At Most (\d+) required but received (\d+))"))) {
    return m[1].str() + " was given " + m[3].str() + " times; give it " +
           (m[2].str() == "1" ? std::string("once") : "at most " + m[2].str() + " times");
  }
  if (std::regex_match(message, m,
                       std::regex(R"((\S+): At least (\d+) required but received (\d+))"))) {
    const std::string noun = positional_noun(m[1].str());
    if (noun.empty()) {
      return m[1].str() + " needs at least " + m[2].str() + " values, got " + m[3].str();
    }
    return who + " needs at least " + m[2].str() + " " + noun + "s; " + m[3].str() +
           (m[3].str() == "1" ? " was" : " were") + " given";
  }
  if (std::regex_match(message, m, std::regex(R"((\S+) is required)"))) {
    const std::string noun = positional_noun(m[1].str());
    if (noun.empty()) return m[1].str() + " is required";
    // merge's filters take two or more, but CLI11 says "is required" for none.
    return who + " needs at least " + (command == "merge" ? "2 " + noun + "s" : "one " + noun) +
           "; none was given";
  }
  if (std::regex_match(message, m, std::regex(R"((\S+): \d+ required (\S+) missing)"))) {
    return m[1].str() + " needs a value" + (m[2].str() == "TEXT" ? "" : " (" + m[2].str() + ")");
  }
  if (std::regex_match(message, m,
                       std::regex(R"((\S+): Value (.*) not in range (\S+) to (\S+))"))) {
    return m[1].str() + " " + m[2].str() + ": expected a whole number from " + m[3].str() +
           " to " + m[4].str();
  }
  if (std::regex_match(message, m, std::regex(R"((\S+): Value (.*) is not a whole number)"))) {
    return m[1].str() + " " + m[2].str() + ": expected a whole number";
  }
  if (std::regex_match(message, m, std::regex(R"((\S+): (.*) not in \{(.*)\})"))) {
    return m[1].str() + " " + m[2].str() + ": expected " + alternatives(m[3].str());
  }
  if (std::regex_match(message, m, std::regex(R"([Cc]ould not convert: (\S+) = (.*))"))) {
    return m[1].str() + " takes no value, but was given '" + m[2].str() + "'";
  }
  if (std::regex_match(message, m,
                       std::regex(R"(The following arguments? (?:was|were) not expected: (.*))"))) {
    const std::string what = m[1].str();
    return (what[0] == '-' ? "unknown option " : "unexpected argument ") + what;
  }
  return message;
}

}  // namespace gdedup::cli
