// The job layer through its own door, gdedup::run_job (gdedup/job.h), with
// no front end: the records a dedup keeps against an exact oracle (an
// unordered_set of keys, in input order) in Bloom and exact mode, the
// missing-key policies on JSON records, the resume refusals, a fixed filter
// filled far past its plan, and the max_memory caps of a filter and a set.
// The events name every option through OptionNames in words of their own
// ("<resume>"), so a message that names one shows it came from there.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "file_util.h"
#include "gdedup/error.h"
#include "gdedup/job.h"
#include "gdedup/key_set.h"

namespace gdedup {
namespace {

using Records = std::vector<std::string>;
// A record's key; none where the record lacks it.
using KeyOf = std::function<std::optional<std::string>(const std::string&)>;

// Says nothing aloud: keeps what the job says, names options as "<name>",
// and asks the job to stop at a checkpoint after its first batch when
// stop_after_first_batch is set.
class RecordingEvents : public JobEvents {
 public:
  void info(const std::string& message) override { notes.push_back(message); }
  void warn(const std::string& message) override { warnings.push_back(message); }
  void progress(const Progress&, size_t) override {
    if (stop_after_first_batch) stop_.store(true);
  }
  const std::atomic<bool>* stop() const override { return &stop_; }
  std::string name(JobOption option) const override {
    return "<" + JobEvents::name(option) + ">";
  }

  bool stop_after_first_batch = false;
  std::vector<std::string> notes, warnings;

