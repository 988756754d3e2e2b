// Running the gdedup binary from tests: $GDEDUP_BIN with arguments, optional
// standard input, and captured stdout, stderr and exit status. Plus scratch
// folders and small file helpers. Header-only; each cli_*_test.cpp includes it.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

namespace cli_test {

struct Result {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
  long max_rss_kib = 0;  // the child's peak resident memory
};

inline std::string binary() {
  const char* bin = std::getenv("GDEDUP_BIN");
  return bin != nullptr ? bin : "";
}

// The command with a usable GPU backend, "" when this build has none:
// gdedup-standin (the CUDA stand-in, tests/cuda_standin) or, in GPU builds,
// gdedup itself (tests/CMakeLists.txt).
inline std::string gpu_binary() {
#if defined(GDEDUP_GPU_CLI)
  return GDEDUP_GPU_CLI;
#else
  return "";
#endif
}

// Fails the calling test when the binary is not known: a skip would pass a
// build whose command is missing. ctest sets GDEDUP_BIN; run alone, set it.
#define REQUIRE_GDEDUP_BIN()                                                  \
  do {                                                                        \
    if (cli_test::binary().empty()) {                                         \
      GTEST_FAIL() << "GDEDUP_BIN is not set: run under ctest, or set it to " \
                      "the built gdedup";                                     \
    }                                                                         \
  } while (0)

// Runs the binary with `args`, feeding `input` on stdin (closed at its end)
// unless `stdin_path` is given, in which case that file is stdin. stdout goes
// to `stdout_path` when given, else it is captured.
struct RunSpec {
  std::vector<std::string> args;
  std::string input;
  std::string stdin_path;
  std::string stdout_path;
  std::string bin;  // the command to run; "" for binary()
};

inline Result run(const RunSpec& spec) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0 || pipe(err_pipe) != 0) {
    throw std::runtime_error("pipe failed");
  }
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (!spec.stdin_path.empty()) {
      const int fd = open(spec.stdin_path.c_str(), O_RDONLY);
      if (fd < 0) _exit(125);
      dup2(fd, 0);
      close(fd);
    } else {
      dup2(in_pipe[0], 0);
    }
    if (!spec.stdout_path.empty()) {
      const int fd = open(spec.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) _exit(125);
      dup2(fd, 1);
      close(fd);
    } else {
      dup2(out_pipe[1], 1);
    }
    dup2(err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      close(fd);
    }
    std::vector<char*> argv;
    std::string bin = spec.bin.empty() ? binary() : spec.bin;
    argv.push_back(bin.data());
    std::vector<std::string> args = spec.args;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  // The child may exit without reading all of stdin: a write must not kill us.
  signal(SIGPIPE, SIG_IGN);
  Result r;
  size_t written = 0;
  bool in_open = true;
  if (spec.input.empty()) {
    close(in_pipe[1]);
    in_open = false;
  } else {
    fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  }
  bool out_open = true, err_open = true;
  char buf[1 << 16];
  while (out_open || err_open) {
    pollfd fds[3];
    int n = 0;
    int out_i = -1, err_i = -1, in_i = -1;
    if (out_open) { fds[n] = {out_pipe[0], POLLIN, 0}; out_i = n++; }
    if (err_open) { fds[n] = {err_pipe[0], POLLIN, 0}; err_i = n++; }
    if (in_open) { fds[n] = {in_pipe[1], POLLOUT, 0}; in_i = n++; }
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("poll failed");
    }
    if (out_i >= 0 && fds[out_i].revents != 0) {
      const ssize_t got = read(out_pipe[0], buf, sizeof buf);
      if (got <= 0) { out_open = false; } else { r.out.append(buf, got); }
    }
    if (err_i >= 0 && fds[err_i].revents != 0) {
      const ssize_t got = read(err_pipe[0], buf, sizeof buf);
      if (got <= 0) { err_open = false; } else { r.err.append(buf, got); }
    }
    if (in_i >= 0 && fds[in_i].revents != 0) {
      const ssize_t put = write(in_pipe[1], spec.input.data() + written, spec.input.size() - written);
      if (put > 0) written += static_cast<size_t>(put);
      if (put < 0 && errno != EAGAIN) written = spec.input.size();  // EPIPE: child is done
      if (written >= spec.input.size()) {
        close(in_pipe[1]);
        in_open = false;
      }
    }
  }
  if (in_open) close(in_pipe[1]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int wstatus = 0;
  rusage usage{};
  while (wait4(pid, &wstatus, 0, &usage) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  r.max_rss_kib = usage.ru_maxrss;
  return r;
}

inline Result run(std::vector<std::string> args, std::string input = "") {
  RunSpec spec;
  spec.args = std::move(args);
  spec.input = std::move(input);
  return run(spec);
}

// An environment variable for the children started while this lives.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

#if defined(GDEDUP_FAULTS_CLI)
// Runs the test-only build of the command (tests/tools/gdedup_faults.cpp),
// in which the nth write of `checkpoint` fails.
inline Result run_failing_write(const std::string& checkpoint, int nth,
                         const std::vector<std::string>& args, const std::string& input = "") {
  ScopedEnv fail("GDEDUP_FAIL_REPLACEMENT", std::to_string(nth) + ":" + checkpoint);
  cli_test::RunSpec spec;
  spec.args = args;
  spec.input = input;
  spec.bin = GDEDUP_FAULTS_CLI;
  return run(spec);
}
#endif

// A fresh folder under $TMPDIR (or /tmp), removed with its files at the end.
class TempDir {
 public:
  TempDir() : TempDir(std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp") {}
  // Under `base` instead (a tmpfs, for tests that make many files).
  explicit TempDir(const std::string& base) {
    std::string tmpl = base + "/gdedup_cli_XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    const std::string cmd = "chmod -R u+rwx '" + path_ + "' 2>/dev/null; rm -rf '" + path_ + "'";
    if (std::system(cmd.c_str()) != 0) {
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void write_file(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// Runs a shell command (compressors); true when it exited 0.
inline bool shell(const std::string& command) { return std::system(command.c_str()) == 0; }

// Lines of `text` split at '\n' (a final line without '\n' included), as
// the tool defines records.
inline std::vector<std::string> split_records(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

inline std::string join_records(const std::vector<std::string>& records) {
  std::string out;
  for (const std::string& r : records) out += r + "\n";
  return out;
}

// `args` followed by `more`: a base command line with a few options added.
inline std::vector<std::string> with(std::vector<std::string> args,
                                     const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The contract computed exactly: the first record of each key (key_of(record)),
// in input order.
template <typename KeyOf>
std::vector<std::string> first_occurrences(const std::vector<std::string>& records, KeyOf key_of) {
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  for (const std::string& r : records) {
    if (seen.insert(key_of(r)).second) out.push_back(r);
  }
  return out;
}

// Options that size a filter far past any test's data (about 1e-9 false
// positives per key), so that the exact answer is the expected one; -q.
inline const std::vector<std::string> kExact = {"--capacity", "1M", "--fpr", "1e-9", "-q"};

// Equal byte strings; on a mismatch, the sizes and the first differing
// offset instead of two dumps of binary data.
inline ::testing::AssertionResult same_bytes(const std::string& a, const std::string& b) {
  if (a == b) return ::testing::AssertionSuccess();
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size()
                                       << ", first difference at byte " << i;
}

// Every stderr line starts with "gdedup: " (and there is at least one).
inline ::testing::AssertionResult all_lines_prefixed(const std::string& err) {
  if (err.empty()) return ::testing::AssertionFailure() << "stderr is empty";
  for (const std::string& line : split_records(err)) {
    if (line.rfind("gdedup: ", 0) != 0) {
      return ::testing::AssertionFailure() << "stderr line without the prefix: " << line;
    }
  }
  return ::testing::AssertionSuccess();
}

// Exactly one stderr line, starting with "gdedup: ".
inline ::testing::AssertionResult one_error_line(const std::string& err) {
  const std::vector<std::string> lines = split_records(err);
  if (lines.size() != 1) {
    return ::testing::AssertionFailure() << lines.size() << " stderr lines: " << err;
  }
  return all_lines_prefixed(err);
}

}  // namespace cli_test
