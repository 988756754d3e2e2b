// How --threads and --filter-threads share the hardware threads
// (job/thread_split.h), against the rule written out case by case.
#include <gtest/gtest.h>

#include "job/thread_split.cpp"

namespace gdedup::job {
namespace {

TEST(ThreadSplit, DefaultsGiveTheFilterAThirdAndTheFrontEndTheRest) {
  struct Case {
    unsigned hardware, read, filter;
  };
  for (const Case& c : {Case{1, 1, 1}, Case{2, 1, 1}, Case{3, 2, 1}, Case{4, 3, 1},
                        Case{16, 11, 5}, Case{64, 43, 21}}) {
    const ThreadSplit s = split_threads(0, 0, c.hardware);
    EXPECT_EQ(s.read, c.read) << c.hardware << " hardware threads";
    EXPECT_EQ(s.filter, c.filter) << c.hardware << " hardware threads";
  }
  // No hardware count known (0): one of each.
  EXPECT_EQ(split_threads(0, 0, 0).read, 1u);
}

TEST(ThreadSplit, OneGivenLeavesTheRestToTheOther) {
  EXPECT_EQ(split_threads(6, 0, 16).filter, 10u);
  EXPECT_EQ(split_threads(0, 6, 16).read, 10u);
  // Asking for all of them, or more, leaves the other one thread.
  EXPECT_EQ(split_threads(16, 0, 16).filter, 1u);
  EXPECT_EQ(split_threads(0, 40, 16).read, 1u);
  const ThreadSplit both = split_threads(3, 7, 2);
  EXPECT_EQ(both.read, 3u);
  EXPECT_EQ(both.filter, 7u);
}

}  // namespace
}  // namespace gdedup::job
