// The parallel front end (PipelineOptions::read_threads > 1) through
// run_pipeline: for any number of workers, batch size and piece size, the
// output, the filter's bytes and the stats equal the one-thread run's and an
// exact first-occurrence dedup computed here; failures (damage, a record
// too long, a file changed while read) say the same as the one-thread run
// after the same records; a stopped run resumed with other worker counts
// gives the uninterrupted output.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <iterator>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "codec_util.h"
#include "file_util.h"
#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/pipeline.h"
#include "pipeline/piece_plan.h"
#include "test_util.h"

namespace gdedup {
namespace {

namespace fs = std::filesystem;

// Room for a few thousand keys at a false-positive rate far below one in
// the tests' lifetime, so the exact dedup is the oracle.
const FilterParams kParams{1 << 13, {512, 16}, kDefaultSeed};

class ParallelFrontEndTest : public test::TempDirTest {
 protected:
  ParallelFrontEndTest() : TempDirTest("gdedup_parallel") {}
  std::string write_file(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
};

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Records that make piece edges hard: empty ones, repeats, short and long
// ones (some longer than many pieces), in text of `count` records; without
// a final separator when `open_end`.
std::string tricky_text(size_t count, uint64_t seed, char separator, bool open_end) {
  test::Rng rng(seed);
  std::string s;
  for (size_t i = 0; i < count; ++i) {
    switch (rng.below(8)) {
      case 0: break;  // an empty record
      case 1: s += std::string(20 + rng.below(200), static_cast<char>('a' + rng.below(3))); break;
      case 2: s += "x\ny"; break;  // a newline inside a NUL-separated record
      default: s += "https://h" + std::to_string(rng.below(20)) + ".example/" +
                    std::to_string(rng.below(count / 3 + 1));
    }
    s += separator;
  }
  if (open_end) s += "tail-without-separator";
  return s;
}

// The exact answer: each input split on its own (its unterminated last
// record is a record), records kept at their first occurrence.
std::string exact_dedup(const std::vector<std::string>& texts, char separator) {
  std::unordered_set<std::string> seen;
  std::string out;
  for (const std::string& text : texts) {
    for (const std::string& r : test::reference_split(text, separator)) {
      if (seen.insert(r).second) out += r + separator;
    }
  }
  return out;
}

struct Result {
  std::string output;
  std::string filter;
  PipelineStats stats;
  std::string error;
};

Result run(PipelineOptions o) {
  Filter filter(kParams);
  auto backend = make_cpu_backend(filter);
  Result r;
  try {
    r.stats = run_pipeline(o, filter, *backend);
  } catch (const Error& e) {
    r.error = e.what();
  }
  // A pipe's records are read as they come (DamagedGzip... below).
  if (!fs::is_fifo(o.output)) r.output = read_file(o.output);
  r.filter = std::string(reinterpret_cast<const char*>(filter.words()), filter.params().bytes()) +
             "/" + std::to_string(filter.counters().insertions);
  return r;
}

// A run into a pipe (options.output, a FIFO): written in place, so the
// output of a failed run shows what was written before the failure.
Result run_into_fifo(const PipelineOptions& options) {
  std::string got;
  std::thread reader([&] { got = read_file(options.output); });
  Result r = run(options);
  reader.join();
  r.output = got;
  return r;
}

// Opening `piece` of `file`, which grew since its plan was made, fails
// naming the change, never reading records of the new version.
void expect_changed_file_refused(const pipeline::Piece& piece, const std::string& file) {
  try {
    pipeline::open_piece(piece, file, '\n');
    FAIL() << "a grown file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input_changed);
    EXPECT_NE(std::string(e.what()).find(file + " changed size"), std::string::npos) << e.what();
  }
}

// Inputs read, and mapped whenever they (or their pieces) have a byte
// (PipelineOptions::min_mapped_bytes).
constexpr uint64_t kMappings[] = {UINT64_MAX, 1};

void expect_same(const Result& got, const Result& want) {
  EXPECT_EQ(got.error, want.error);
  EXPECT_TRUE(got.output == want.output) << "outputs differ";
  EXPECT_TRUE(got.filter == want.filter) << "filters differ";
  EXPECT_EQ(got.stats.records, want.stats.records);
  EXPECT_EQ(got.stats.kept, want.stats.kept);
  EXPECT_EQ(got.stats.dropped, want.stats.dropped);
  EXPECT_EQ(got.stats.input_bytes, want.stats.input_bytes);
  EXPECT_EQ(got.stats.output_bytes, want.stats.output_bytes);
}

TEST_F(ParallelFrontEndTest, AnyWorkersBatchAndPieceSizeGiveTheOneThreadResult) {
  for (char separator : {'\n', '\0'}) {
    const std::vector<std::string> texts = {tricky_text(600, 1, separator, true),
                                            tricky_text(300, 2, separator, false),
                                            std::string(1, separator), "",
                                            tricky_text(150, 3, separator, true)};
    PipelineOptions o;
    for (size_t i = 0; i < texts.size(); ++i) {
      o.inputs.push_back(write_file("in" + std::to_string(i), texts[i]));
    }
    o.output = path("out");
    o.record_separator = separator;
    const Result want = run(o);
    ASSERT_EQ(want.error, "");
    ASSERT_EQ(want.output, exact_dedup(texts, separator));
    struct Case {
      uint64_t piece;
      unsigned workers;
      uint64_t batch;
    };
    // A byte a piece, a few, about a record, many records; one worker
    // (the sequential front end) included.
    const Case cases[] = {{1, 3, 7},      {3, 2, 1},      {3, 8, 262144}, {64, 1, 1},
                          {64, 1, 7},     {64, 2, 1},     {64, 3, 7},     {64, 8, 262144},
                          {1000, 2, 7},   {1000, 3, 262144}, {1000, 8, 1}};
    for (const Case& c : cases) {
      for (uint64_t mapped : kMappings) {
        SCOPED_TRACE("separator " + std::to_string(separator) + ", piece " +
                     std::to_string(c.piece) + ", workers " + std::to_string(c.workers) +
                     ", batch " + std::to_string(c.batch) + ", mapped from " +
                     std::to_string(mapped) + " bytes");
        o.read_threads = c.workers;
        o.piece_bytes = c.piece;
        o.batch_records = c.batch;
        o.min_mapped_bytes = mapped;
        expect_same(run(o), want);
      }
    }
  }
}

// A separator exactly on each piece edge, and records exactly a piece long.
TEST_F(ParallelFrontEndTest, SeparatorsOnPieceEdges) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += std::string(7, static_cast<char>('a' + i % 5)) + "\n";
  const std::vector<std::string> texts = {text, text.substr(0, text.size() - 1)};
  PipelineOptions o;
  o.inputs = {write_file("a", texts[0]), write_file("b", texts[1])};
  o.output = path("out");
  const Result want = run(o);
  ASSERT_EQ(want.output, exact_dedup(texts, '\n'));
  for (uint64_t piece : {8u, 16u, 7u, 9u}) {
    SCOPED_TRACE("piece " + std::to_string(piece));
    o.read_threads = 4;
    o.piece_bytes = piece;
    expect_same(run(o), want);
  }
}

TEST_F(ParallelFrontEndTest, CompressedAndPlainInputsMixed) {
  std::vector<std::string> texts;
  for (uint64_t i = 0; i < 6; ++i) texts.push_back(tricky_text(400, 10 + i, '\n', i % 2 == 0));
  PipelineOptions o;
  o.inputs = {write_file("a.gz", test::gzip(texts[0])),
              write_file("b.txt", texts[1]),
              write_file("c.zst", test::zstd(texts[2], true)),
              // Two gzip members, as `cat a.gz b.gz` makes them.
              write_file("d.gz", test::gzip(texts[3].substr(0, 999)) +
                                     test::gzip(texts[3].substr(999))),
              write_file("e.txt", texts[4]),
              write_file("f.zst", test::zstd(texts[5].substr(0, 1234)) +
                                      test::zstd(texts[5].substr(1234)))};
  o.output = path("out");
  const Result want = run(o);
  ASSERT_EQ(want.error, "");
  ASSERT_EQ(want.output, exact_dedup(texts, '\n'));
  for (unsigned workers : {2u, 5u, 8u}) {
    for (uint64_t batch : {7u, 262144u}) {
      SCOPED_TRACE("workers " + std::to_string(workers) + ", batch " + std::to_string(batch));
      o.read_threads = workers;
      o.piece_bytes = 100;
      o.batch_records = batch;
      expect_same(run(o), want);
    }
  }
}

// Damage in the middle of a list: the records before it are delivered, in
// order, and the failure says what the one-thread run says, down to the
// output record from which the output may hold damaged data.
TEST_F(ParallelFrontEndTest, DamagedGzipInTheMiddleOfAListFailsAsWithOneThread) {
  const std::string first = tricky_text(500, 20, '\n', false);
  std::string damaged = test::gzip(tricky_text(3000, 21, '\n', false));
  damaged[damaged.size() / 2] ^= 0x55;
  damaged[damaged.size() / 2 + 1] ^= 0x55;
  PipelineOptions o;
  o.inputs = {write_file("a.txt", first), write_file("b.gz", damaged),
              write_file("c.txt", tricky_text(500, 22, '\n', false))};
  // A pipe is written in place: the failure says how much of it is sound.
  o.output = path("out.fifo");
  ASSERT_EQ(::mkfifo(o.output.c_str(), 0600), 0);
  const Result want = run_into_fifo(o);
  ASSERT_NE(want.error.find("damaged"), std::string::npos) << want.error;
  ASSERT_NE(want.error.find("may hold damaged data"), std::string::npos) << want.error;
  for (unsigned workers : {2u, 4u}) {
    for (uint64_t batch : {7u, 262144u}) {
      SCOPED_TRACE("workers " + std::to_string(workers) + ", batch " + std::to_string(batch));
      o.read_threads = workers;
      o.piece_bytes = 64;
      o.batch_records = batch;
      PipelineOptions sequential = o;
      sequential.read_threads = 1;
      const Result one = run_into_fifo(sequential);
      const Result many = run_into_fifo(o);
      EXPECT_EQ(many.error, one.error);
      EXPECT_TRUE(many.output == one.output) << "outputs differ";
    }
  }
}

// The record length limit holds for a record joined from pieces, with the
// one-thread run's message: the record's number and offset in its input.
TEST_F(ParallelFrontEndTest, RecordLengthLimitAppliesToJoinedRecords) {
  const std::string text = "short\n" + std::string(30, 'a') + "\nok\n" + std::string(70, 'b') +
                           "\nlater\n";
  PipelineOptions o;
  o.inputs = {write_file("pre", "x\ny\n"), write_file("in", text)};
  o.output = path("out");
  o.max_record_bytes = 60;
  const Result want = run(o);
  ASSERT_NE(want.error.find("record 6 (at byte offset 40)"), std::string::npos) << want.error;
  for (uint64_t piece : {5u, 16u, 25u, 40u, 64u, 200u}) {
    for (unsigned workers : {1u, 3u}) {
      SCOPED_TRACE("piece " + std::to_string(piece) + ", workers " + std::to_string(workers));
      o.read_threads = workers;
      o.piece_bytes = piece;
      o.min_mapped_bytes = workers == 1 ? 1 : UINT64_MAX;
      EXPECT_EQ(run(o).error, want.error);
      o.min_mapped_bytes = workers == 1 ? UINT64_MAX : 1;
      // Batches of one record: the bytes read past a batch's last record
      // are no record of their own, however long.
      o.batch_records = 1;
      EXPECT_EQ(run(o).error, want.error);
    }
  }
}

// A run stopped after a few batches and resumed, with any worker count on
// either side, ends with the uninterrupted run's output and filter; the
// resumed part of a plain file starts at the checkpoint's offset.
TEST_F(ParallelFrontEndTest, StoppedAndResumedWithOtherWorkerCounts) {
  std::vector<std::string> texts = {tricky_text(2000, 30, '\n', true),
                                    tricky_text(800, 31, '\n', false)};
  PipelineOptions o;
  o.inputs = {write_file("a.txt", texts[0]), write_file("b.gz", test::gzip(texts[1])),
              write_file("c.txt", texts[0].substr(0, 3000))};
  texts.push_back(texts[0].substr(0, 3000));
  o.output = path("out");
  o.batch_records = 100;
  o.piece_bytes = 500;
  const Result want = run(o);
  ASSERT_EQ(want.output, exact_dedup(texts, '\n'));
  o.checkpoint = path("ck");
  for (unsigned before : {1u, 3u}) {
    for (unsigned after : {1u, 2u, 8u}) {
      for (uint64_t stop_after : {2u, 9u, 30u}) {
        SCOPED_TRACE("workers " + std::to_string(before) + " then " + std::to_string(after) +
                     ", stopped after " + std::to_string(stop_after) + " batches");
        fs::remove(o.checkpoint);
        std::atomic<bool> stop{false};
        uint64_t batches = 0;
        PipelineOptions first = o;
        first.read_threads = before;
        // Mapped on one side of the stop, read on the other.
        first.min_mapped_bytes = kMappings[stop_after % 2];
        o.min_mapped_bytes = kMappings[(stop_after + 1) % 2];
        first.stop = &stop;
        first.on_progress = [&](const Progress&) {
          if (++batches >= stop_after) stop = true;
        };
        Filter filter(kParams);
        auto backend = make_cpu_backend(filter);
        const PipelineStats stopped = run_pipeline(first, filter, *backend);
        ASSERT_TRUE(stopped.interrupted);
        Checkpoint ck = load_checkpoint(o.checkpoint);
        auto resumed_backend = make_cpu_backend(ck.filter);
        PipelineOptions second = o;
        second.read_threads = after;
        second.resume = &ck.state;
        const PipelineStats done = run_pipeline(second, ck.filter, *resumed_backend);
        EXPECT_EQ(read_file(o.output), want.output);
        EXPECT_EQ(done.records, want.stats.records);
        EXPECT_EQ(done.kept, want.stats.kept);
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(ck.filter.words()),
                              ck.filter.params().bytes()) +
                      "/" + std::to_string(ck.filter.counters().insertions),
                  want.filter);
      }
    }
  }
}

