// The command's advice on a failure names only flags of the command that
// failed: every --flag in every advice of every error kind, for every
// command (and jobs with and without --exact), is one its --help lists, or
// one of the command the advice tells to run ("gdedup build --exact").
// merge once advised "--fpr, --capacity or --memory", which it does not take.
#include <map>
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
    ErrorKind::is_checkpoint,   ErrorKind::other_mode,        ErrorKind::key_rules_mismatch,
    ErrorKind::broken_pipe,     ErrorKind::unsupported_format, ErrorKind::input_changed,
    ErrorKind::resume_mismatch, ErrorKind::filter_overfull,
};

// The flags `gdedup COMMAND --help` lists as its own (the option column,
// not flags named in the descriptions), asked once a command.
const std::set<std::string>& flags_of(const std::string& command) {
  static std::map<std::string, std::set<std::string>> known;
  const auto it = known.find(command);
  if (it != known.end()) return it->second;
  const cli_test::Result r = cli_test::run({command, "--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::set<std::string> flags;
  const std::regex option(R"(^\s+(?:-\w, )?(--[a-z][a-z-]*))");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option)) flags.insert(m[1]);
  }
  return known[command] = flags;
}

// Every --flag `text` names that is not a flag of `command`, nor, after
// "gdedup NAME" (an advice to run NAME), of NAME.
std::set<std::string> strangers(const std::string& text, const std::string& command) {
  std::set<std::string> out;
  const std::regex flag(R"(gdedup ([a-z]+)((?: --[a-z][a-z-]*)+)|(--[a-z][a-z-]*))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), flag);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (m[3].matched) {
      if (flags_of(command).count(m[3].str()) == 0) out.insert(m[3].str());
      continue;
    }
    std::istringstream named(m[2].str());
    for (std::string name; named >> name;) {
      if (flags_of(m[1].str()).count(name) == 0) out.insert("gdedup " + m[1].str() + " " + name);
    }
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
    ASSERT_FALSE(flags_of(command).empty()) << command;
    std::vector<AdviceFor> cases = {AdviceFor::named(command)};
    if (cases[0].is_job()) {
      const JobKind kind = command == "dedup"   ? JobKind::kDedup
                           : command == "build" ? JobKind::kBuild
                                                : JobKind::kQuery;
      cases = {AdviceFor::job(kind, false), AdviceFor::job(kind, true)};
    }
    for (const AdviceFor advice : cases) {
      for (const std::string& message : every_message(advice)) {
        EXPECT_TRUE(strangers(message, command).empty())
            << command << (advice.exact ? " --exact" : "") << " advises "
            << joined(strangers(message, command)) << "which it does not take: " << message;
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

// A file of the other mode (a set where a Bloom filter's file belongs, or
// the other way round): the library names the file and what it is, and the
// command says which way round it was, by the job's mode.
TEST(ErrorAdvice, AFileOfTheOtherModeIsToldWhetherToGiveExact) {
  for (const JobKind kind : {JobKind::kDedup, JobKind::kBuild, JobKind::kQuery}) {
    EXPECT_EQ(flag_advice(ErrorKind::other_mode, AdviceFor::job(kind, false)),
              "give --exact to use it");
    EXPECT_EQ(flag_advice(ErrorKind::other_mode, AdviceFor::job(kind, true)),
              "leave out --exact to use it");
  }
  // merge has no --exact: a set of the filter's keys is another command's.
  EXPECT_NE(flag_advice(ErrorKind::other_mode, AdviceFor::named("merge"))
                .find("with gdedup build --exact"),
            std::string::npos);
  EXPECT_EQ(flag_advice(ErrorKind::other_mode, AdviceFor::named("info")), "");
}

// The test's own reading of an advice: a flag after "gdedup NAME" is NAME's.
TEST(ErrorAdvice, AFlagAfterACommandsNameIsThatCommands) {
  REQUIRE_GDEDUP_BIN();
  EXPECT_TRUE(strangers("build a set with gdedup build --exact", "merge").empty());
  EXPECT_EQ(joined(strangers("give --exact to use it", "merge")), "--exact ");
  EXPECT_EQ(joined(strangers("run gdedup merge --exact", "dedup")), "gdedup merge --exact ");
}

}  // namespace
}  // namespace gdedup::cli
