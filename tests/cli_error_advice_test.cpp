// The command's advice on a failure names only flags of the command that
// failed: every --flag in every advice of every error kind, for every
// command (and jobs with and without --exact), is one its --help lists.
// merge once advised "--fpr, --capacity or --memory", which it does not take.
#include <new>
#include <regex>
#include <set>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

#include "cli/error_advice.cpp"
#include "cli/exit_status.cpp"
#include "cli_util.h"

namespace gdedup::cli {
namespace {

const ErrorKind kKinds[] = {
    ErrorKind::failure,         ErrorKind::invalid_argument,  ErrorKind::io,
    ErrorKind::damaged,         ErrorKind::out_of_memory,     ErrorKind::decoder_memory,
    ErrorKind::thread_limit,    ErrorKind::plan_infeasible,   ErrorKind::device_memory,
    ErrorKind::no_device,       ErrorKind::set_full,          ErrorKind::record_too_long,
    ErrorKind::is_checkpoint,   ErrorKind::key_rules_mismatch, ErrorKind::broken_pipe,
    ErrorKind::unsupported_format, ErrorKind::input_changed,  ErrorKind::resume_mismatch,
    ErrorKind::filter_overfull,
};

// The flags `gdedup COMMAND --help` lists as its own (the option column,
// not flags named in the descriptions).
std::set<std::string> flags_of(const std::string& command) {
  const cli_test::Result r = cli_test::run({command, "--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::set<std::string> flags;
  const std::regex option(R"(^\s+(?:-\w, )?(--[a-z][a-z-]*))");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option)) flags.insert(m[1]);
  }
  return flags;
}

// Every --flag `text` names that `flags` lacks.
std::set<std::string> strangers(const std::string& text, const std::set<std::string>& flags) {
  std::set<std::string> out;
  const std::regex flag(R"(--[a-z][a-z-]*)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), flag);
       it != std::sregex_iterator(); ++it) {
    if (flags.count(it->str()) == 0) out.insert(it->str());
  }
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += n + " ";
  return text;
}

// Every line a failure of each kind, of no Error, and of a thread refused
// gives for `advice`.
std::vector<std::string> every_message(AdviceFor advice) {
  std::vector<std::string> messages;
  for (const ErrorKind kind : kKinds) {
    messages.push_back(flag_advice(kind, advice));
    std::string message;
    failure_status(std::make_exception_ptr(Error("x", kind)), message, advice);
    messages.push_back(message);
  }
  for (const std::exception_ptr& failure :
       {std::make_exception_ptr(std::bad_alloc()),
        std::make_exception_ptr(std::system_error(
            std::make_error_code(std::errc::resource_unavailable_try_again)))}) {
    std::string message;
    failure_status(failure, message, advice);
    messages.push_back(message);
  }
  return messages;
}

TEST(ErrorAdvice, NamesOnlyFlagsOfTheCommandThatFailed) {
  REQUIRE_GDEDUP_BIN();
  for (const std::string command : {"dedup", "build", "query", "merge", "info", "plan", "bench"}) {
    const std::set<std::string> flags = flags_of(command);
    ASSERT_FALSE(flags.empty()) << command;
    std::vector<AdviceFor> cases = {AdviceFor::named(command)};
    if (cases[0].is_job()) {
      const JobKind kind = command == "dedup"   ? JobKind::kDedup
                           : command == "build" ? JobKind::kBuild
                                                : JobKind::kQuery;
      cases = {AdviceFor::job(kind, false), AdviceFor::job(kind, true)};
    }
    for (const AdviceFor advice : cases) {
      for (const std::string& message : every_message(advice)) {
        EXPECT_TRUE(strangers(message, flags).empty())
            << command << (advice.exact ? " --exact" : "") << " advises "
            << joined(strangers(message, flags)) << "which it does not take: " << message;
      }
    }
  }
}

TEST(ErrorAdvice, AMergePastMemoryIsToldOfItsOwnCap) {
  const AdviceFor merge = AdviceFor::named("merge");
  EXPECT_NE(flag_advice(ErrorKind::out_of_memory, merge).find("--max-memory"), std::string::npos);
  EXPECT_NE(flag_advice(ErrorKind::set_full, merge).find("--max-memory"), std::string::npos);
  // A query takes its filter as the file holds it: no size to plan.
  EXPECT_EQ(flag_advice(ErrorKind::out_of_memory, AdviceFor::job(JobKind::kQuery, false)), "");
}

}  // namespace
}  // namespace gdedup::cli
