// One job over the ranks of an MPI launch (docs/SCALE-OUT.md): every rank
// holds only its range of the filter's blocks, reads its share of the input
// pieces, and sends each fingerprint to the rank that owns its block; the
// owners apply the keys in global input order, so the output and the saved
// filter are byte-identical to one process's. Built into the command only
// (gdedup_mpi); in a build without MPI, built() is false and every other
// function throws Error saying so.
//
// Functions marked collective are called by every rank of the job, in the
// same order; the others run on one rank alone.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/checkpoint.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/key_rules.h"
#include "gdedup/key_set.h"
#include "gdedup/layered_filter.h"
#include "gdedup/pipeline.h"

namespace gdedup::detail {
class BlockOwners;
class LayerStack;
}  // namespace gdedup::detail

namespace gdedup::mpi {

bool built();

struct RankInfo {
  unsigned rank = 0;
  unsigned ranks = 1;
  // Its rank among the ranks on its machine (MPI_COMM_TYPE_SHARED): the
  // GPU it runs on.
  unsigned local_rank = 0;
  std::string host;  // MPI_Get_processor_name
};

// Collective. Starts MPI in this process; call once, before any other
// function here.
RankInfo join(int* argc, char*** argv);
// Collective. Ends MPI; after it, only built() may be called.
void leave();
// Ends every rank of the job at once with `status`: prints "gdedup: rank R
// on HOST: message" to stderr, removes this rank's temporary files, then
// calls MPI_Abort, whose runtime stops the others. For a failure on one
// rank, which the others cannot learn of through the work they wait on.
[[noreturn]] void abort_job(const std::string& message, int status);

// Collective. Whether a check that every rank ran failed on some of them: the lowest
// rank that failed, or -1 when none did; `all_failed` says whether every
// rank failed (the same check on the same input: one message is enough).
int first_failure(bool failed, bool& all_failed);

// Thrown on every rank by a collective call that found a rank's work failed
// (run_sharded_pipeline, after a piece that could not be read): on the rank
// that failed, `failure` holds its error, to report; on the others it is
// null. Every rank knows, so each can end without MPI_Abort.
struct JobFailed : std::exception {
  int rank = 0;
  std::exception_ptr failure;
  // Every rank failed alike (a check of the same options and files): the
  // message needs no rank named.
  bool everywhere = false;
  const char* what() const noexcept override { return "a rank of the job failed"; }
};

// Collective. The job's largest exit status (each rank gives its own).
int max_status(int status);

// Collective. Whether every rank gave the same `value`.
bool same_everywhere(uint64_t value);

// Collective. Whether every rank sees at each of `inputs` (its own list, as
// it resolved the command's) the input rank 0 sees, and at each of
// `job_files` (the other files every rank reads, each with what the job
// calls it: "filter file", "checkpoint") the file rank 0 sees, or none where
// it sees none: the same paths, and of each regular file the same size and
// the same first and last 64 KiB (not the same modification time, which
// copies on different machines may not share). If not, throws JobFailed on
// every rank, the lowest rank that differs holding a UsageError that names
// the file and how it differs. Standard input and other streams are read by
// one rank: only their kind is compared.
void check_same_inputs(
    const std::vector<std::string>& inputs,
    const std::vector<std::pair<std::string, std::string>>& job_files = {});

// A filter spread over the ranks, fixed (one layer) or growing (layers added
// by a GrowthRule at the same keys as in one process, gdedup/layered_filter.h).
// Rank r holds of the newest layer the blocks [first_block(r),
// first_block(r + 1)) (core/owner_partition.h), num_blocks / ranks of them,
// and owns the keys whose blocks these are; of each older layer (frozen,
// read-only) it holds every block one of those keys maps to, so that it
// answers its keys in every layer alone: about num_blocks / ranks of each
// layer, plus a block or two at each edge that a neighbour holds too. Each
// layer's blocks are a Filter::part, which a backend (CPU, or the GPU of
// the rank) works on.
class ShardedFilter {
 public:
  // A zeroed fixed filter of `params`; `counters` are the whole filter's.
  // Throws UsageError for more ranks than blocks or than 65,536.
  ShardedFilter(const FilterParams& params, const FilterCounters& counters);
  // A new growing filter: its first layer planned by `rule`, keys
  // fingerprinted with `seed`; no layer is added past `max_bytes` of
  // layers (0: no limit).
  ShardedFilter(const GrowthRule& rule, uint64_t seed, uint64_t max_bytes);
  // The filter of the file at `path`, fixed or growing as saved: each rank
  // reads only its blocks; rank 0 also reads each whole bit array once,
  // without holding it, to verify its checksum. Throws Error as
  // load_filter_file does. Not collective: a rank that fails throws alone.
  static ShardedFilter load(const std::string& path);
  // The filter of the checkpoint at `path`, read the same way, and in
  // `state` the checkpoint's state. Throws Error as load_checkpoint does.
  // Not collective.
  static ShardedFilter load_checkpoint(const std::string& path, ResumeState& state);
  ShardedFilter(ShardedFilter&&) noexcept;
  ShardedFilter& operator=(ShardedFilter&&) = delete;
  ShardedFilter(const ShardedFilter&) = delete;
  ShardedFilter& operator=(const ShardedFilter&) = delete;
  ~ShardedFilter();