// Compressed files whose members or frames decode apart, cut into parts of
// any size: BGZF, `cat`-joined gzip members, zstd frames (plain, as pzstd
// writes them, with a seek table), and gzip files holding a gzip image
// stored inside a member, which the member scan takes for a boundary: the
// part before reads on through the parts after it, up to a real boundary
// or to the file's end (then its tail is the file's last record).
TEST_F(ParallelFrontEndTest, PartsOfCompressedFilesGiveTheOneThreadResult) {
  const std::string inner = test::gzip(tricky_text(3000, 50, '\n', false));
  struct Case {
    const char* name;
    std::string text;  // decoded
    std::string bytes;
  };
  std::vector<Case> cases;
  auto add = [&](const char* name, std::string text, std::string bytes) {
    cases.push_back({name, std::move(text), std::move(bytes)});
  };
  const std::string t[] = {tricky_text(900, 51, '\n', true), tricky_text(900, 52, '\n', false),
                           tricky_text(900, 53, '\n', true)};
  add("bgzf", t[0], test::bgzf(t[0], 500));
  add("gzip members", t[1], test::gzip_members(t[1], 700));
  add("zstd frames", t[2], test::zstd_frames(t[2], 900));
  add("pzstd", t[0], test::zstd_frames(t[0], 600, true));
  add("seekable zstd", t[1], test::zstd_frames(t[1], 800, false, true));
  add("stored gzip image, then a member", t[0] + inner + t[2] + t[1],
      test::gzip(t[0] + inner + t[2], 0) + test::gzip(t[1]));
  add("stored gzip image at the end", t[1] + inner, test::gzip(t[1] + inner, 0));
  for (const Case& c : cases) {
    PipelineOptions o;
    o.inputs = {write_file("in", c.bytes)};
    o.output = path("out");
    const Result want = run(o);
    ASSERT_EQ(want.error, "") << c.name;
    ASSERT_TRUE(want.output == exact_dedup({c.text}, '\n')) << c.name;
    for (uint64_t part : {1u, 600u, 5000u}) {
      // A plan with several parts, so that the work really is split.
      ASSERT_GT(pipeline::plan_pieces(o.inputs, {1 << 20, part}).size(), 1u) << c.name;
      for (unsigned workers : {2u, 5u}) {
        for (uint64_t batch : {7u, 262144u}) {
          SCOPED_TRACE(std::string(c.name) + ", parts of " + std::to_string(part) +
                       " bytes, workers " + std::to_string(workers) + ", batch " +
                       std::to_string(batch));
          o.read_threads = workers;
          o.compressed_piece_bytes = part;
          o.batch_records = batch;
          expect_same(run(o), want);
        }
      }
    }
  }
}

