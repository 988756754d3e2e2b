// A process with a closed standard stream (descriptor 0, 1 or 2) must not
// give its number to a file of the engine: open(2) hands out the lowest free
// number, and a lock file at 1 would receive the records meant for standard
// output, one at 0 would be read as the input. Each test closes the streams
// in a forked child, so that the test's own stay open, and the child
// reports what went wrong through a pipe.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "file_util.h"
#include "fs/file_ops.h"
#include "fs/folder_walk.h"
#include "fs/live_temporaries.h"
#include "gdedup/frontend/output_writer.h"
#include "gdedup/frontend/path_lock.h"
#include "gdedup/frontend/standard_streams.h"

namespace gdedup::fs {
namespace {

class StandardStreamsTest : public test::TempDirTest {
 protected:
  StandardStreamsTest() : TempDirTest("gdedup_fs_standard_streams") {}
};

// Runs `body` in a forked child that first closes the descriptors in
// `closed`; returns what `body` reported ("" when all was well), or why the
// child did not report.
std::string in_child(std::initializer_list<int> closed, const std::function<std::string()>& body) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return "no pipe: " + error_text(errno);
  // Above the streams, whatever the test process was started with.
  const int from_child = ::fcntl(ends[0], F_DUPFD_CLOEXEC, 10);
  const int to_parent = ::fcntl(ends[1], F_DUPFD_CLOEXEC, 10);
  ::close(ends[0]);
  ::close(ends[1]);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(from_child);
    for (const int fd : closed) ::close(fd);
    const std::string report = body();
    const int err = write_all(to_parent, "the test's pipe", report.data(), report.size());
    ::_exit(err == 0 ? 0 : 1);
  }
  ::close(to_parent);
  std::string report;
  const int err = read_to_end(from_child, report);
  ::close(from_child);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (err != 0) return "cannot read the child's report: " + error_text(err);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "the child failed: " + report;
  return report;
}

// "" while 0, 1 and 2 are all closed; otherwise which one `step` left open.
std::string streams_closed_after(const std::string& step) {
  std::string report;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
      report += step + " left descriptor " + std::to_string(fd) + " open; ";
    }
  }
  return report;
}

// "" when `err` is 0 and the streams are still closed.
std::string succeeded(const std::string& step, int err) {
  if (err != 0) return step + " failed: " + error_text(err) + "; ";
  return streams_closed_after(step);
}

// The same for `open`, which opens a file: and that file is above the
// streams.
std::string opened_above(const std::string& step, const std::function<int(File&)>& open) {
  File file;
  const int err = open(file);
  if (err == 0 && file.fd() <= 2) {
    return step + " gave descriptor " + std::to_string(file.fd()) + "; ";
  }
  return succeeded(step, err);
}

