// ShardedSet (gdedup/frontend/mpi.h): each rank's KeySet holds the keys of its range
// as mpi/key_ranges.h places them. Saving a set file or a checkpoint sends
// them to rank 0 in rank order, which is the keys' order; loading either,
// each rank reads the whole file a piece at a time and keeps its range.
#include <mpi.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/owner_partition.h"
#include "format/set_stream.h"
#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/set_file.h"
#include "mpi/check.h"
#include "mpi/key_ranges.h"

namespace gdedup::mpi {
namespace {

constexpr int kKeysTag = 31;
// Keys a message holds at most (1 MiB).
constexpr size_t kPieceKeys = size_t{1} << 16;

// `n` keys that `owner` holds as `local`, as they are, into `out`.
void to_global(const Key84* local, size_t n, unsigned owner, std::vector<Key84>& out) {
  const KeyRanges ranges(rank_info().ranks);
  out.resize(n);
  for (size_t i = 0; i < n; ++i) out[i] = ranges.global(local[i], owner);
}

// This rank's keys, ascending, to `sink` a piece at a time.
void each_own_key(const KeySet& part, const KeySink& sink) {
  std::vector<Key84> piece;
  part.for_each_sorted([&](const Key84* local, size_t n) {
    for (size_t at = 0; at < n; at += kPieceKeys) {
      const size_t count = std::min(n - at, kPieceKeys);
      to_global(local + at, count, rank_info().rank, piece);
      sink(piece.data(), count);
    }
  });
}

// A rank's share of `keys` keys (0: none given). Refuses more ranks than a
// key's owner can be noted for (two bytes, core/owner_partition.h).
uint64_t share(uint64_t keys) {
  const unsigned ranks = rank_info().ranks;
  if (ranks > detail::BlockOwners::kMaxOwners) {
    throw UsageError("an exact set can be spread over at most " +
                     group_digits(detail::BlockOwners::kMaxOwners) + " ranks, and this job has " +
                     group_digits(ranks) + "; run fewer ranks");
  }
  return keys / ranks + (keys % ranks != 0 ? 1 : 0);
}

}  // namespace

ShardedSet::ShardedSet(uint64_t capacity, const KeySetOptions& options,
                       const KeySetSizeNames& names)
    : part_(KeySet::sized(share(capacity), options,
                          KeySetSizeNames{names.capacity_given + " (a rank's share of it)",
                                          names.capacity, names.cap_given, names.cap})) {}
ShardedSet::ShardedSet(KeySet part) : part_(std::move(part)) {}
ShardedSet::ShardedSet(ShardedSet&&) noexcept = default;
ShardedSet::~ShardedSet() = default;

namespace {

// This rank's keys of the set file (a set checkpoint where `checkpoint`) at
// `path`, in a part made with `options`, the file's head in `info`, a
// checkpoint's state in `state`. No rank holds more than its part and a
// piece of the file.
KeySet own_range(const std::string& path, bool checkpoint, const KeySetOptions& options,
                 SetFileInfo& info, ResumeState* state) {
  const RankInfo& me = rank_info();
  const KeyRanges ranges(me.ranks);
  std::optional<KeySet> part;
  std::vector<Key84> mine;
  read_set_streamed(
      path, checkpoint,
      [&](const SetFileInfo& head, const ResumeState* saved) {
        info = head;
        if (state != nullptr) *state = *saved;
        // Room for its share at once, within the cap: a part that fits the
        // cap grown key by key fits it so too (KeySet::reserve).
        part.emplace(0, options);
        part->reserve(share(head.keys));
      },
      [&](const Key84* keys, size_t n) {
        mine.clear();
        for (size_t i = 0; i < n; ++i) {
          if (ranges.owner_of(keys[i]) == me.rank) mine.push_back(ranges.local(keys[i]));
        }
        part->insert(mine.data(), mine.size());
      });
  return std::move(*part);
}

// Collective. Rank 0 runs `write` with the whole set's key count and keys,
// its own, then rank 1's, and so on, a piece at a time; when it fails, every
// rank throws JobFailed, rank 0's holding its error.
void write_on_rank0(const KeySet& part,
                    const std::function<void(uint64_t keys, const SortedKeys& sorted)>& write) {
  const RankInfo& me = rank_info();
  uint64_t keys = 0;
  const uint64_t mine = part.size();
  check(MPI_Allreduce(&mine, &keys, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  if (me.rank != 0) {
    // The keys, then an empty message for their end.
    each_own_key(part, [](const Key84* piece, size_t n) {
      check(MPI_Send(piece, static_cast<int>(n * sizeof(Key84)), MPI_BYTE, 0, kKeysTag,
                     MPI_COMM_WORLD),
            "MPI_Send");
    });
    check(MPI_Send(nullptr, 0, MPI_BYTE, 0, kKeysTag, MPI_COMM_WORLD), "MPI_Send");
    share_failure_of_rank0(nullptr);
    return;
  }
  std::vector<bool> ended(me.ranks, false);
  std::vector<Key84> received(kPieceKeys);
  // Rank r's keys to `sink` until their end (none: dropped).
  auto receive = [&](unsigned r, const KeySink* sink) {
    while (!ended[r]) {
      MPI_Status status;
      check(MPI_Recv(received.data(), static_cast<int>(kPieceKeys * sizeof(Key84)), MPI_BYTE,
                     static_cast<int>(r), kKeysTag, MPI_COMM_WORLD, &status),
            "MPI_Recv");
      int bytes = 0;
      check(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
      ended[r] = bytes == 0;
      if (bytes > 0 && sink != nullptr) (*sink)(received.data(), bytes / sizeof(Key84));
    }
  };
  std::exception_ptr failure;
  try {
    write(keys, [&](const KeySink& sink) {
      each_own_key(part, sink);
      for (unsigned r = 1; r < me.ranks; ++r) receive(r, &sink);
    });
  } catch (...) {
    failure = std::current_exception();
  }
  // After a failure the others' keys still come; they are taken and dropped.
  for (unsigned r = 1; r < me.ranks; ++r) receive(r, nullptr);
  share_failure_of_rank0(failure);
}

}  // namespace

ShardedSet ShardedSet::load(const std::string& path, const KeySetOptions& options,
                            KeyRules& rules) {
  SetFileInfo info;
  ShardedSet out(own_range(path, false, options, info, nullptr));
  rules = info.rules;
  return out;
}

uint64_t ShardedSet::part_bytes_for(uint64_t keys) { return KeySet::bytes_for(share(keys)); }

ShardedSet ShardedSet::load_checkpoint(const std::string& path, const KeySetOptions& options,
                                       KeyRules& rules, ResumeState& state) {
  SetFileInfo info;
  ShardedSet out(own_range(path, true, options, info, &state));
  rules = info.rules;
  return out;
}

void ShardedSet::save(const std::string& path, const KeyRules& rules) const {
  write_on_rank0(part_, [&](uint64_t keys, const SortedKeys& sorted) {
    save_set_streamed(keys, sorted, rules, path);
  });
}

void ShardedSet::save_checkpoint(const ResumeState& state, const KeyRules& rules,
                                 const std::string& path) const {
  write_on_rank0(part_, [&](uint64_t keys, const SortedKeys& sorted) {
    save_set_checkpoint_streamed(keys, sorted, rules, state, path);
  });
}

ShardedSet::Totals ShardedSet::totals() const {
  const uint64_t mine[2] = {part_.size(), part_.bytes()};
  uint64_t all[2] = {0, 0};
  check(MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  // The slots, from each part's keys and load.
  const double slots = part_.load() > 0 ? static_cast<double>(part_.size()) / part_.load() : 0;
  double all_slots = 0;
  check(MPI_Allreduce(&slots, &all_slots, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  return Totals{all[0], all[1], all_slots > 0 ? static_cast<double>(all[0]) / all_slots : 0};
}

const Key84* ShardedSet::local(const Key84* keys, uint64_t count) {
  const KeyRanges ranges(rank_info().ranks);
  scratch_.resize(count);
  for (uint64_t i = 0; i < count; ++i) scratch_[i] = ranges.local(keys[i]);
  return scratch_.data();
}

uint64_t ShardedSet::test_and_insert(const Key84* keys, uint64_t count, uint8_t* answers) {
  const Key84* mine = local(keys, count);
  if (answers == nullptr) return part_.insert(mine, count);
  return part_.test_and_insert(mine, count, answers);
}

void ShardedSet::contains(const Key84* keys, uint64_t count, uint8_t* answers) {
  part_.contains(local(keys, count), count, answers);
}

}  // namespace gdedup::mpi