  // Collective. Writes the filter to `path` as save_filter writes the whole
  // filter, byte for byte: rank 0 writes the file, taking each layer's
  // blocks from the ranks in turn in pieces of at most 64 MiB, so that no
  // rank holds more than its own. The parts' words must be current
  // (sync_to_host).
  void save(const std::string& path, const std::optional<KeyRules>& keys);
  // Collective. Writes a checkpoint of the filter and `state` to `path`, as
  // save_checkpoint writes one process's filter (the same format, so either
  // kind of run resumes it), the way save() writes a filter file.
  void save_checkpoint(const ResumeState& state, const std::string& path);

  // The growth rule; nullopt for a fixed filter.
  const std::optional<GrowthRule>& growth() const { return growth_; }
  // Growing filters: keys offered over the filter's life, the limit on the
  // layers' bytes (0: none), and whether a layer was due past it.
  uint64_t keys_offered() const { return keys_offered_; }
  void set_max_bytes(uint64_t max_bytes) { max_bytes_ = max_bytes; }
  uint64_t max_bytes() const { return max_bytes_; }
  bool growth_refused() const { return growth_refused_; }

  size_t layer_count() const;
  // The first layer's parameters (a fixed filter's only ones): the seed.
  const FilterParams& params() const { return layer_params(0); }
  const FilterParams& layer_params(size_t layer) const;
  // The whole filter's bytes, all layers.
  uint64_t bytes() const;
  // Collective. The whole layer's counters (insertions summed over the
  // ranks) and set bits.
  FilterCounters counters(size_t layer = 0) const;
  uint64_t count_set_bits(size_t layer = 0) const;

  // The work of run_sharded_pipeline. Collective: makes each layer's
  // backend on this rank's part by `make_backend` (the CPU backend when
  // empty), and those of the layers added later.
  void use_backends(const BackendMaker& make_backend);
  // The owners of keys by their blocks of the newest layer, which change
  // when a layer is added.
  const detail::BlockOwners& owners() const;
  // Backend::test_and_set and contains over the layers, for keys this rank
  // owns (answers may be null for test_and_set); returns the keys new to the
  // newest layer.
  uint64_t test_and_set(const uint64_t* fingerprints, uint64_t count, uint8_t* answers);
  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present);
  // Collective, growing filters only: adds a layer where one is due (the
  // keys offered are at a growth check), then returns how many keys can be
  // offered before the next check that could add one; offered() counts them.
  uint64_t next_span();
  void offered(uint64_t keys) { keys_offered_ += keys; }
  // Makes every part's words current.
  void sync_to_host();

 private:
  struct Layer {
    FilterParams params;
    // The whole layer's: as planned or loaded, and for a layer no longer
    // the newest, its insertions at that point; the parts count the
    // insertions since.
    FilterCounters counters;
  };
  ShardedFilter();
  // Adds a layer as the newest, this rank's part of it zeroed.
  void add_layer(const FilterParams& params, const FilterCounters& counters);
  void add_planned_layer(const Plan& plan, uint64_t seed);
  // Adds this rank's part of layer i (the next one the parts lack), as the
  // layers now stand.
  void hold(size_t i);
  // The parts of loaded layers, once all are known.
  void hold_all_layers();
  // Collective. Rank 0 calls `write` with views of the layers whose bits
  // it gathers from the ranks; the others serve them.
  void write_on_rank0(const std::function<void(const std::vector<StreamedLayer>& layers)>& write);
  // Collective. After a layer was added to layers of `before` blocks: each
  // rank takes the blocks of the older layers that its keys now fall in,
  // those it lacks from the ranks that held them.
  void reshard_older_layers(const std::vector<uint64_t>& before);
  std::vector<uint64_t> layer_blocks() const;

  std::optional<GrowthRule> growth_;
  uint64_t keys_offered_ = 0;
  uint64_t max_bytes_ = 0;
  bool growth_refused_ = false;
  std::vector<Layer> layers_;
  std::unique_ptr<detail::LayerStack> parts_;  // this rank's part of each layer
  std::unique_ptr<detail::BlockOwners> owners_;  // of the newest layer
};

