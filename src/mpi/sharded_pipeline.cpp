// run_sharded_pipeline (gdedup/mpi.h): the rounds of docs/SCALE-OUT.md. The
// input is cut into pieces by the plan every rank makes alike
// (pipeline/piece_plan.h); in round k rank r reads and fingerprints piece
// kR + r, the keys go to their owners and their answers come back
// (mpi/key_exchange.h), and each rank writes its piece's kept records at
// the output offset the ranks before it leave (mpi/shared_output.h).
#include <mpi.h>

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "cpu/kernels.h"
#include "gdedup/error.h"
#include "gdedup/output_file.h"
#include "io/record_reader.h"
#include "gdedup/mpi.h"
#include "mpi/check.h"
#include "mpi/key_exchange.h"
#include "mpi/piece_records.h"
#include "mpi/shared_output.h"
#include "mpi/sharding.h"
#include "pipeline/key_hasher.h"
#include "pipeline/piece_plan.h"

namespace gdedup::mpi {
namespace {

bool is_query(Mode mode) { return mode == Mode::kQueryPresent || mode == Mode::kQueryAbsent; }

}  // namespace

void check_supported(const PipelineOptions& options) {
  if (options.format != InputFormat::kText) {
    throw UsageError("--input-format u64 is not supported under --mpi yet; run the job in one "
                     "process, or give text input");
  }
  for (const std::string& input : options.inputs) {
    if (input == "-") {
      throw UsageError("under --mpi the input must be files: standard input reaches one rank "
                       "only; give the input as a file");
    }
  }
  if (options.mode != Mode::kBuild && io::replaced_file(options.output).empty()) {
    throw UsageError("under --mpi the output must be a file (-o FILE), which every rank writes "
                     "its part of; " +
                     (options.output == "-" ? std::string("standard output") : options.output) +
                     " cannot be written so");
  }
  if (!options.checkpoint.empty() || options.resume != nullptr) {
    throw UsageError("--checkpoint is not supported under --mpi yet; leave it out, or run the "
                     "job in one process");
  }
}

namespace {

// Appends each kept record of `records` and its separator to `out`.
void collect_kept(const PieceRecords& records, const std::vector<uint8_t>& answers, Mode mode,
                  char separator, std::string& out, uint64_t& kept) {
  out.clear();
  size_t key = 0;
  for (size_t b = 0; b < records.used; ++b) {
    const io::RecordBatch& batch = records.batches[b];
    for (size_t i = 0; i < batch.size(); ++i, ++key) {
      if (!keeps_record(mode, answers[key])) continue;
      out.append(batch[i]);
      out.push_back(separator);
      ++kept;
    }
  }
}

uint64_t sum(uint64_t mine);

// Collective, after each round. When some rank's piece failed, every rank
// throws JobFailed, and the one with the earliest piece gives it the failure
// a single process would meet first (a record too long named by its number
// in the whole input: the records of all earlier rounds, of this round's
// earlier pieces, and of its own piece before it). `earlier` is this rank's
// records of earlier rounds, `round_records` of this round's piece, `path`
// the input of that piece.
void fail_together(const std::exception_ptr& failure, uint64_t earlier, uint64_t round_records,
                   const PipelineOptions& options, const std::string& path) {
  bool all_failed = false;
  const int first = first_failure(failure != nullptr, all_failed);
  if (first < 0) return;
  const uint64_t before_round = sum(earlier);
  uint64_t before_piece = 0;
  check(MPI_Exscan(&round_records, &before_piece, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Exscan");
  JobFailed failed;
  failed.rank = first;
  if (static_cast<int>(rank_info().rank) != first) throw failed;
  if (rank_info().rank == 0) before_piece = 0;  // MPI_Exscan leaves rank 0's undefined
  try {
    std::rethrow_exception(failure);
  } catch (const PieceRecordTooLong& e) {
    failed.failure = std::make_exception_ptr(
        io::RecordTooLong(path, before_round + before_piece + e.records + 1, e.input_offset,
                          options.max_record_bytes, options.record_separator));
  } catch (...) {
    failed.failure = failure;
  }
  throw failed;
}

uint64_t sum(uint64_t mine) {
  uint64_t all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

}  // namespace

PipelineStats run_sharded_pipeline(const PipelineOptions& options, ShardedFilter& filter) {
  check_supported(options);
  const auto start = std::chrono::steady_clock::now();
  const RankInfo& me = rank_info();
  const Mode mode = options.mode;
  const bool writes = mode != Mode::kBuild;
  pipeline::KeyHasher hasher(options, filter.params().seed);
  // Compressed files are read whole: the start of a part is a claim that
  // only the part before it can confirm (pipeline/piece_plan.h).
  pipeline::PieceSizes sizes;
  sizes.plain = options.piece_bytes;
  sizes.compressed = options.compressed_piece_bytes;
  sizes.compressed_parts = false;
  const std::vector<pipeline::Piece> pieces = pipeline::plan_pieces(options.inputs, sizes);
  std::optional<SharedOutput> output;
  if (writes) output.emplace(options.output);

  const cpu::Kernels kernels(cpu::Arith::kSimd, "");
  const FilterRef shard = shard_ref(filter);
  const KeyExchange::Apply apply = [&](const uint64_t* keys, uint64_t n, uint8_t* answers) {
    if (is_query(mode)) {
      kernels.contains_run({shard, keys, n, answers});
      return uint64_t{0};
    }
    return kernels.test_and_set_run({shard, keys, n, answers});
  };
  KeyExchange exchange(block_owners(filter.params().num_blocks));

  PieceRecords records;
  std::vector<uint8_t> answers;
  std::string kept_bytes;
  uint64_t records_read = 0, kept = 0, fresh = 0, input_bytes = 0, written = 0;
  const size_t rounds = (pieces.size() + me.ranks - 1) / me.ranks;
  for (size_t round = 0; round < rounds; ++round) {
    const size_t piece = round * me.ranks + me.rank;
    records.used = 0;
    records.fingerprints.clear();
    records.bytes = 0;
    // A failure stops this rank's piece after the records before it, which
    // still go through the round, as one process handles them before it
    // fails; then every rank learns of it (fail_together).
    std::exception_ptr failure;
    if (piece < pieces.size()) {
      try {
        read_piece(pieces[piece], options.inputs[pieces[piece].input], options, hasher, records);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    const uint64_t n = records.fingerprints.size();
    answers.resize(n);
    fresh += exchange.run(records.fingerprints.data(), n, writes, answers.data(), apply);
    records_read += n;
    input_bytes += records.bytes;
    if (writes) {
      collect_kept(records, answers, mode, options.record_separator, kept_bytes, kept);
      written += output->write_round(kept_bytes.data(), kept_bytes.size(), written);
    }
    fail_together(failure, records_read - n, n, options,
                  piece < pieces.size() ? options.inputs[pieces[piece].input] : "");
  }
  if (output) output->commit();
  filter.local_insertions += fresh;

  PipelineStats stats;
  stats.records = sum(records_read);
  // A build keeps nothing; it counts the keys that were new, as one process.
  stats.kept = writes ? sum(kept) : sum(fresh);
  stats.dropped = stats.records - stats.kept;
  stats.input_bytes = sum(input_bytes);
  stats.output_bytes = written;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace gdedup::mpi
