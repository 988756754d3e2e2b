// SaveGuard (gdedup/guarded_save.h) between real processes and writers: a
// save is refused, its file untouched and its write never run, while
// another process holds the file's lock, and when another writer changed
// the file since this program read or wrote it (replaced by rename, or
// written in place); a save of the program's own last version, after a
// reload, after a merge of the file, or to a file never read goes through.
#include "gdedup/guarded_save.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "file_util.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "lock_holder.h"

namespace gdedup {
namespace {

class GuardedSaveTest : public test::TempDirTest {
 protected:
  GuardedSaveTest() : TempDirTest("gdedup_guarded_save") {}

  // A filter file of `keys` keys at `file`: another writer's save.
  static void save_keys(const std::string& file, int keys) {
    save_filter(test::filter_with_keys(FilterParams{4, {256, 8}, kDefaultSeed}, keys, 1e-4),
                file);
  }

  // A guard that read `file`, a filter file of `keys` keys saved first.
  static SaveGuard reader_of(const std::string& file, int keys,
                             SavedKind kind = SavedKind::kFilter, std::string advice = "") {
    save_keys(file, keys);
    SaveGuard guard(kind, std::move(advice));
    guard.note_read(file);
    return guard;
  }

  // guard.save of a filter of `keys` keys, counting the writes run.
  void save_through(SaveGuard& guard, const std::string& file, int keys) {
    guard.save(file, [&] {
      ++writes;
      save_keys(file, keys);
    });
  }

  // What guard.save of `file` throws (its kind and message), the file's
  // bytes and the writes run checked to be unchanged.
  Error refusal(SaveGuard& guard, const std::string& file) {
    const test::Bytes before = test::read_bytes(file);
    const int writes_before = writes;
    try {
      save_through(guard, file, 99);
    } catch (const Error& e) {
      EXPECT_EQ(test::read_bytes(file), before) << "a refused save changed " << file;
      EXPECT_EQ(writes, writes_before) << "a refused save ran its write";
      return e;
    }
    ADD_FAILURE() << "the save of " << file << " was not refused";
    return Error("not refused");
  }

