// run_sharded_pipeline (gdedup/mpi.h): the rounds of docs/SCALE-OUT.md. The
// input is cut into pieces by the plan every rank makes alike
// (pipeline/piece_plan.h); in round k rank r reads and fingerprints piece
// kR + r, the keys go to their owners and their answers come back
// (mpi/key_exchange.h), and each rank writes its piece's kept records at
// the output offset the ranks before it leave (mpi/shared_output.h).
#include <mpi.h>

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/output_file.h"
#include "io/record_reader.h"
#include "gdedup/mpi.h"
#include "mpi/check.h"
#include "mpi/key_exchange.h"
#include "mpi/piece_records.h"
#include "mpi/shared_output.h"
#include "mpi/sharding.h"
#include "pipeline/checkpoint_writer.h"
#include "pipeline/key_hasher.h"
#include "pipeline/piece_plan.h"
#include "pipeline/resume_check.h"

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
// the input of that piece; `resumed` the records before a resumed job began.
void fail_together(const std::exception_ptr& failure, uint64_t earlier, uint64_t round_records,
                   const PipelineOptions& options, const std::string& path, uint64_t resumed) {
  bool all_failed = false;
  const int first = first_failure(failure != nullptr, all_failed);
  if (first < 0) return;
  const uint64_t before_round = resumed + sum(earlier);
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

// Collective. Runs `check` on every rank; when it threw on some, every rank
// throws JobFailed, the lowest failing one with its error.
void check_together(const std::function<void()>& check) {
  std::exception_ptr failure;
  try {
    check();
  } catch (...) {
    failure = std::current_exception();
  }
  JobFailed failed;
  failed.rank = first_failure(failure != nullptr, failed.everywhere);
  if (failed.rank < 0) return;
  if (static_cast<int>(rank_info().rank) == failed.rank) failed.failure = failure;
  throw failed;
}

uint64_t sum(uint64_t mine) {
  uint64_t all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

// The job's totals so far, over every rank and the run a resume continues.
struct Totals {
  uint64_t records = 0;
  uint64_t kept = 0;  // records written (a build's: keys found new)
  uint64_t bytes = 0;  // decoded input bytes read
};

Totals sum(const Totals& mine, const Totals& resumed) {
  uint64_t in[3] = {mine.records, mine.kept, mine.bytes}, all[3] = {0, 0, 0};
  check(MPI_Allreduce(in, all, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return Totals{resumed.records + all[0], resumed.kept + all[1], resumed.bytes + all[2]};
}

// When the ranks checkpoint: the same answer on every rank, after the same
// round. A signal on any rank, or rank 0's clock, or the job's records.
class CheckpointSchedule {
 public:
  CheckpointSchedule(const PipelineOptions& options, uint64_t records)
      : options_(options), last_records_(records), last_time_(Clock::now()) {}

  // Collective. `records`: the job's records so far.
  bool due(uint64_t records, bool& stop) {
    int flags[2] = {options_.stop != nullptr && options_.stop->load(std::memory_order_relaxed),
                    rank_info().rank == 0 && options_.checkpoint_every_seconds > 0 &&
                        std::chrono::duration<double>(Clock::now() - last_time_).count() >=
                            options_.checkpoint_every_seconds};
    int any[2] = {0, 0};
    check(MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    stop = any[0] != 0;
    return stop || any[1] != 0 ||
           (options_.checkpoint_every_records > 0 &&
            records - last_records_ >= options_.checkpoint_every_records);
  }

  void written(uint64_t records) {
    last_records_ = records;
    last_time_ = Clock::now();
  }

 private:
  using Clock = std::chrono::steady_clock;
  const PipelineOptions& options_;
  uint64_t last_records_;
  Clock::time_point last_time_;
};

}  // namespace

PipelineStats run_sharded_pipeline(const PipelineOptions& options, ShardedFilter& filter,
                                   const BackendMaker& make_backend) {
  check_supported(options);
  const auto start = std::chrono::steady_clock::now();
  const RankInfo& me = rank_info();
  const Mode mode = options.mode;
  const bool writes = mode != Mode::kBuild;
  const bool checkpointing = !options.checkpoint.empty();
  const ResumeState* resume = options.resume;
  // A resume continues the checkpoint's run, whichever number of ranks (or
  // one process) wrote it: the same options and inputs, from its position.
  ResumeState base;
  check_together([&] {
    if (checkpointing || resume) base = pipeline::identify_run(options);
    if (resume) {
      pipeline::check_resume_run(*resume, options, base.inputs);
      check_checkpoint_params(resume->params, filter.params());
    }
  });
  // The backend counts the keys new to this rank's blocks in its part's
  // counters, which the filter's counters() sums. A rank whose backend
  // cannot run (no GPU of its number) stops the job before any output.
  std::unique_ptr<Backend> backend;
  check_together([&] {
    backend = make_backend ? make_backend(filter.part()) : make_cpu_backend(filter.part());
  });
  const Totals resumed = resume ? Totals{resume->records, resume->kept, resume->position.offset}
                                : Totals{};
  pipeline::KeyHasher hasher(options, filter.params().seed);
  // Compressed files are read whole: the start of a part is a claim that
  // only the part before it can confirm (pipeline/piece_plan.h).
  pipeline::PieceSizes sizes;
  sizes.plain = options.piece_bytes;
  sizes.compressed = options.compressed_piece_bytes;
  sizes.compressed_parts = false;
  const std::vector<pipeline::Piece> pieces = pipeline::plan_pieces(
      options.inputs, sizes, resume ? resume->position : StreamPoint{});
  std::optional<SharedOutput> output;
  if (writes) {
    output.emplace(options.output, resume);
    base.output_temporary = output->temporary();
  }

  const KeyExchange::Apply apply = [&](const uint64_t* keys, uint64_t n, uint8_t* answers) {
    if (is_query(mode)) {
      backend->contains(keys, n, answers);
      return uint64_t{0};
    }
    return backend->test_and_set(keys, n, answers);
  };
  KeyExchange exchange(block_owners(filter.params().num_blocks));

  PieceRecords records;
  std::vector<uint8_t> answers;
  std::string kept_bytes;
  Totals mine;  // this rank's, this run
  uint64_t fresh = 0;
  uint64_t written = resume ? resume->output_offset : 0;
  CheckpointSchedule schedule(options, resumed.records);
  uint64_t checkpoints = 0;
  uint64_t last_checkpoint_records = resumed.records;
  bool interrupted = false;
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
    const uint64_t round_fresh =
        exchange.run(records.fingerprints.data(), n, writes, answers.data(), apply);
    fresh += round_fresh;
    mine.records += n;
    mine.bytes += records.bytes;
    if (writes) {
      collect_kept(records, answers, mode, options.record_separator, kept_bytes, mine.kept);
      written += output->write_round(kept_bytes.data(), kept_bytes.size(), written);
    }
    fail_together(failure, mine.records - n, n, options,
                  piece < pieces.size() ? options.inputs[pieces[piece].input] : "",
                  resumed.records);
    // Between rounds every piece before the next one has been read whole:
    // the place a checkpoint records. None after the last round: the job
    // is done.
    const size_t next = (round + 1) * me.ranks;
    if (!checkpointing || next >= pieces.size()) continue;
    Totals job = sum(Totals{mine.records, writes ? mine.kept : fresh, mine.bytes}, resumed);
    bool stop = false;
    if (!schedule.due(job.records, stop)) continue;
    ResumeState state = base;
    const io::OutputPrefix prefix =
        output ? output->sync_for_checkpoint(written, job.kept) : io::OutputPrefix{};
    state.output_offset = prefix.bytes;
    state.output_checksum = prefix.checksum;
    state.records = job.records;
    state.kept = job.kept;
    state.dropped = job.records - job.kept;
    state.input_bytes = job.bytes;
    const pipeline::Piece& at = pieces[next];
    state.position = StreamPoint{job.records, job.bytes, at.input, 0};
    backend->sync_to_host();
    if (me.rank == 0) {
      state.position.input_offset =
          first_record_at(at, options.inputs[at.input], options.record_separator);
    }
    try {
      filter.save_checkpoint(state, options.checkpoint);
    } catch (...) {
      // Only rank 0 writes, so only it can fail here (and then ends the
      // job alone): with no checkpoint to name it, the output's temporary
      // file goes, as in one process.
      if (output && checkpoints == 0 && !resume) output->discard();
      const bool earlier = checkpoints > 0 || resume;
      pipeline::throw_checkpoint_failed(std::current_exception(),
                                        earlier ? &last_checkpoint_records : nullptr);
    }
    ++checkpoints;
    last_checkpoint_records = job.records;
    schedule.written(job.records);
    if (stop) {
      interrupted = true;
      break;
    }
  }
  if (output && !interrupted) output->commit();
  backend->sync_to_host();

  PipelineStats stats;
  const Totals job = sum(Totals{mine.records, writes ? mine.kept : fresh, mine.bytes}, resumed);
  stats.records = job.records;
  // A build keeps nothing; it counts the keys that were new, as one process.
  stats.kept = job.kept;
  stats.dropped = stats.records - stats.kept;
  stats.input_bytes = job.bytes;
  stats.output_bytes = written;
  stats.interrupted = interrupted;
  stats.checkpoints = checkpoints;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace gdedup::mpi
