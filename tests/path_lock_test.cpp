// fs::PathLock between real processes: a held lock is refused at once with
// the holder's pid, waited for when asked, removed when released, and a
// link planted at the lock file's name is refused, not followed; a signal
// handler's remove_live_temporaries() removes a held lock file, and only
// while it is held, and one being taken, unless another process holds it.
#include "gdedup/frontend/path_lock.h"
#include "gdedup/frontend/live_temporaries.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "file_util.h"
#include "lock_holder.h"
#include "fs/live_temporaries.h"

namespace gdedup::fs {
namespace {

using test::Holder;

class PathLockTest : public test::TempDirTest {
 protected:
  PathLockTest() : TempDirTest("gdedup_path_lock") {}
};

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

TEST_F(PathLockTest, AHeldLockIsRefusedNamingItsHolderThenFreed) {
  const std::string target = path("out.txt");
  Holder holder(target);
  ASSERT_TRUE(holder.locked());
  EXPECT_TRUE(exists(target + ".lock"));
  PathLock lock;
  pid_t who = 0;
  EXPECT_EQ(lock.acquire(target, false, &who), EWOULDBLOCK);
  EXPECT_EQ(who, holder.pid());
  EXPECT_FALSE(lock.held());
  holder.release();
  EXPECT_FALSE(exists(target + ".lock")) << "a released lock leaves its file behind";
  EXPECT_EQ(lock.acquire(target, false), 0);
  EXPECT_TRUE(lock.held());
  lock.release();
  EXPECT_FALSE(exists(target + ".lock"));
}

TEST_F(PathLockTest, AWaitingJobGetsTheLockWhenTheHolderEnds) {
  const std::string target = path("f.gdf");
  Holder holder(target);
  ASSERT_TRUE(holder.locked());
  std::atomic<bool> got{false};
  PathLock lock;
  std::thread waiter([&] { got = lock.acquire(target, true) == 0; });
  // No timing assertion: only that the waiter ends up with the lock after
  // the holder let go, and not before (the holder still runs here).
  EXPECT_FALSE(got.load());
  holder.release();
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_TRUE(lock.held());
}

TEST_F(PathLockTest, ALockFileLeftByAKilledJobIsFreeForTheNext) {
  const std::string target = path("out.txt");
  Holder holder(target, true);
  ASSERT_TRUE(holder.locked());
  holder.release();
  EXPECT_TRUE(exists(target + ".lock"));
  PathLock lock;
  EXPECT_EQ(lock.acquire(target, false), 0);
}

TEST_F(PathLockTest, ALinkAtTheLockFileNameIsNotFollowed) {
  const std::string target = path("ck");
  const std::string victim = path("victim");
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(::symlink(victim.c_str(), (target + ".lock").c_str()), 0);
  PathLock lock;
  EXPECT_EQ(lock.acquire(target, false), ELOOP);
  std::ifstream in(victim);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "precious");
  struct stat st {};
  ASSERT_EQ(::lstat((target + ".lock").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

// A file that merely has the lock file's name (an input called out.txt.lock,
// a pipe) is not taken for a lock: released, it would be deleted.
TEST_F(PathLockTest, AFileThatIsNotALockFileIsLeftAlone) {
  const std::string target = path("out.txt");
  std::ofstream(target + ".lock") << "an input\n";
  PathLock lock;
  EXPECT_EQ(lock.acquire(target, false), EEXIST);
  lock.release();
  std::ifstream in(target + ".lock");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "an input");
  const std::string piped = path("p");
  ASSERT_EQ(::mkfifo((piped + ".lock").c_str(), 0644), 0);
  EXPECT_EQ(lock.acquire(piped, false), EEXIST);
  struct stat st {};
  ASSERT_EQ(::lstat((piped + ".lock").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// A lock on the file itself (an output known by a second name, a hard link)
// refuses a second locker of any of its names, and its release removes
// nothing: there is no lock file, and the locked file is the output. A lock
// on a lock file taken before, by the same PathLock, is given up first.
TEST_F(PathLockTest, ALockOnTheFileItselfGuardsEveryNameAndRemovesNothing) {
  const std::string target = path("out.txt");
  const std::string hard = path("hard.txt");
  std::ofstream(target) << "kept\n";
  ASSERT_EQ(::link(target.c_str(), hard.c_str()), 0);
  PathLock first;
  ASSERT_EQ(first.acquire(target, false), 0);
  ASSERT_EQ(first.lock_itself(target), 0);
  EXPECT_FALSE(exists(target + ".lock"));
  EXPECT_TRUE(first.held());
  EXPECT_EQ(first.lock_file(), "");
  if (const pid_t child = ::fork(); child == 0) {
    PathLock second;
    pid_t holder = 0;
    const bool refused = second.lock_itself(hard, &holder) == EWOULDBLOCK &&
                         holder == ::getppid();
    ::_exit(refused ? 0 : 1);
  } else {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  first.release();
  EXPECT_TRUE(exists(target));
  EXPECT_TRUE(exists(hard));
  PathLock missing;
  EXPECT_EQ(missing.lock_itself(path("none.txt")), 0);
  EXPECT_FALSE(missing.held());
}

// What a signal that ends the process at once leaves: no lock file of a
// lock held then, and a lock file another job made after this one let go
// of its own is not removed.
TEST_F(PathLockTest, ASignalHandlerRemovesTheLockFilesHeld) {
  const std::string held = path("held"), released = path("released");
  PathLock a, b;
  ASSERT_EQ(a.acquire(held, false), 0);
  ASSERT_EQ(b.acquire(released, false), 0);
  b.release();
  std::ofstream(lock_file_for(released)).close();  // another job's lock file
  remove_live_temporaries();
  EXPECT_FALSE(exists(lock_file_for(held)));
  EXPECT_TRUE(exists(lock_file_for(released)));
}

// Another process renames a file of its own over a held lock file (gdedup
// merge -o A.lock while a job holds A's lock): neither the holder's release
// nor a signal handler removes that file.
TEST_F(PathLockTest, AFileRenamedOverAHeldLockFileIsNotRemoved) {
  const std::string locked = path("a.gdf");
  const std::string lock = lock_file_for(locked);
  const std::string merged = path("merged.tmp");
  for (const bool by_signal : {false, true}) {
    SCOPED_TRACE(by_signal ? "a signal handler" : "release()");
    PathLock held;
    ASSERT_EQ(held.acquire(locked, false), 0);
    std::ofstream(merged) << "a merged filter";
    ASSERT_EQ(::rename(merged.c_str(), lock.c_str()), 0);
    if (by_signal) remove_live_temporaries();
    held.release();
    std::ifstream in(lock);
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "a merged filter");
    ASSERT_EQ(::unlink(lock.c_str()), 0);
  }
}

// A signal that strikes while a lock is being taken: between the open that
// creates the lock file and the open's return, and between that and the
// flock. acquire() registers the name before the open and the descriptor
// before the flock; the file goes unless another process holds its lock or
// it is no lock file (not empty).
TEST_F(PathLockTest, ASignalWhileALockIsTakenRemovesItsFileUnlessAnotherHoldsIt) {
  const std::string lock = lock_file_for(path("a.gdf"));
  for (const bool opened : {false, true}) {
    for (const char* other : {"none", "holds the lock", "wrote to it"}) {
      SCOPED_TRACE(std::string(opened ? "opened" : "being opened") + ", another process " + other);
      const int slot = register_lock_file(lock);
      ASSERT_GE(slot, 0);
      const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      ASSERT_GE(fd, 0);
      if (opened) lock_file_opened(slot, fd);
      const bool holds = std::string(other) == "holds the lock";
      const bool wrote = std::string(other) == "wrote to it";
      const int another = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);  // its own open file
      ASSERT_GE(another, 0);
      if (holds) {
        ASSERT_EQ(::flock(another, LOCK_EX | LOCK_NB), 0);
      }
      if (wrote) {
        ASSERT_EQ(::write(another, "x", 1), 1);
      }
      remove_live_temporaries();
      EXPECT_EQ(exists(lock), holds || wrote);
      lock_file_opened(slot, -1);
      forget_temporary(slot);
      ::close(another);
      ::close(fd);
      ::unlink(lock.c_str());
    }
  }
}

}  // namespace
}  // namespace gdedup::fs