  int writes = 0;
};

bool has(const Error& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

TEST_F(GuardedSaveTest, ASaveIsRefusedWhileAnotherProcessHoldsTheLock) {
  const std::string file = path("seen.gdf");
  SaveGuard guard = reader_of(file, 10);
  test::Holder holder(file);
  ASSERT_TRUE(holder.locked());
  const Error e = refusal(guard, file);
  EXPECT_EQ(e.kind(), ErrorKind::io);
  EXPECT_TRUE(has(e, "the filter " + file + " is in use by process " +
                         std::to_string(holder.pid()) + " (a gdedup job"))
      << e.what();
  // A new file is guarded by the lock alike.
  const std::string fresh = path("new.gdf");
  test::Holder fresh_holder(fresh);
  SaveGuard new_guard(SavedKind::kSet);
  EXPECT_THROW(save_through(new_guard, fresh, 5), Error);
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_EQ(writes, 0);
  holder.release();
  save_through(guard, file, 20);
  EXPECT_EQ(writes, 1);
  EXPECT_EQ(load_filter(file).counters().insertions, 20u);
  EXPECT_FALSE(std::filesystem::exists(file + ".lock")) << "the save left its lock file";
}

TEST_F(GuardedSaveTest, ASaveOverAFileAnotherWriterReplacedIsRefusedUntilReloaded) {
  const std::string file = path("seen.gdf");
  SaveGuard ours = reader_of(file, 10, SavedKind::kFilter, "merge(Filter.load(path))");
  SaveGuard theirs(SavedKind::kFilter);
  theirs.note_read(file);
  save_through(theirs, file, 30);
  const Error e = refusal(ours, file);
  EXPECT_EQ(e.kind(), ErrorKind::input_changed);
  EXPECT_TRUE(has(e, "the filter file " + file + " changed since this filter last read or "
                     "wrote it"))
      << e.what();
  EXPECT_TRUE(has(e, "Merge that file in first (merge(Filter.load(path))), then save"))
      << e.what();
  // Still refused, however the path is spelled.
  const std::string spelled = dir_.string() + "/./sub/../seen.gdf";
  std::filesystem::create_directory(path("sub"));
  EXPECT_EQ(refusal(ours, spelled).kind(), ErrorKind::input_changed);
  // Reloaded: this guard has seen the other writer's version.
  ours.note_read(file);
  save_through(ours, file, 40);
  save_through(ours, file, 41);  // its own save is no change
  EXPECT_EQ(load_filter(file).counters().insertions, 41u);
}

TEST_F(GuardedSaveTest, AMergeOfTheFileNowThereLetsTheSaveThrough) {
  const std::string file = path("seen.gds");
  SaveGuard ours = reader_of(file, 10, SavedKind::kSet);
  save_keys(file, 11);  // a writer that takes no lock
  const Error e = refusal(ours, file);
  EXPECT_TRUE(has(e, "the set file " + file + " changed since this set last read or wrote "
                     "it"))
      << e.what();
  EXPECT_TRUE(has(e, "with this set's. Merge that file in first, then save;")) << e.what();
  // A guard that read another file says nothing of this one.
  ours.note_merged(reader_of(path("other.gds"), 1, SavedKind::kSet));
  EXPECT_EQ(refusal(ours, file).kind(), ErrorKind::input_changed);
  SaveGuard loaded(SavedKind::kSet);
  loaded.note_read(file);
  ours.note_merged(loaded);
  save_through(ours, file, 12);
  EXPECT_EQ(writes, 1);
}

TEST_F(GuardedSaveTest, AFileWrittenInPlaceIsAChange) {
  const std::string file = path("seen.gdf");
  SaveGuard guard = reader_of(file, 10);
  std::ofstream(file, std::ios::binary | std::ios::app) << 'x';
  EXPECT_EQ(refusal(guard, file).kind(), ErrorKind::input_changed);
}

TEST_F(GuardedSaveTest, FilesNeverReadOrGoneSinceAreSaved) {
  const std::string file = path("seen.gdf");
  save_keys(file, 10);
  SaveGuard fresh(SavedKind::kFilter);  // read nothing: a new filter
  save_through(fresh, file, 20);
  SaveGuard guard = reader_of(file, 20);
  save_keys(path("other.gdf"), 1);
  save_through(guard, path("other.gdf"), 2);  // another path than the one read
  std::filesystem::remove(file);
  save_through(guard, file, 3);  // nothing there to lose
  EXPECT_EQ(writes, 3);
}

TEST_F(GuardedSaveTest, AWriteThatFailsAfterItsRenameLeavesItsFileSeen) {
  const std::string file = path("seen.gdf");
  SaveGuard guard = reader_of(file, 10);
  // As the folder's fsync failing once the file is in place.
  EXPECT_THROW(guard.save(file, [&] {
    save_keys(file, 20);
    throw Error("the folder's fsync failed", ErrorKind::io);
  }), Error);
  save_through(guard, file, 30);
  // A write that fails before replacing anything leaves the version seen.
  EXPECT_THROW(guard.save(file, [] { throw Error("no space", ErrorKind::io); }), Error);
  save_through(guard, file, 31);
  EXPECT_EQ(load_filter(file).counters().insertions, 31u);
}

TEST_F(GuardedSaveTest, ARefusalShowsANameWithControlBytesEscaped) {
  const std::string file = path("a\nb\x1b[2J.gdf");
  SaveGuard guard = reader_of(file, 10);
  save_keys(file, 11);
  const Error changed = refusal(guard, file);
  test::Holder holder(file);
  const Error locked = refusal(guard, file);
  for (const Error& e : {changed, locked}) {
    EXPECT_TRUE(has(e, "a\\nb\\x1B[2J.gdf")) << e.what();
    EXPECT_FALSE(has(e, "\n") || has(e, "\x1b")) << e.what();
  }
}

TEST_F(GuardedSaveTest, AFileNoJobCouldWriteIsRefusedAsAJobRefusesIt) {
  std::filesystem::create_directory(path("folder.gdf"));
  SaveGuard guard(SavedKind::kFilter);
  try {
    save_through(guard, path("folder.gdf"), 1);
    ADD_FAILURE() << "a folder was saved over";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e, "cannot write filter file " + path("folder.gdf") + ": it is a folder"))
        << e.what();
  }
  EXPECT_THROW(save_through(guard, path("missing/seen.gdf"), 1), Error);
  EXPECT_EQ(writes, 0);
}

}  // namespace
}  // namespace gdedup
