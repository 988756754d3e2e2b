// run_sharded_pipeline (gdedup/frontend/mpi.h): the rounds of docs/SCALE-OUT.md. The
// input is cut into pieces by the plan every rank makes alike
// (pipeline/piece_plan.h); the ranks take pieces in turn and read them a
// chunk a round (mpi/round_plan.h), the keys a round applies go to their
// owners and their answers come back (mpi/key_exchange.h), and each rank
// writes its kept records at the output offset the records before them in
// input order leave (mpi/shared_output.h). What the keys are applied to, a
// Bloom filter or an exact set, is the RankTarget's (mpi/rank_target.h).
// Parquet input's pieces are its row groups, and its kept rows go to rank
// 0, whose one writer encodes them (mpi/row_group_pieces.h).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"
#include "io/input_file.h"
#include "io/output_file.h"
#include "io/output_parts.h"
#include "io/record_reader.h"
#include "mpi/agreement.h"
#include "mpi/check.h"
#include "mpi/parts_output.h"
#include "mpi/piece_records.h"
#include "mpi/row_group_pieces.h"
#include "mpi/rank_target.h"
#include "mpi/round_plan.h"
#include "mpi/shared_output.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/checkpoint_clock.h"
#include "pipeline/checkpoint_writer.h"
#include "pipeline/missing_keys.h"
#include "pipeline/parquet_front_end.h"
#include "pipeline/parquet_output.h"
#include "pipeline/parts_run.h"
#include "pipeline/piece_plan.h"
#include "pipeline/resume_check.h"