 private:
  std::atomic<bool> stop_{false};
};

// `count` records drawn with repeats from `distinct` URLs, from `seed`.
Records urls(size_t count, size_t distinct, uint32_t seed) {
  std::mt19937 rng(seed);
  Records pool;
  for (size_t i = 0; i < distinct; ++i) {
    pool.push_back("https://host" + std::to_string(rng() % 1000) + ".example/p/" +
                   std::to_string(i));
  }
  Records records;
  for (size_t i = 0; i < count; ++i) records.push_back(pool[rng() % distinct]);
  return records;
}

std::optional<std::string> whole(const std::string& record) { return record; }

// JSON Lines records whose key is "url", a fifth of them without it: a
// member of another name, an array, a line that is not JSON.
Records json_records(size_t count, size_t distinct, uint32_t seed) {
  std::mt19937 rng(seed);
  Records records;
  for (size_t i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    switch (rng() % 15) {
      case 0: records.push_back("{\"other\":\"u" + n + "\"}"); break;
      case 1: records.push_back("[" + n + ",\"url\"]"); break;
      case 2: records.push_back("not json " + n); break;
      default:
        records.push_back("{\"n\":" + n + ",\"url\":\"u" + std::to_string(rng() % distinct) +
                          "\"}");
    }
  }
  return records;
}

// The "url" of json_records' records that have one.
std::optional<std::string> url_member(const std::string& record) {
  const std::string member = ",\"url\":\"";
  const size_t at = record.find(member);
  if (record.rfind("{\"n\":", 0) != 0 || at == std::string::npos) return std::nullopt;
  const size_t from = at + member.size();
  return record.substr(from, record.find('"', from) - from);
}

// What a dedup writes: each record whose key was not seen before (or, with
// `duplicates`, each whose key was), in order; a record without its key is
// written as unique (keep_missing) or left out. `seen` holds the keys of
// an earlier job on the same filter.
Records oracle_dedup(const Records& records, const KeyOf& key_of, bool duplicates = false,
                     bool keep_missing = false, std::unordered_set<std::string> seen = {}) {
  Records out;
  for (const std::string& record : records) {
    const std::optional<std::string> key = key_of(record);
    if (!key) {
      if (keep_missing && !duplicates) out.push_back(record);
      continue;
    }
    const bool was_seen = !seen.insert(*key).second;
    if (was_seen == duplicates) out.push_back(record);
  }
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class RunJobTest : public test::TempDirTest {
 protected:
  RunJobTest() : TempDirTest("run_job") {}

  std::string write_records(const std::string& name, const Records& records) {
    std::ofstream out(path(name), std::ios::binary);
    for (const std::string& record : records) out << record << '\n';
    return path(name);
  }

  Records read_records(const std::string& name) {
    std::ifstream in(path(name), std::ios::binary);
    Records records;
    for (std::string line; std::getline(in, line);) records.push_back(line);
    return records;
  }

  bool exists(const std::string& name) { return std::filesystem::exists(path(name)); }

  // A dedup of `input` to out.txt, in exact mode or with a Bloom filter
  // planned to a rate at which no key of these tests meets a false
  // positive, in small batches.
  JobSpec dedup(const std::string& input, bool exact) {
    JobSpec spec;
    spec.inputs.paths = {input};
    spec.output = path("out.txt");
    spec.exact = exact;
    if (!exact) spec.sizing.fpr = 1e-12;
    spec.batch_records = 256;
    return spec;
  }

  // run_job(spec), which must throw E whose message holds each of `parts`;
  // the error, for further checks.
  template <class E>
  E refused(const JobSpec& spec, RecordingEvents& events, const std::vector<std::string>& parts) {
    try {
      run_job(spec, events);
    } catch (const E& e) {
      for (const std::string& part : parts) {
        EXPECT_TRUE(contains(e.what(), part)) << "no \"" << part << "\" in: " << e.what();
      }
      EXPECT_FALSE(contains(e.what(), "--")) << "a flag in: " << e.what();
      return e;
    }
    ADD_FAILURE() << "run_job ran a spec it should have refused";
    return E("");
  }

  // A job stopped at a checkpoint after its first batch, which the
  // checkpoint at ck names: its spec.
  JobSpec interrupted(const Records& records, bool exact) {
    JobSpec spec = dedup(write_records("in.txt", records), exact);
    spec.filter_path = path(exact ? "s.gds" : "f.gdf");
    spec.checkpoint.path = path("ck");
    RecordingEvents events;
    events.stop_after_first_batch = true;
    const JobResult result = run_job(spec, events);
    EXPECT_EQ(result.status, JobStatus::kInterrupted);
    EXPECT_TRUE(contains(result.message, "<resume>")) << result.message;
    EXPECT_LT(result.stats.records, records.size());
    EXPECT_TRUE(exists("ck"));
    return spec;
  }
};

const bool kModes[] = {false, true};  // Bloom, exact

std::string mode_name(bool exact) { return exact ? "exact" : "bloom"; }

TEST_F(RunJobTest, DedupKeepsWhatTheOracleKeepsInEitherMode) {
  const Records day1 = urls(6000, 2500, 1);
  // From the same seed: half its pool is day1's.
  const Records day2 = urls(6000, 5000, 1);
  const std::string in1 = write_records("day1.txt", day1);
  const std::string in2 = write_records("day2.txt", day2);
  for (const bool exact : kModes) {
    SCOPED_TRACE(mode_name(exact));
    for (const bool duplicates : {false, true}) {
      JobSpec spec = dedup(in1, exact);
      spec.duplicates = duplicates;
      RecordingEvents events;
      const JobResult result = run_job(spec, events);
      const Records expected = oracle_dedup(day1, whole, duplicates);
      EXPECT_EQ(result.status, JobStatus::kComplete);
      EXPECT_EQ(read_records("out.txt"), expected) << "duplicates " << duplicates;
      EXPECT_EQ(result.stats.records, day1.size());
      EXPECT_EQ(result.stats.kept, expected.size());
      EXPECT_EQ(result.set.has_value(), exact);
    }
    // A filter or set file made by one job, extended by the next: the
    // second keeps only keys new to both.
    std::filesystem::remove(path("seen"));
    JobSpec first = dedup(in1, exact);
    first.filter_path = path("seen");
    RecordingEvents events;
    EXPECT_TRUE(run_job(first, events).filter_saved);
    JobSpec second = dedup(in2, exact);
    second.filter_path = path("seen");
    const JobResult result = run_job(second, events);
    EXPECT_TRUE(result.filter_saved);
    const Records seen = oracle_dedup(day1, whole);
    const Records expected = oracle_dedup(day2, whole, false, false, {seen.begin(), seen.end()});
    EXPECT_LT(expected.size(), oracle_dedup(day2, whole).size());
    EXPECT_EQ(read_records("out.txt"), expected);
  }
}

TEST_F(RunJobTest, RecordsWithoutTheirJsonKeyFollowTheMissingKeyPolicy) {
  const Records records = json_records(4000, 1500, 3);
  const std::string in = write_records("in.jsonl", records);
  size_t first_missing = 0;
  while (url_member(records[first_missing])) ++first_missing;
  uint64_t offset = 0;
  for (size_t i = 0; i < first_missing; ++i) offset += records[i].size() + 1;
  uint64_t missing = 0;
  for (const std::string& record : records) missing += url_member(record) ? 0 : 1;
  ASSERT_GT(missing, 0u);
  for (const bool exact : kModes) {
    SCOPED_TRACE(mode_name(exact));
    std::filesystem::remove(path("out.txt"));
    JobSpec spec = dedup(in, exact);
    spec.keys = KeyOptions::parse("json:url");
    RecordingEvents events;
    spec.missing_key = keys::MissingKey::kError;
    refused<Error>(spec, events,
                   {"record " + std::to_string(first_missing + 1) + " (at byte offset " +
                        std::to_string(offset) + ")",
                    "has no key json:url", "<missing_key> keep", "<missing_key> drop"});
    EXPECT_FALSE(exists("out.txt"));
    for (const auto policy : {keys::MissingKey::kKeep, keys::MissingKey::kDrop}) {
      spec.missing_key = policy;
      const JobResult result = run_job(spec, events);
      EXPECT_EQ(read_records("out.txt"),
                oracle_dedup(records, url_member, false, policy == keys::MissingKey::kKeep))
          << keys::missing_key_text(policy);
      EXPECT_EQ(result.stats.missing_keys, missing);
    }
  }
}

TEST_F(RunJobTest, AResumeWithoutItsCheckpointIsRefused) {
  const std::string in = write_records("in.txt", urls(100, 50, 4));
  for (const bool exact : kModes) {
    SCOPED_TRACE(mode_name(exact));
    JobSpec spec = dedup(in, exact);
    spec.checkpoint.path = path("ck");
    spec.checkpoint.resume = true;
    RecordingEvents events;
    refused<Error>(spec, events, {"no checkpoint at " + path("ck"), "without <resume>"});
    EXPECT_FALSE(exists("out.txt"));
    spec.checkpoint.path.clear();
    refused<UsageError>(spec, events, {"<resume> needs <checkpoint> FILE"});
  }
}

TEST_F(RunJobTest, ACheckpointLeftByAnEarlierRunIsNotStartedOver) {
  const Records records = urls(3000, 1200, 5);
  for (const bool exact : kModes) {
    SCOPED_TRACE(mode_name(exact));
    std::filesystem::remove(path("ck"));
    const JobSpec spec = interrupted(records, exact);
    RecordingEvents events;
    refused<Error>(spec, events, {"checkpoint " + path("ck") + " exists from an earlier run",
                                  "add <resume>"});
    EXPECT_TRUE(exists("ck"));
  }
}

TEST_F(RunJobTest, AResumeWithOtherOptionsIsRefusedAndWithTheSameCompletes) {
  const Records records = urls(3000, 1200, 6);
  for (const bool exact : kModes) {
    SCOPED_TRACE(mode_name(exact));
    std::filesystem::remove(path("ck"));
    std::filesystem::remove(path(exact ? "s.gds" : "f.gdf"));
    JobSpec spec = interrupted(records, exact);
    spec.checkpoint.resume = true;
    RecordingEvents events;

    JobSpec other = spec;
    other.keys = KeyOptions::parse("whole", "tab", "lowercase");
    EXPECT_EQ(refused<Error>(other, events, {"the normalize option differs"}).kind(),
              ErrorKind::resume_mismatch);
    other = spec;
    other.inputs.paths.push_back(other.inputs.paths[0]);
    EXPECT_EQ(refused<Error>(other, events, {"the input list differs", "1 input", "2 inputs"})
                  .kind(),
              ErrorKind::resume_mismatch);
    other = spec;
    other.exact = !exact;
    other.sizing.fpr = exact ? std::optional<double>(1e-12) : std::nullopt;
    EXPECT_EQ(refused<Error>(other, events, {path("ck")}).kind(), ErrorKind::other_mode);
    if (!exact) {
      other = spec;
      other.no_grow = true;
      EXPECT_EQ(refused<Error>(other, events, {"growth differs", "<no_grow>"}).kind(),
                ErrorKind::resume_mismatch);
    }
    EXPECT_TRUE(exists("ck"));

    const JobResult result = run_job(spec, events);
    EXPECT_EQ(result.status, JobStatus::kComplete);
    EXPECT_GT(result.resumed_records, 0u);
    EXPECT_EQ(result.stats.records, records.size());
    EXPECT_EQ(read_records("out.txt"), oracle_dedup(records, whole));
    EXPECT_FALSE(exists("ck"));
    EXPECT_TRUE(result.filter_saved);
  }
}

TEST_F(RunJobTest, AFixedFilterFarPastItsPlanIsNotSaved) {
  const Records records = urls(5000, 4000, 7);
  const std::string in = write_records("in.txt", records);
  JobSpec spec = dedup(in, false);
  spec.sizing = JobSizing{};
  spec.sizing.capacity = 100;
  spec.no_grow = true;
  spec.filter_path = path("f.gdf");
  RecordingEvents events;
  const JobResult result = run_job(spec, events);
  EXPECT_EQ(result.status, JobStatus::kOverfull);
  ASSERT_TRUE(result.overfull.has_value());
  EXPECT_EQ(result.overfull->planned, 100u);
  EXPECT_GT(result.overfull->capacity, 100u);
  EXPECT_GT(result.overfull->probably_lost, 0u);
  EXPECT_FALSE(result.filter_saved);
  EXPECT_FALSE(exists("f.gdf"));
  EXPECT_TRUE(contains(result.message, "far past its plan")) << result.message;
  EXPECT_TRUE(contains(result.message, "<capacity> ")) << result.message;
  EXPECT_TRUE(contains(result.message, "was not written")) << result.message;
  // The output holds what the filter let through: never a duplicate.
  const Records out = read_records("out.txt");
  EXPECT_EQ(std::unordered_set<std::string>(out.begin(), out.end()).size(), out.size());
  EXPECT_LT(out.size(), oracle_dedup(records, whole).size());
  bool warned = false;
  for (const std::string& w : events.warnings) warned = warned || contains(w, "<capacity>");
  EXPECT_TRUE(warned) << "no warning when the filter passed its plan";
}

TEST_F(RunJobTest, AGrowingFilterStoppedByItsCapIsNotSaved) {
  const std::string in = write_records("in.txt", urls(20000, 20000, 8));
  JobSpec spec = dedup(in, false);
  spec.sizing = JobSizing{};
  spec.sizing.capacity = 1000;
  spec.max_memory = 8192;
  spec.filter_path = path("f.gdf");
  RecordingEvents events;
  const JobResult result = run_job(spec, events);
  EXPECT_EQ(result.status, JobStatus::kOverfull);
  EXPECT_FALSE(exists("f.gdf"));
  EXPECT_TRUE(contains(result.message, "reached <max_memory>")) << result.message;
}

TEST_F(RunJobTest, MaxMemoryRefusesAFilterItCannotHold) {
  const std::string in = write_records("in.txt", urls(3000, 1000, 9));
  RecordingEvents events;
  JobSpec spec = dedup(in, false);
  spec.max_memory = 1 << 20;
  spec.no_grow = true;
  refused<UsageError>(spec, events, {"<max_memory> caps a filter that grows", "<no_grow>"});
  spec.no_grow = false;
  spec.sizing = JobSizing{};
  spec.sizing.memory = 4096;
  refused<UsageError>(spec, events, {"<max_memory> caps a filter that grows", "<memory>"});
  spec.sizing = JobSizing{};
  spec.sizing.capacity = 1000000;
  spec.max_memory = 4096;
  refused<UsageError>(spec, events, {"<max_memory> is less than the filter's",
                                     "a smaller <capacity>"});
  EXPECT_FALSE(exists("out.txt"));

  // An existing file larger than the cap is refused before it is loaded.
  JobSpec build = dedup(in, false);
  build.kind = JobKind::kBuild;
  build.output = "-";
  build.sizing = JobSizing{};
  build.sizing.capacity = 100000;
  build.filter_path = path("f.gdf");
  run_job(build, events);
  spec = dedup(in, false);
  spec.filter_path = path("f.gdf");
  spec.max_memory = 4096;
  refused<UsageError>(spec, events, {"<max_memory> is less than the", path("f.gdf")});
  EXPECT_FALSE(exists("out.txt"));
}

TEST_F(RunJobTest, MaxMemoryRefusesASetItCannotHold) {
  Records distinct;
  for (int i = 0; i < 60000; ++i) distinct.push_back("key-" + std::to_string(i));
  const std::string in = write_records("in.txt", distinct);
  const uint64_t smallest = KeySet(0).bytes();
  ASSERT_GT(KeySet::bytes_for(distinct.size()), smallest);
  RecordingEvents events;
  JobSpec spec = dedup(in, true);
  spec.sizing.capacity = 1000000;
  spec.max_memory = KeySet::bytes_for(1000000) / 2;
  refused<UsageError>(spec, events, {"<capacity>", "<max_memory>"});
  EXPECT_FALSE(exists("out.txt"));

  // A set that would grow past the cap as keys come fails with set_full.
  spec.sizing.capacity.reset();
  spec.max_memory = smallest;
  const Error full = refused<Error>(
      spec, events, {"past its cap of " + std::to_string(smallest) + " bytes", "out.txt"});
  EXPECT_EQ(full.kind(), ErrorKind::set_full);
  EXPECT_FALSE(exists("out.txt"));

  // A set file larger than the cap, refused from its header.
  JobSpec build = dedup(in, true);
  build.kind = JobKind::kBuild;
  build.output = "-";
  build.filter_path = path("s.gds");
  run_job(build, events);
  spec = dedup(in, true);
  spec.filter_path = path("s.gds");
  spec.max_memory = smallest;
  const Error e = refused<Error>(spec, events, {path("s.gds"), "more than <max_memory> allows"});
  EXPECT_EQ(e.kind(), ErrorKind::set_full);
  EXPECT_FALSE(exists("out.txt"));
}

}  // namespace
}  // namespace gdedup

namespace gdedup {
namespace {

std::string refusal(const JobSpec& spec) {
  try {
    check_job_spec(spec, library_option_names());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The same values, given or left out: only an option given is refused
// where it means nothing, or with a value that is no choice, and a default
// left out is never taken for one given.
TEST(CheckJobSpec, RefusesWhatWasGivenAndNotItsDefault) {
  JobSpec spec;
  spec.backend = "cpu";
  EXPECT_EQ(refusal(spec), "");  // device 0, max_memory 0, tab delimiter: the defaults
  JobSpec device = spec;
  device.given.insert(JobOption::kDevice);
  EXPECT_EQ(refusal(device), "device has no effect with backend: it chooses the GPU backend's "
                             "device; drop device");
  JobSpec cap = spec;
  cap.given.insert(JobOption::kMaxMemory);
  EXPECT_NE(refusal(cap).find("max_memory: a cap of 0 bytes holds no filter or set"),
            std::string::npos);
  JobSpec delimiter = spec;
  delimiter.given.insert(JobOption::kDelimiter);
  EXPECT_NE(refusal(delimiter).find("delimiter has no effect with key"), std::string::npos);
  delimiter.keys = KeyOptions::parse("field:2", "tab", "");
  EXPECT_EQ(refusal(delimiter), "");
  JobSpec threads = spec;
  threads.given.insert(JobOption::kThreads);
  EXPECT_NE(refusal(threads).find("threads 0: give 1 to 4096 threads"), std::string::npos);
  JobSpec every = spec;
  every.given.insert(JobOption::kCheckpointEveryRecords);
  every.checkpoint.every_records = 10;
  EXPECT_EQ(refusal(every), "checkpoint_every_records needs checkpoint FILE");
  JobSpec bits = spec;
  bits.sizing.block_bits = 0;  // given: 0 is not a block size
  EXPECT_NE(refusal(bits).find("block_bits: give 256 or 512"), std::string::npos);
}

// An output format chooses what Parquet input writes: a build writes
// nothing, fingerprints are written as read.
TEST(CheckJobSpec, RefusesAnOutputFormatWhereNothingIsWrittenOrFingerprintsAre) {
  JobSpec spec;
  spec.output_format = OutputFormat::kLines;
  spec.given.insert(JobOption::kOutputFormat);
  EXPECT_EQ(refusal(spec), "");
  JobSpec build = spec;
  build.kind = JobKind::kBuild;
  EXPECT_EQ(refusal(build), "output_format has no effect on a build, which writes no output; "
                            "drop output_format");
  JobSpec u64 = spec;
  u64.format = InputFormat::kU64;
  EXPECT_NE(refusal(u64).find("output_format has no effect with input_format"),
            std::string::npos);
}

}  // namespace
}  // namespace gdedup
