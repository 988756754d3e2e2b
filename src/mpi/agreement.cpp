// The checks of mpi/agreement.h and check_same_inputs (gdedup/frontend/mpi.h): each
// rank compares what it found with rank 0's, and the lowest rank that
// differs says how, naming both sides (the caller adds its rank and host).
#include "mpi/agreement.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/frontend/paths.h"
#include "mpi/check.h"

namespace gdedup::mpi {
namespace {

constexpr const char* kSameFiles =
    "; every rank must see the same file at each path the job reads (a filesystem the ranks "
    "share, or identical copies)";
// After check_same_inputs, plans differ only where the inputs differ past
// what it compares, or changed since.
constexpr const char* kPlansDiffer =
    ": the ranks see different inputs (alike in size and in their first and last 64 KiB), or "
    "an input changed while the job started; every rank must see the same files, unchanged "
    "while the job runs";

std::string bytes_text(uint64_t bytes) { return group_digits(bytes) + " bytes"; }

// The bytes of a file the ranks compare: its first and last 64 KiB (a
// filter file's header and layer table with the bit arrays' checksums, a
// checkpoint's header with its own; a gzip file's last bytes hold its last
// member's CRC-32 and length), all of it below 128 KiB. Two reads of each
// file on every rank, whatever its size: a file's middle that differs
// between ranks whose copies have the same size, start and end goes unseen.
constexpr uint64_t kSampleEdge = 64 << 10;

// A file as the ranks compare it.
struct Identity {
  // A stream (standard input, a pipe, a device) is read by one rank, and
  // opening a pipe would wait for a writer: only its kind is compared. A
  // job file (a filter file, a checkpoint) may be missing.
  enum Kind : uint64_t { kMissing, kStream, kRegular };
  std::string path;
  Kind kind = kStream;
  uint64_t size = 0;
  uint64_t sample = 0;  // XXH3-64 of the bytes above
};

const char* kind_text(Identity::Kind kind) {
  switch (kind) {
    case Identity::kMissing:
      return "missing";
    case Identity::kStream:
      return "a stream";
    case Identity::kRegular:
      break;
  }
  return "a regular file";
}

// `what`: "input", or what the job calls a job file.
Identity identify(const std::string& path, const std::string& what) {
  Identity id;
  id.path = path;
  fs::FileStatus status;
  if (path == "-") return id;
  int err = fs::status_of_path(path, status);
  // The job checked that its inputs exist; a job file may not exist yet.
  if (err == ENOENT && what != "input") {
    id.kind = Identity::kMissing;
    return id;
  }
  if (err == 0 && !status.regular()) return id;
  fs::File file;
  err = fs::open_for_reading(path, file);
  if (err == 0) err = fs::status_of(file.fd(), status);
  if (err != 0) {
    throw Error("cannot open " + what + " " + path + ": " + fs::error_text(err), ErrorKind::io);
  }
  if (!status.regular()) return id;
  id.kind = Identity::kRegular;
  id.size = status.size;
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  std::vector<char> buffer(kSampleEdge);
  auto add = [&](uint64_t offset, uint64_t length) {
    const int64_t got = fs::read_at(file.fd(), buffer.data(), length, offset);
    if (got < 0) {
      throw Error("cannot read " + what + " " + path + " at byte offset " + std::to_string(offset) +
                      ": " + fs::error_text(errno),
                  ErrorKind::io);
    }
    // A file cut short meanwhile hashes what is left, as no rank that saw
    // it whole does.
    XXH3_64bits_update(&state, buffer.data(), static_cast<size_t>(got));
  };
  const uint64_t head = std::min(id.size, kSampleEdge);
  const uint64_t tail = std::max(head, id.size - head);  // where the head ends, at the earliest
  add(0, head);
  add(tail, id.size - tail);
  id.sample = XXH3_64bits_digest(&state);
  return id;
}

// Rank 0's inputs, as identify() found them, and its host.
struct Rank0Inputs {
  std::string host;
  std::vector<std::string> paths;
  std::vector<uint64_t> values;  // kind, size and sample of each file
};

// Collective. Rank 0's `mine` and host on every rank.
Rank0Inputs inputs_of_rank0(const std::vector<Identity>& mine) {
  // Paths hold no NUL byte: NUL separates them.
  std::string text = rank_info().host;
  std::vector<uint64_t> values;
  for (const Identity& id : mine) {
    text += '\0' + id.path;
    values.insert(values.end(), {id.kind, id.size, id.sample});
  }
  broadcast(text, "the inputs' paths");
  Rank0Inputs out;
  size_t at = text.find('\0');
  out.host = text.substr(0, at);
  while (at != std::string::npos) {
    const size_t next = text.find('\0', at + 1);
    out.paths.push_back(text.substr(at + 1, next == std::string::npos ? next : next - at - 1));
    at = next;
  }
  out.values = values_of_rank0(values, "the inputs' identities");
  return out;
}

// A file every rank reads besides the inputs, and what the job calls it.
using JobFiles = std::vector<std::pair<std::string, std::string>>;

// Throws UsageError naming the first way `mine` (`inputs` inputs, then the
// job files) differs from rank 0's.
void compare_with_rank0(const std::vector<Identity>& mine, size_t inputs,
                        const JobFiles& job_files, const Rank0Inputs& rank0) {
  const std::string there = " on rank 0 (on " + rank0.host + ")";
  auto inputs_text = [](size_t count) {
    return group_digits(count) + (count == 1 ? " input" : " inputs");
  };
  const std::string lists =
      "; every rank must find the same inputs (the same input list, the same files under the "
      "folders read, no missing input left out on some of them only)";
  // The command lines are the same: so are the job files.
  const size_t rank0_inputs = rank0.paths.size() - job_files.size();
  for (size_t i = 0; i < inputs || i < rank0_inputs; ++i) {
    const std::string number = "input " + group_digits(i + 1);
    if (i == inputs || i == rank0_inputs) {
      const std::string extra = i == inputs ? "its " + number + " is " + rank0.paths[i]
                                            : number + " here is " + mine[i].path;
      throw UsageError("this rank has " + inputs_text(inputs) + " and rank 0 (on " + rank0.host +
                       ") " + group_digits(rank0_inputs) + ": " + extra + lists);
    }
    if (mine[i].path != rank0.paths[i]) {
      throw UsageError(number + " is " + mine[i].path + " here and " + rank0.paths[i] + there +
                       lists);
    }
  }
  for (size_t i = 0; i < mine.size(); ++i) {
    const Identity& id = mine[i];
    const uint64_t* theirs = &rank0.values[3 * i];
    const std::string file = (i < inputs ? "input" : job_files[i - inputs].first) + " " + id.path;
    if (id.kind != theirs[0]) {
      throw UsageError(file + " is " + kind_text(id.kind) + " here and " +
                       kind_text(static_cast<Identity::Kind>(theirs[0])) + there + kSameFiles);
    }
    if (id.kind != Identity::kRegular) continue;
    if (id.size != theirs[1]) {
      throw UsageError(file + " has " + bytes_text(id.size) + " here and " +
                       bytes_text(theirs[1]) + there + kSameFiles);
    }
    if (id.sample != theirs[2]) {
      throw UsageError(file + " has the same size here as" + there + ", " +
                       bytes_text(id.size) + ", but other bytes at its start or end" +
                       kSameFiles);
    }
  }
}

// The index of the first of `mine` that differs from `rank0` (past the
// shorter list when one begins the other), or nullopt.
std::optional<size_t> first_difference(const std::vector<uint64_t>& mine,
                                       const std::vector<uint64_t>& rank0) {
  for (size_t i = 0; i < mine.size() || i < rank0.size(); ++i) {
    if (i == mine.size() || i == rank0.size() || mine[i] != rank0[i]) return i;
  }
  return std::nullopt;
}

uint64_t double_bits(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

void check_same_inputs(const std::vector<std::string>& inputs, const JobFiles& job_files) {
  if (rank_info().ranks == 1) return;  // nothing to compare with
  std::vector<Identity> mine(inputs.size() + job_files.size());
  check_together([&] {
    for (size_t i = 0; i < inputs.size(); ++i) mine[i] = identify(inputs[i], "input");
    for (size_t i = 0; i < job_files.size(); ++i) {
      mine[inputs.size() + i] = identify(job_files[i].second, job_files[i].first);
    }
  });
  const Rank0Inputs rank0 = inputs_of_rank0(mine);
  check_together([&] {
    if (rank_info().rank != 0) compare_with_rank0(mine, inputs.size(), job_files, rank0);
  });
}

void check_same_filter(const ShardedFilter& filter) {
  // What places a key's blocks and adds layers, each with its name.
  std::vector<uint64_t> values;
  std::vector<std::string> names;
  auto add = [&](const std::string& name, uint64_t value) {
    names.push_back(name);
    values.push_back(value);
  };
  add("layers", filter.layer_count());
  for (size_t i = 0; i < filter.layer_count(); ++i) {
    const FilterParams& params = filter.layer_params(i);
    const std::string layer = " of layer " + std::to_string(i + 1);
    add("blocks" + layer, params.num_blocks);
    add("block bits" + layer, params.layout.block_bits);
    add("bits set per key" + layer, params.layout.k);
    add("seed" + layer, params.seed);
  }
  const std::optional<GrowthRule>& rule = filter.growth();
  add("growth", rule.has_value());
  if (rule) {
    add("first layer's keys", rule->first_capacity);
    add("growth's false-positive rate", double_bits(rule->target_fpr));
    add("growth factor", rule->growth);
    add("growth's tightening", double_bits(rule->tightening));
    add("growth's block bits", rule->block_bits);
    add("growth's check interval", rule->check_every);
    add("keys offered", filter.keys_offered());
    add("memory limit", filter.max_bytes());
  }
  const std::vector<uint64_t> rank0 = values_of_rank0(values, "the filter's plan");
  const std::optional<size_t> at = first_difference(values, rank0);
  check_together([&] {
    if (!at) return;
    std::string what = "layers";  // one list ended first: a layer more or less
    if (*at < values.size() && *at < rank0.size()) {
      what = names[*at] + ": " + group_digits(values[*at]) + " here and " +
             group_digits(rank0[*at]) + " on rank 0";
    }
    throw Error("the ranks planned different filters (" + what + ")" + kPlansDiffer,
                ErrorKind::input_changed);
  });
}

void check_same_pieces(const std::vector<pipeline::Piece>& pieces,
                       const std::vector<std::string>& inputs) {
  // Each input's pieces, hashed: the pieces cut it alike where the hashes
  // are the same.
  std::vector<uint64_t> values(inputs.size());
  std::vector<uint64_t> sizes(inputs.size());  // as planned here, for the message
  for (const pipeline::Piece& piece : pieces) {
    const uint64_t fields[] = {static_cast<uint64_t>(piece.kind), piece.begin, piece.end,
                               piece.starts_record, piece.ends_input, piece.stamp.size};
    values[piece.input] = XXH3_64bits_withSeed(fields, sizeof fields, values[piece.input]);
    sizes[piece.input] = piece.stamp.size;
  }
  const std::optional<size_t> at =
      first_difference(values, values_of_rank0(values, "the inputs' pieces"));
  check_together([&] {
    if (!at) return;
    std::string which = "the inputs";
    if (*at < inputs.size()) {
      which = "input " + inputs[*at];
      if (sizes[*at] != 0) which += " (" + bytes_text(sizes[*at]) + " here)";
    }
    throw Error("the ranks cut " + which + " into different pieces" + kPlansDiffer,
                ErrorKind::input_changed);
  });
}

}  // namespace gdedup::mpi