// `file` under a chain of folders longer than PATH_MAX in all, made one
// folder at a time; "" if it could not be made.
std::string make_long_path(const std::string& base) {
  const std::string name(200, 'd');
  std::string path = base;
  int dir = ::open(base.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  while (dir >= 0 && path.size() <= PATH_MAX) {
    ::mkdirat(dir, name.c_str(), 0755);
    const int next = ::openat(dir, name.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ::close(dir);
    dir = next;
    path += "/" + name;
  }
  if (dir < 0) return "";
  const int file = ::openat(dir, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ::close(dir);
  if (file < 0) return "";
  ::close(file);
  return path + "/file";
}

TEST_F(StandardStreamsTest, TheEnginesFilesNeverTakeAClosedStreamsNumber) {
  const std::string long_path = make_long_path(dir_.string());
  ASSERT_FALSE(long_path.empty());
  const std::string report = in_child({0, 1, 2}, [&] {
    std::string r;
    int slot = -1;
    r += opened_above("create_temp_beside",
                      [&](File& file) { return create_temp_beside(path("out"), file, slot); });
    forget_temporary(slot);
    r += opened_above("open_for_writing",
                      [&](File& file) { return open_for_writing(path("w"), file); });
    r += opened_above("open_own_file", [&](File& file) { return open_own_file(path("w"), file); });
    r += opened_above("open_for_reading",
                      [&](File& file) { return open_for_reading(path("w"), file); });
    r += opened_above("open_for_reading_trusted",
                      [&](File& file) { return open_for_reading_trusted(path("w"), file); });
    r += opened_above("open_without_waiting", [&](File& file) {
      FileStatus status;
      return open_without_waiting(path("w"), file, status);
    });
    r += opened_above("open_for_reading, a path past PATH_MAX",
                      [&](File& file) { return open_for_reading(long_path, file); });
    // Each step below holds its descriptor out of sight; while it does,
    // the streams must still be closed.
    PathLock lock, itself;
    r += succeeded("PathLock::acquire", lock.acquire(path("locked"), false));
    r += succeeded("PathLock::lock_itself", itself.lock_itself(path("w")));
    {
      io::OutputWriter writer = io::OutputWriter::create(path("written"), 4096, "output");
      writer.write("records\n", 8);
      r += streams_closed_after("io::OutputWriter::create");
      writer.close();
    }
    FolderFiles found;
    r += succeeded("list_folder_files", list_folder_files(dir_.string(), found));
    r += succeeded("sync_folder", sync_folder(path("w")));
    // Nothing took the number of standard output meanwhile, so a write to
    // it fails as one to a closed stream does.
    if (write_standard_output("x") != EBADF) r += "a write to standard output did not fail; ";
    return r;
  });
  EXPECT_EQ(report, "");
  // The records written through the closed streams' numbers went nowhere
  // else: the lock file was empty and is gone, the output holds its own.
  EXPECT_FALSE(std::filesystem::exists(path("locked.lock")));
  EXPECT_EQ(test::read_bytes(path("written")).size(), 8u);
}

TEST_F(StandardStreamsTest, HeldStreamsRefuseEveryUseAsClosedOnesDo) {
  const std::string report = in_child({0, 1, 2}, [&] {
    std::string r;
    if (const int err = hold_standard_streams()) return "hold_standard_streams: " + error_text(err);
    char byte = 'x';
    for (int fd = 0; fd <= 2; ++fd) {
      if (::fcntl(fd, F_GETFD) == -1) r += "descriptor " + std::to_string(fd) + " not held; ";
      if (::read(fd, &byte, 1) != -1 || errno != EBADF) {
        r += "a read of " + std::to_string(fd) + " did not fail with EBADF; ";
      }
      if (::write(fd, &byte, 1) != -1 || errno != EBADF) {
        r += "a write to " + std::to_string(fd) + " did not fail with EBADF; ";
      }
    }
    // Nor can they be opened by name (a /dev/null would take the writes
    // and read as an empty input).
    File named;
    if (open_for_writing("/dev/stdout", named) == 0) r += "/dev/stdout opened for writing; ";
    if (open_for_reading("/dev/stdin", named) == 0) r += "/dev/stdin opened for reading; ";
    return r;
  });
  EXPECT_EQ(report, "");
}

TEST_F(StandardStreamsTest, HoldingLeavesAnOpenStreamAsItIs) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_EQ(write_all(ends[1], "pipe", "abc", 3), 0);
  ::close(ends[1]);
  const std::string report = in_child({1, 2}, [&] {
    if (::dup2(ends[0], 0) != 0) return std::string("no standard input");
    if (const int err = hold_standard_streams()) return "hold_standard_streams: " + error_text(err);
    std::string read;
    if (const int err = read_to_end(0, read)) return "standard input: " + error_text(err);
    return read == "abc" ? std::string() : "standard input read '" + read + "'";
  });
  ::close(ends[0]);
  EXPECT_EQ(report, "");
}

TEST_F(StandardStreamsTest, AFullStandardOutputIsReported) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full here";
  const std::string report = in_child({}, [&] {
    const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (full < 0 || ::dup2(full, 1) != 1) return std::string("no /dev/full on 1");
    ::close(full);
    std::string r;
    if (write_standard_output("text\n") != ENOSPC) r += "the write did not fail with ENOSPC; ";
    if (close_standard_output() != 0) r += "the close failed; ";
    if (write_standard_output("text\n") != EBADF) r += "a write after the close did not fail; ";
    return r;
  });
  EXPECT_EQ(report, "");
}

}  // namespace
}  // namespace gdedup::fs
