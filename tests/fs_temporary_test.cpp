// A temporary file is in the registry of live temporaries from before it
// exists, so a signal that ends the process right after its creation
// (interrupt.cpp calls remove_live_temporaries) still removes it.
#include <sys/stat.h>

#include <string>

#include <gtest/gtest.h>

#include "file_util.h"
#include "fs/file_ops.h"
#include "fs/live_temporaries.h"

namespace gdedup::fs {
namespace {

class TemporaryTest : public test::TempDirTest {
 protected:
  TemporaryTest() : TempDirTest("gdedup_fs_temporary") {}
};

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

TEST_F(TemporaryTest, ANewTemporaryIsRemovedByTheSignalPathWithoutFurtherSteps) {
  File file;
  int slot = -1;
  ASSERT_EQ(create_temp_beside(path("out.txt"), file, slot), 0);
  const std::string name = file.name();
  ASSERT_TRUE(exists(name));
  EXPECT_GE(slot, 0);
  remove_live_temporaries();
  EXPECT_FALSE(exists(name)) << name << " would be left behind by a signal";
  forget_temporary(slot);
}

TEST_F(TemporaryTest, AFailedCreationLeavesNoRegisteredName) {
  File file;
  int slot = -1;
  EXPECT_NE(create_temp_beside(path("no_such_folder/out.txt"), file, slot), 0);
  EXPECT_EQ(slot, -1);
  // Its slot was given back: the registry still takes a full table's worth.
  int slots[32];
  for (int i = 0; i < 32; ++i) {
    slots[i] = register_temporary(path("x" + std::to_string(i)));
    EXPECT_GE(slots[i], 0) << "slot " << i << " was not given back";
  }
  for (const int s : slots) forget_temporary(s);
}

}  // namespace
}  // namespace gdedup::fs