// Parts of compressed files among other inputs, NUL-separated records, and a
// stop and resume inside a cut file (resumed whole from the checkpoint's
// position, since a part does not know its decoded offset).
TEST_F(ParallelFrontEndTest, CompressedPartsInAListStoppedAndResumed) {
  const std::vector<std::string> texts = {tricky_text(1500, 60, '\0', true),
                                          tricky_text(700, 61, '\0', false),
                                          tricky_text(1500, 62, '\0', false)};
  PipelineOptions o;
  o.inputs = {write_file("a.bgz", test::bgzf(texts[0], 400)), write_file("b.txt", texts[1]),
              write_file("c.zst", test::zstd_frames(texts[2], 500))};
  o.output = path("out");
  o.record_separator = '\0';
  o.batch_records = 50;
  const Result want = run(o);
  ASSERT_EQ(want.output, exact_dedup(texts, '\0'));
  o.compressed_piece_bytes = 300;
  o.piece_bytes = 1000;
  o.read_threads = 4;
  expect_same(run(o), want);
  o.checkpoint = path("ck");
  for (uint64_t stop_after : {3u, 40u, 90u}) {
    SCOPED_TRACE("stopped after " + std::to_string(stop_after) + " batches");
    fs::remove(o.checkpoint);
    std::atomic<bool> stop{false};
    uint64_t batches = 0;
    PipelineOptions first = o;
    first.stop = &stop;
    first.on_progress = [&](const Progress&) {
      if (++batches >= stop_after) stop = true;
    };
    Filter filter(kParams);
    auto backend = make_cpu_backend(filter);
    ASSERT_TRUE(run_pipeline(first, filter, *backend).interrupted);
    Checkpoint ck = load_checkpoint(o.checkpoint);
    auto resumed_backend = make_cpu_backend(ck.filter);
    PipelineOptions second = o;
    second.resume = &ck.state;
    second.read_threads = 3;
    const PipelineStats done = run_pipeline(second, ck.filter, *resumed_backend);
    EXPECT_TRUE(read_file(o.output) == want.output);
    EXPECT_EQ(done.records, want.stats.records);
    EXPECT_EQ(done.kept, want.stats.kept);
  }
}