namespace gdedup::mpi {
namespace {

bool is_query(Mode mode) { return mode == Mode::kQueryPresent || mode == Mode::kQueryAbsent; }

// How far a rank reads ahead of the records being applied, in pieces: a
// whole input up to this many chunks (of --piece-bytes decoded bytes)
// waits in memory while the pieces before it are applied, so that ranks
// decode compressed inputs side by side; past it a rank waits for its turn.
constexpr uint64_t kReadAheadPieces = 32;


// Appends each kept record of `records` to `out`, as one process writes
// it: text with its separator, a fingerprint as its 8 bytes.
void collect_kept(const PieceRecords& records, const std::vector<uint8_t>& answers,
                  const PipelineOptions& options, std::string& out, uint64_t& kept) {
  out.clear();
  const Mode mode = options.mode;
  const char separator = options.record_separator;
  if (options.format == InputFormat::kU64) {
    for (size_t key = 0; key < records.fingerprints.size(); ++key) {
      if (!keeps_record(mode, answers[key])) continue;
      uint64_t bytes = records.fingerprints[key];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      bytes = __builtin_bswap64(bytes);
#endif
      out.append(reinterpret_cast<const char*>(&bytes), 8);
      ++kept;
    }
    return;
  }
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

// The kept rows of a Parquet row group, packed for rank 0's writer
// (columnar::ParquetReader::pack). `answers` holds the answers of its keys
// first; the rows whose key is null get theirs by the job's rule.
void collect_kept_rows(const columnar::ParquetReader& reader, const PieceRecords& records,
                       std::vector<uint8_t>& answers, const PipelineOptions& options,
                       std::string& out, uint64_t& kept) {
  out.clear();
  if (!records.rows) return;
  const uint64_t rows = records.records();
  answers.resize(rows);
  pipeline::spread_answers(answers.data(), rows, records.missing,
                           pipeline::missing_answer(options.mode, options.missing_key));
  std::vector<uint8_t> keep;
  pipeline::keep_flags(answers.data(), rows, options.mode, keep);
  for (uint8_t k : keep) kept += k;
  reader.pack(*records.rows, keep.data(), out);
}

uint64_t sum(uint64_t mine) {
  uint64_t all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

// Collective: every rank's `count` values, rank 0's first.
std::vector<uint64_t> gather(const uint64_t* mine, int count) {
  std::vector<uint64_t> all(static_cast<size_t>(count) * rank_info().ranks);
  check(MPI_Allgather(mine, count, MPI_UINT64_T, all.data(), count, MPI_UINT64_T, MPI_COMM_WORLD),
        "MPI_Allgather");
  return all;
}

// What every rank learns of the others' pieces after reading, in one
// MPI_Allgather a round.
struct RankRound {
  PieceReport report;
  bool output_closed = false;  // rank 0: the output's reader went away
  uint64_t records = 0;      // records it read and has not applied yet
  uint64_t missing = 0;      // of them, those without their key (Parquet's null keys)
  uint64_t bytes = 0;        // their decoded bytes
  uint64_t next_offset = 0;  // its input's offset past them
  uint64_t raw = 0;          // the raw bytes read for them (the progress line)
};

std::vector<RankRound> gather(const RankRound& mine) {
  const uint64_t flags = (mine.report.holds ? 1u : 0u) | (mine.report.read_all ? 2u : 0u) |
                         (mine.report.failed ? 4u : 0u) | (mine.output_closed ? 8u : 0u);
  const uint64_t packed[6] = {flags,      mine.records,     mine.missing,
                              mine.bytes, mine.next_offset, mine.raw};
  const std::vector<uint64_t> all = gather(packed, 6);
  std::vector<RankRound> out(rank_info().ranks);
  for (size_t r = 0; r < out.size(); ++r) {
    const uint64_t* at = all.data() + 6 * r;
    out[r].report = PieceReport{(at[0] & 1) != 0, (at[0] & 2) != 0, (at[0] & 4) != 0};
    out[r].output_closed = (at[0] & 8) != 0;
    out[r].records = at[1];
    out[r].missing = at[2];
    out[r].bytes = at[3];
    out[r].next_offset = at[4];
    out[r].raw = at[5];
  }
  return out;
}

// The job's totals so far, over every rank and the run a resume continues.
struct Totals {
  uint64_t records = 0;
  uint64_t kept = 0;  // records written (a build's: keys found new)
  uint64_t bytes = 0;  // decoded input bytes read
  uint64_t raw = 0;    // raw input bytes read, this run (the progress line)
  uint64_t missing = 0;  // records without their key
};

// When the ranks checkpoint: the same answer on every rank, after the same
// round. The pipeline's schedule (pipeline/checkpoint_clock.h), where a
// signal on any rank, or rank 0's clock, makes it due everywhere.
class CheckpointSchedule {
 public:
  CheckpointSchedule(const PipelineOptions& options, uint64_t records)
      : options_(options), clock_(options, records) {}

  // Collective. `records`: the job's records so far.
  bool due(uint64_t records, bool& stop) {
    int flags[2] = {options_.stop != nullptr && options_.stop->load(std::memory_order_relaxed),
                    rank_info().rank == 0 && clock_.time_due()};
    int any[2] = {0, 0};
    check(MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    stop = any[0] != 0;
    return stop || any[1] != 0 || clock_.records_due(records);
  }

  void written(uint64_t records) { clock_.written(records); }

 private:
  const PipelineOptions& options_;
  pipeline::CheckpointClock clock_;
};

// pipeline::throw_checkpoint_failed of `failure`; a JobFailed that every
// rank threw stays one, with the failed rank's error told so.
[[noreturn]] void checkpoint_failed(const std::exception_ptr& failure,
                                    const uint64_t* last_good) {
  try {
    std::rethrow_exception(failure);
  } catch (const JobFailed& failed) {
    JobFailed out = failed;
    if (failed.failure) {
      try {
        pipeline::throw_checkpoint_failed(failed.failure, last_good);
      } catch (...) {
        out.failure = std::current_exception();
      }
    }
    throw out;
  } catch (...) {
    pipeline::throw_checkpoint_failed(failure, last_good);
  }
}

// This rank's piece: its reader, and the records read and not yet applied.
// A whole input is read a piece's bytes at a time; what waits for its turn
// is at most kReadAheadPieces pieces' worth.
class HeldPiece {
 public:
  // `parquet`: the reader of Parquet input, whose pieces are row groups.
  HeldPiece(const std::vector<pipeline::Piece>& pieces, const PipelineOptions& options,
            columnar::ParquetReader* parquet)
      : pieces_(pieces), options_(options), parquet_(parquet) {}

  // Takes `held`, the piece the plan hands this rank now, if it is new.
  void follow(std::optional<size_t> held) {
    if (held == index_) return;
    index_ = held;
    reader_.reset();
    failure_ = nullptr;
    read_all_ = false;
    raw_applied_ = 0;
    if (!index_ || parquet_) return;
    try {
      reader_.emplace(piece(), path(), options_);
    } catch (...) {
      failed();
    }
  }

  // Reads a chunk more, unless the piece is read to its end or its records
  // wait past the read-ahead. A failure stops the piece after the records
  // before it, which still go through their round, as one process handles
  // them before it fails; then every rank learns of it.
  void read_more(pipeline::BatchHasher& hasher) {
    const uint64_t waiting = records_.held_bytes();
    const uint64_t read_ahead = options_.piece_bytes > UINT64_MAX / kReadAheadPieces
                                    ? UINT64_MAX
                                    : kReadAheadPieces * options_.piece_bytes;
    // Nothing waiting: a chunk more, whatever the budget.
    if (!index_ || read_all_ || (waiting > 0 && waiting >= read_ahead)) return;
    const bool plain = piece().kind == pipeline::PieceKind::kPlainRange;
    try {
      if (parquet_) {
        read_row_group(*parquet_, piece(), hasher, options_, records_);
        read_all_ = true;
      } else {
        read_all_ = reader_->read(plain ? UINT64_MAX : options_.piece_bytes, hasher, records_);
      }
    } catch (...) {
      failed();
    }
  }

  // What the other ranks learn of it this round.
  RankRound report(bool output_closed) const {
    // A row group's raw bytes are its share of its file's.
    return RankRound{PieceReport{index_.has_value(), read_all_, failure_ != nullptr},
                     output_closed,
                     records_.records(),
                     records_.missing.size(),
                     records_.bytes,
                     reader_ ? reader_->next_offset() : 0,
                     reader_ ? reader_->raw_bytes_read() - raw_applied_ : records_.bytes};
  }

  PieceRecords& records() { return records_; }
  // The piece held now.
  std::optional<size_t> index() const { return index_; }

  // After a round applied the records read so far, `raw` bytes of input.
  void applied(uint64_t raw) {
    records_.used = 0;
    records_.fingerprints.clear();
    records_.keys.clear();
    records_.bytes = 0;
    records_.rows.reset();
    records_.missing.clear();
    raw_applied_ += raw;
  }

  // The error the piece failed with, as one process would give it: a
  // record too long is named by its number in the whole input, the one
  // after the `applied` records of the job.
  std::exception_ptr failure(uint64_t applied) const {
    try {
      std::rethrow_exception(failure_);
    } catch (const PieceRecordTooLong& e) {
      return std::make_exception_ptr(io::RecordTooLong(path(), applied + 1, e.input_offset,
                                                       options_.max_record_bytes,
                                                       options_.record_separator));
    } catch (...) {
      return failure_;
    }
  }

 private:
  const pipeline::Piece& piece() const { return pieces_[*index_]; }
  const std::string& path() const { return options_.inputs[piece().input]; }
  void failed() {
    failure_ = std::current_exception();
    read_all_ = true;
  }

  const std::vector<pipeline::Piece>& pieces_;
  const PipelineOptions& options_;
  columnar::ParquetReader* parquet_;
  std::optional<size_t> index_;
  std::optional<PieceReader> reader_;
  PieceRecords records_;
  std::exception_ptr failure_;
  bool read_all_ = false;
  uint64_t raw_applied_ = 0;  // of the piece's raw bytes read, those applied
};

}  // namespace

PipelineStats run_rounds(const PipelineOptions& options, RankTarget& target) {
  const auto start = std::chrono::steady_clock::now();
  const RankInfo& me = rank_info();
  const Mode mode = options.mode;
  const bool writes = mode != Mode::kBuild;
  const bool checkpointing = !options.checkpoint.empty();
  const ResumeState* resume = options.resume;
  // A resume continues the checkpoint's run, whichever number of ranks (or
  // one process) wrote it: the same options and inputs, from its position.
  ResumeState base;
  // Parquet input (mpi/row_group_pieces.h): every rank reads the footers.
  std::unique_ptr<columnar::ParquetReader> parquet;
  check_together([&] {
    if (!options.inputs.empty() && pipeline::is_parquet_input(options.inputs.front())) {
      refuse_parquet_on_ranks(options);
      // A rank reads a row group whole, in one slice: the piece it packs.
      parquet = pipeline::open_parquet_input(
          options, columnar::ReadOptions{std::numeric_limits<uint64_t>::max()});
    }
    check_parts_options(options);
    if (checkpointing || resume) base = pipeline::identify_run(options);
    if (resume) {
      // The checkpoint records rank 0's inputs. Another rank's own copy of
      // one (a machine's scratch) may have been made at another time; that
      // it holds rank 0's bytes, check_same_inputs saw, and its size and
      // sample are compared here (docs/SCALE-OUT.md, "Inputs").
      std::vector<InputIdentity> now = base.inputs;
      for (size_t i = 0; me.rank != 0 && i < now.size() && i < resume->inputs.size(); ++i) {
        now[i].mtime_ns = resume->inputs[i].mtime_ns;
      }
      pipeline::check_resume_run(*resume, options, now);
      target.check_resume(*resume);
    }
  });
  target.agree();
  Totals job = resume ? Totals{resume->records, resume->kept, resume->position.offset} : Totals{};
  pipeline::BatchHasher hasher(parquet ? pipeline::parquet_key_options(options) : options,
                               target.hashing());
  // Compressed files are whole pieces, read a chunk at a time: the start of
  // a part is a claim that only the part before it can confirm
  // (pipeline/piece_plan.h).
  pipeline::PieceSizes sizes;
  // Fingerprint pieces hold whole fingerprints: 8-byte multiples.
  sizes.plain = options.format == InputFormat::kU64
                    ? (std::min<uint64_t>(options.piece_bytes, UINT64_MAX - 7) + 7) / 8 * 8
                    : options.piece_bytes;
  sizes.compressed = options.compressed_piece_bytes;
  sizes.compressed_parts = false;
  const std::vector<pipeline::Piece> pieces =
      parquet ? plan_row_group_pieces(*parquet)
              : pipeline::plan_pieces(options.inputs, sizes,
                                      resume ? resume->position : StreamPoint{});
  check_same_pieces(pieces, options.inputs);
  // Standard input reaches rank 0 only (mpirun's default).
  std::vector<bool> rank0_only(pieces.size());
  for (size_t p = 0; p < pieces.size(); ++p) rank0_only[p] = options.inputs[pieces[p].input] == "-";
  RoundPlan plan(pieces.size(), me.ranks, rank0_only);
  std::optional<SharedOutput> output;
  std::optional<PartsOutput> parts;
  if (writes && !options.output_parts.empty()) {
    parts.emplace(options.output_parts, pieces.size(),
                  options.option_names());
  } else if (writes) {
    output.emplace(options, resume, parquet.get());
    base.output_temporary = output->temporary();
  }

  HeldPiece held(pieces, options, parquet.get());
  PieceRecords& records = held.records();
  std::vector<uint8_t> answers;
  std::string kept_bytes;
  uint64_t fresh = 0;  // keys new to this rank's part
  // Collective. The job's kept records so far; a build's are the keys
  // found new, which only their owners count.
  auto kept_so_far = [&] { return writes ? job.kept : job.kept + sum(fresh); };
  uint64_t written = resume ? resume->output_offset : 0;
  CheckpointSchedule schedule(options, job.records);
  // Rank 0's progress line, after every round.
  Progress progress;
  if (options.on_progress && me.rank == 0) {
    progress.input_size = io::total_input_size(options.inputs);
    progress.inputs = options.inputs.size();
  }
  uint64_t checkpoints = 0;
  uint64_t last_checkpoint_records = job.records;
  bool interrupted = false;
  while (!plan.done()) {
    held.follow(plan.held(me.rank));
    held.read_more(hasher);
    const std::vector<RankRound> ranks = gather(held.report(output && output->closed()));
    if (ranks[0].output_closed) {
      // The reader of the output (a pipe) went away: the rest cannot be
      // delivered, and the job ends as one process's does.
      JobFailed closed;
      if (me.rank == 0) closed.failure = std::make_exception_ptr(output->closed_error());
      throw closed;
    }
    std::vector<PieceReport> reports(ranks.size());
    for (size_t r = 0; r < ranks.size(); ++r) reports[r] = ranks[r].report;
    const std::vector<unsigned> order = plan.applied(reports);
    const bool applies = std::find(order.begin(), order.end(), me.rank) != order.end();
    const uint64_t n = applies ? records.count() : 0;
    answers.resize(n);
    std::vector<uint64_t> counts(me.ranks);  // keys
    for (unsigned r : order) counts[r] = ranks[r].records - ranks[r].missing;
    fresh += target.apply_round(records, n, writes, answers.data(), order, counts,
                                is_query(mode));
    for (unsigned r : order) {
      job.records += ranks[r].records;
      job.bytes += ranks[r].bytes;
      job.raw += ranks[r].raw;
      job.missing += ranks[r].missing;
    }
    if (writes) {
      uint64_t kept[2] = {0, 0};  // bytes, records
      if (applies && parquet) {
        collect_kept_rows(*parquet, records, answers, options, kept_bytes, kept[1]);
        kept[0] = kept_bytes.size();
      } else if (applies) {
        collect_kept(records, answers, options, kept_bytes, kept[1]);
        kept[0] = kept_bytes.size();
      }
      const std::vector<uint64_t> all = gather(kept, 2);
      std::vector<uint64_t> sizes(me.ranks);
      for (unsigned r = 0; r < me.ranks; ++r) sizes[r] = all[2 * r];
      for (unsigned r : order) job.kept += all[2 * r + 1];
      if (output) {
        written = output->write_round(kept_bytes.data(), kept[0], order, sizes, written);
      } else {
        if (applies) parts->write(*held.index(), kept_bytes.data(), kept[0]);
        for (unsigned r : order) written += sizes[r];
      }
    }
    if (applies) held.applied(ranks[me.rank].raw);
    if (!order.empty() && reports[order.back()].failed) {
      // The earliest failure in input order, after the records before it:
      // the one a single process would meet first.
      JobFailed failed;
      failed.rank = static_cast<int>(order.back());
      if (order.back() == me.rank) failed.failure = held.failure(job.records);
      throw failed;
    }
    plan.advance(order, reports);
    if (options.on_progress && me.rank == 0) {
      progress.records = job.records;
      progress.kept = job.kept;
      progress.input_bytes = job.raw;
      progress.input = plan.done() ? options.inputs.size() : pieces[plan.cursor()].input;
      progress.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      options.on_progress(progress);
    }
    // Between rounds every record before the cursor has been applied and
    // written: the place a checkpoint records. None once the job is done.
    if (!checkpointing || plan.done()) continue;
    bool stop = false;
    if (!schedule.due(job.records, stop)) continue;
    ResumeState state = base;
    const uint64_t kept = kept_so_far();
    const io::OutputPrefix prefix =
        output ? output->sync_for_checkpoint(written, kept) : io::OutputPrefix{};
    state.output_offset = prefix.bytes;
    state.output_checksum = prefix.checksum;
    state.records = job.records;
    state.kept = kept;
    state.dropped = job.records - kept;
    state.input_bytes = job.bytes;
    const pipeline::Piece& at = pieces[plan.cursor()];
    state.position = StreamPoint{job.records, job.bytes, at.input, 0};
    target.sync_to_host();
    if (me.rank == 0) {
      // Inside a piece its rank stopped in, or at the next piece's first
      // record.
      state.position.input_offset =
          plan.cursor_started()
              ? ranks[*plan.holder(plan.cursor())].next_offset
              : first_record_at(at, options.inputs[at.input], options);
    }
    try {
      target.save_checkpoint(state, options.checkpoint);
    } catch (...) {
      // Only rank 0 writes, so only it can fail here: it ends the job alone
      // (a filter's) or every rank learns of it (JobFailed, a set's). With
      // no checkpoint to name it, the output's temporary file goes, as in
      // one process.
      if (output && checkpoints == 0 && !resume) output->discard();
      const bool earlier = checkpoints > 0 || resume;
      checkpoint_failed(std::current_exception(), earlier ? &last_checkpoint_records : nullptr);
    }
    ++checkpoints;
    last_checkpoint_records = job.records;
    schedule.written(job.records);
    if (stop) {
      interrupted = true;
      break;
    }
  }
  if (!interrupted && options.on_publish) options.on_publish();
  if (output && !interrupted) output->commit();
  if (parts) parts->commit();
  target.sync_to_host();

  PipelineStats stats;
  stats.records = job.records;
  // A build keeps nothing; it counts the keys that were new, as one process.
  stats.kept = kept_so_far();
  stats.dropped = stats.records - stats.kept;
  stats.input_bytes = job.bytes;
  stats.output_bytes = output ? output->bytes(written) : written;
  stats.missing_keys = job.missing;
  stats.interrupted = interrupted;
  stats.checkpoints = checkpoints;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace gdedup::mpi