// The exact set of exact mode (--exact) spread over the ranks: rank r of R
// holds the keys whose top 64 bits t have floor(t * R / 2^64) = r
// (mpi/key_ranges.h), a range of key values ascending with r, in a KeySet
// of its own; so the set's memory is spread over the ranks, and each rank's
// keys in input order give the answers of one process's set.
class ShardedSet {
 public:
  // Empty, this rank's part sized for its share of `capacity` (0: the
  // smallest set); `options` are the part's (threads, cap). As
  // KeySet::sized, checked against the part's cap before it is made, in
  // the words of `names`.
  ShardedSet(uint64_t capacity, const KeySetOptions& options, const KeySetSizeNames& names);
  // This rank's keys of the set file at `path` (the whole file read a piece
  // at a time, the others' keys dropped), and in `rules` the file's key
  // rules. Throws Error as load_set_file does. Not collective.
  static ShardedSet load(const std::string& path, const KeySetOptions& options, KeyRules& rules);
  // The same of a set checkpoint, one process's or the ranks' of any
  // number, with its resume state in `state`. Throws Error as
  // load_set_checkpoint does (a Bloom filter's checkpoint is named as one).
  static ShardedSet load_checkpoint(const std::string& path, const KeySetOptions& options,
                                    KeyRules& rules, ResumeState& state);
  // The bytes that the part of the rank holding the most of a set of `keys`
  // keys takes at least, grown as one process's set grows
  // (KeySet::bytes_for): some rank holds at least its share of the keys. For
  // a set file's refusal from its header, before any rank loads a key.
  static uint64_t part_bytes_for(uint64_t keys);
  ShardedSet(ShardedSet&&) noexcept;
  ShardedSet& operator=(ShardedSet&&) = delete;
  ~ShardedSet();
  // Collective. Writes the set to `path` as save_set_file writes the whole
  // set, byte for byte: rank 0 writes the file, taking the ranks' keys in
  // turn, ascending, a piece at a time.
  void save(const std::string& path, const KeyRules& rules) const;
  // Collective. The same as save_set_checkpoint writes the whole set with
  // `state`, byte for byte.
  void save_checkpoint(const ResumeState& state, const KeyRules& rules,
                       const std::string& path) const;
  // This rank's part.
  const KeySet& part() const { return part_; }
  // Collective. The whole set's keys, bytes and load (keys over slots).
  struct Totals {
    uint64_t keys = 0;
    uint64_t bytes = 0;
    double load = 0;
  };
  Totals totals() const;
  // KeySet::test_and_insert and contains, for keys this rank owns.
  uint64_t test_and_insert(const Key84* keys, uint64_t count, uint8_t* answers);
  void contains(const Key84* keys, uint64_t count, uint8_t* answers);

 private:
  ShardedSet(KeySet part);
  // keys as this rank's part holds them, in scratch_.
  const Key84* local(const Key84* keys, uint64_t count);

  KeySet part_;
  std::vector<Key84> scratch_;
};

// Collective. run_pipeline over the ranks: modes dedup, duplicates, build and
// query, text or fingerprint input, fixed or growing filters, an output
// file (which every rank must be able to open: a shared filesystem past one
// machine), a stream that rank 0 writes, or parts each rank writes
// (PipelineOptions::output_parts), checkpoints.
// `make_backend` makes the backend of each of this rank's parts (the CPU
// backend when empty). Returns the whole job's stats on every rank, with
// the parts' words current.
PipelineStats run_sharded_pipeline(const PipelineOptions& options, ShardedFilter& filter,
                                   const BackendMaker& make_backend = {});

// Collective. run_sharded_pipeline in exact mode: the keys made by `rules`
// (its seed), text input only; checkpoints in the set checkpoint format
// (ShardedSet::save_checkpoint).
PipelineStats run_sharded_pipeline(const PipelineOptions& options, ShardedSet& set,
                                   const KeyRules& rules);
// What a round of the sharded filter costs (gdedup bench --mpi), in the
// slowest rank's seconds over all the batches.
struct ExchangeCosts {
  // Partition by owner and the two MPI_Alltoallv (8 bytes out, 1 back a
  // key), with owners that answer without probing.
  double exchange_seconds = 0;
  // The same with each owner's test_and_set on its blocks: what a round
  // costs besides reading, hashing and writing.
  double round_seconds = 0;
  // test_and_set of the rank's keys on the whole filter held by the rank
  // alone: the one-process figure to compare with.
  double whole_seconds = 0;
  std::string backend;  // the backend the owners ran on
};

// Collective. Hands in each of this rank's `batches` of fingerprints in
// turn, over a zeroed filter of `params` shared by the ranks whose parts
// (and, for the last figure, whole filter) run on backends made by
// `make_backend`.
ExchangeCosts measure_exchange(const FilterParams& params,
                               const std::vector<std::vector<uint64_t>>& batches,
                               const BackendMaker& make_backend);

}  // namespace gdedup::mpi