// Damage in a part, and a file changed after its parts were planned: the
// failure says what the one-thread run says, after the same records.
TEST_F(ParallelFrontEndTest, DamagedOrChangedCompressedPartsFailAsWithOneThread) {
  const std::string text = tricky_text(4000, 70, '\n', false);
  for (const std::string& good : {test::bgzf(text, 700), test::zstd_frames(text, 900)}) {
    std::string bad = good;
    bad[bad.size() * 2 / 3] ^= 0x55;
    bad[bad.size() * 2 / 3 + 1] ^= 0x55;
    PipelineOptions o;
    o.inputs = {write_file("bad", bad)};
    o.output = path("out.fifo");
    fs::remove(o.output);
    ASSERT_EQ(::mkfifo(o.output.c_str(), 0600), 0);
    const Result one = run_into_fifo(o);
    ASSERT_NE(one.error.find("damaged"), std::string::npos) << one.error;
    for (unsigned workers : {2u, 6u}) {
      SCOPED_TRACE("workers " + std::to_string(workers));
      o.read_threads = workers;
      o.compressed_piece_bytes = 500;
      const Result many = run_into_fifo(o);
      EXPECT_EQ(many.error, one.error);
      EXPECT_TRUE(many.output == one.output) << "outputs differ";
    }
  }
  const std::string file = write_file("in.bgz", test::bgzf(text, 700));
  const std::vector<pipeline::Piece> plan = pipeline::plan_pieces({file}, {1 << 20, 1000});
  ASSERT_GT(plan.size(), 3u);
  EXPECT_EQ(plan[2].kind, pipeline::PieceKind::kCompressedPart);
  std::ofstream(file, std::ios::app) << "more";
  expect_changed_file_refused(plan[2], file);
}

// Compressed files are cut only where whole files would leave workers idle:
// with at least two inputs a worker, each is one piece.
TEST_F(ParallelFrontEndTest, CompressedFilesAreCutOnlyWhenWorkersWouldIdle) {
  const std::string text = tricky_text(2000, 80, '\n', false);
  const std::string file = write_file("in.bgz", test::bgzf(text, 700));
  EXPECT_EQ(pipeline::plan_pieces({file, file}, {1 << 20, 1000, false}).size(), 2u);
  EXPECT_GT(pipeline::plan_pieces({file, file}, {1 << 20, 1000, true}).size(), 4u);
  // A resume inside the file reads it whole from the position.
  StreamPoint from;
  from.input_offset = text.find('\n') + 1;
  const std::vector<pipeline::Piece> resumed = pipeline::plan_pieces({file}, {1 << 20, 1000}, from);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].kind, pipeline::PieceKind::kWholeInput);
}

size_t open_descriptors() {
  return static_cast<size_t>(std::distance(fs::directory_iterator("/proc/self/fd"),
                                           fs::directory_iterator()));
}

// Many small inputs: each is a piece of its own, opened only while a worker
// reads it, so a long list holds no descriptor per input.
TEST_F(ParallelFrontEndTest, ManySmallInputsLeaveNoDescriptorOpen) {
  std::vector<std::string> texts;
  PipelineOptions o;
  o.inputs.clear();
  // Fewer under AddressSanitizer, where each file costs ten times more.
  const int files = test::kAddressSanitizer ? 300 : 3000;
  for (int i = 0; i < files; ++i) {
    texts.push_back(tricky_text(3, 40 + i, '\n', i % 3 == 0));
    o.inputs.push_back(write_file("s" + std::to_string(i), texts.back()));
  }
  o.output = path("out");
  const size_t before = open_descriptors();
  const Result want = run(o);
  ASSERT_EQ(want.output, exact_dedup(texts, '\n'));
  o.read_threads = 4;
  expect_same(run(o), want);
  EXPECT_EQ(open_descriptors(), before);
}

// A plain file changed between planning and reading a range of it fails,
// never giving records of two versions.
TEST_F(ParallelFrontEndTest, AFileChangedWhileItsRangesAreReadFails) {
  const std::string file = write_file("in", std::string(1000, 'a') + "\n");
  const std::vector<pipeline::Piece> plan = pipeline::plan_pieces({file}, pipeline::PieceSizes{100});
  ASSERT_EQ(plan.size(), 11u);
  EXPECT_EQ(plan[0].kind, pipeline::PieceKind::kPlainRange);
  std::ofstream(file, std::ios::app) << "more\n";
  expect_changed_file_refused(plan[3], file);
}

// A resume position that is not a record boundary of the input is refused:
// the input is not the one the checkpoint was taken on.
TEST_F(ParallelFrontEndTest, AResumeOffsetOffARecordBoundaryIsRefused) {
  const std::string plain = write_file("in", "abc\ndef\nghi\n" + std::string(300, 'z') + "\n");
  const std::string packed = write_file("in.gz", test::gzip("abc\ndef\nghi\n"));
  for (const std::string& file : {plain, packed}) {
    SCOPED_TRACE(file);
    StreamPoint from;
    from.input_offset = 6;  // inside "def"
    const std::vector<pipeline::Piece> plan = pipeline::plan_pieces({file}, pipeline::PieceSizes{100}, from);
    ASSERT_FALSE(plan.empty());
    try {
      pipeline::open_piece(plan[0], file, '\n');
      FAIL() << "a position inside a record was taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::resume_mismatch);
      EXPECT_NE(std::string(e.what()).find("no record boundary at byte 6"), std::string::npos)
          << e.what();
    }
    from.input_offset = 8;  // after "def\n"
    EXPECT_NO_THROW(pipeline::open_piece(pipeline::plan_pieces({file}, pipeline::PieceSizes{100}, from)[0], file, '\n'));
  }
}

}  // namespace
}  // namespace gdedup
