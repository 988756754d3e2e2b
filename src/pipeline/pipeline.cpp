// The driver: a front end (pipeline/front_end.h) reads, decodes, splits and
// fingerprints the input on threads of its own and hands over batches in
// input order; the calling thread runs the filter while a thread of the
// driver's copies the kept records of the batch before into the output
// writer's buffer, whose own thread hands full buffers to the kernel
// (io::OutputWriter). The copy reads every kept record's bytes from memory
// again: on plain files, 13% of a Bloom dedup's samples, which the calling
// thread, the one that bounds the run, no longer spends (bench/RESULTS.md).
#include "gdedup/pipeline.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/thread_pool.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/frontend/output_writer.h"
#include "gdedup/layered_filter.h"
#include "io/byte_source.h"
#include "io/input_file.h"
#include "io/mapped_bytes.h"
#include "io/output_file.h"
#include "pipeline/checkpoint_clock.h"
#include "pipeline/checkpoint_writer.h"
#include "pipeline/front_end.h"
#include "pipeline/input_identity.h"
#include "pipeline/missing_keys.h"
#include "pipeline/key_lines_output.h"
#include "pipeline/parquet_output.h"
#include "pipeline/parts_run.h"
#include "pipeline/resume_check.h"
#include "pipeline/run_target.h"

namespace gdedup {
namespace {

using pipeline::CheckpointWriter;
using pipeline::WorkBatch;
using Clock = std::chrono::steady_clock;

bool writes_output(Mode mode) { return mode != Mode::kBuild; }

// Every record a mode keeps is written, so the output of a resumed run
// holds the checkpoint's kept records; a Parquet output (the checkpoint
// holds its footer) holds bytes, which the writer does not count as
// records.
io::OutputPrefix resumed_output(const ResumeState& resume) {
  const uint64_t records = resume.output_footer.empty() ? resume.kept : 0;
  return io::OutputPrefix{resume.output_offset, records, resume.output_checksum};
}

// What the output holds after a failure, in one sentence. An output written
// in place holds the records before the failure, never a partial one
// (OutputWriter cuts it off); a replaced one is as it was before the job.
std::string output_holdings(const io::OutputFile& output) {
  // Renamed into place, then its folder's sync failed: that failure says so.
  if (output.committed()) return "";
  if (!output.in_place()) {
    const std::string text = " The output " + output.path() + " was left as it was before the job";
    if (!output.kept()) return text + ": the records went to a temporary file, now removed.";
    return text + "; the records written so far stay in its temporary file " +
           output.temporary() + ", which the checkpoint names, for a resume.";
  }
  const io::OutputWriter& writer = output.writer();
  const io::OutputPrefix stored = writer.stored();
  if (stored.bytes == 0) return " Nothing was written to " + writer.name() + ".";
  return " " + writer.name() + " holds the " + std::to_string(stored.records) +
         (stored.records == 1 ? " record" : " records") + " written before the failure (" +
         std::to_string(stored.bytes) + " bytes).";
}

// `unverified` is added when the failure is damaged compressed input: which
// part of the output came from data that failed its check (none of it is
// left when the temporary file is removed).
[[noreturn]] void rethrow_saying_what_output_holds(std::exception_ptr failure,
                                                  const io::OutputFile* output,
                                                  const std::string& unverified) {
  try {
    std::rethrow_exception(failure);
  } catch (const UsageError&) {
    throw;
  } catch (const io::DamagedData& e) {
    if (output == nullptr) throw;
    const bool left = output->in_place() || output->kept();
    throw Error(add_sentence(e.what(), output_holdings(*output) + (left ? unverified : "")), e);
  } catch (const Error& e) {
    // A broken pipe: nobody is reading, nothing to tell about the output.
    if (output == nullptr || e.kind() == ErrorKind::broken_pipe) throw;
    throw Error(add_sentence(e.what(), output_holdings(*output)), e);
  }
}

// The records of a batch, in either format, or the rows of a Parquet one.
uint64_t records_in(const WorkBatch& batch, InputFormat format) {
  if (batch.rows) return batch.rows->rows();
  return format == InputFormat::kU64 ? batch.fingerprints.size() : batch.records.size();
}

class Driver {
 public:
  Driver(const PipelineOptions& options, pipeline::RunTarget& target)
      : options_(options), target_(target), started_(std::chrono::steady_clock::now()) {
    if (options.batch_records == 0) throw UsageError("the batch size must be at least 1 record");
    if (options.inputs.empty()) throw UsageError("no input given");
    if (options.piece_bytes == 0 || options.compressed_piece_bytes == 0) {
      throw UsageError("the piece size must be at least 1 byte");
    }
  }

  PipelineStats run() {
    const bool checkpointing = !options_.checkpoint.empty();
    const ResumeState* resume = options_.resume;
    if (checkpointing || resume) base_state_ = pipeline::identify_run(options_);
    // Parse keys, open the first input and check a resume against the
    // inputs before any output is created or cut back.
    auto front = pipeline::make_front_end(options_, target_.hashing(), target_.memory());
    if (resume) {
      target_.check_resume(*resume, options_, base_state_.inputs);
      front->skip_to(resume->position);
      position_ = resume->position;
      stats_.records = resume->records;
      stats_.kept = resume->kept;
      stats_.dropped = resume->dropped;
      stats_.input_bytes = resume->input_bytes;
      stats_.missing_keys = resume->missing_keys;
    }
    std::optional<io::OutputFile> output;
    if (writes_output(options_.mode)) {
      output.emplace(resume ? io::OutputFile::resume(options_.output, resume->output_temporary,
                                                     resumed_output(*resume))
                            : io::OutputFile::create(options_.output));
      base_state_.output_temporary = output->temporary();
    }
    io::OutputWriter* writer = output ? &output->writer() : nullptr;
    if (writer) {
      writer->set_separator(options_.record_separator);
      if (!checkpointing) writer->skip_checksum();
      if (front->parquet() && options_.output_format == OutputFormat::kLines) {
        key_lines_.emplace(*front->parquet(), options_, *writer);
      } else if (front->parquet()) {
        open_parquet_output(*front->parquet(), *writer, resume);
      }
    }
    std::optional<CheckpointWriter> checkpoints;
    if (checkpointing) {
      checkpoints.emplace(options_.checkpoint, base_state_.output_temporary, resume);
    }
    schedule_.emplace(options_, stats_.records);
    progress_.input_size = io::total_input_size(options_.inputs);
    progress_.inputs = options_.inputs.size();

    front->start();
    std::exception_ptr failure;
    try {
      using Next = pipeline::CheckpointClock::Next;
      while (WorkBatch* batch = front->next()) {
        const bool resumable = batch->resumable_after;
        process(*batch, *front, writer);
        // A write that ended since the last batch reports its failure here.
        if (checkpoints && !checkpoints->busy()) checkpoints->wait();
        const Next next = schedule_->after_batch(resumable, stop_requested(), stats_.records,
                                                 checkpoints && checkpoints->busy());
        if (next == Next::kStop) {
          stats_.interrupted = true;
          if (checkpoints) {
            checkpoint(*checkpoints, *front, output ? &*output : nullptr);
            checkpoints->wait();
          }
          break;
        }
        if (next == Next::kCheckpoint && checkpoints) {
          checkpoint(*checkpoints, *front, output ? &*output : nullptr);
        }
      }
      write_unwritten(*front, writer);
    } catch (...) {
      failure = std::current_exception();
    }
    // Every batch answered in full is written, also when reading failed
    // after it (a failure of the filter or of a write left none).
    if (failure && unwritten_.batch != nullptr) {
      try {
        write_unwritten(*front, writer);
      } catch (...) {
        // The first failure is the one reported.
      }
    }
    front->stop();
    // The footer, once every row group is in: a failed run leaves none,
    // and its output goes. A run stopped with a checkpoint leaves none
    // either: its temporary file is cut back to the checkpoint's offset on
    // resume, where the footer would begin.
    if (parquet_ && !failure && !(stats_.interrupted && checkpoints)) {
      try {
        parquet_->close();
      } catch (...) {
        failure = std::current_exception();
      }
    }
    parquet_.reset();  // before the output it writes to

    if (output) {
      // Whatever was decided before a failure is written out, then the
      // failure is reported; a failing write is itself the failure.
      try {
        output->close();
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    }
    // A failure before this run's first checkpoint was written (the
    // first one failing, say) leaves no checkpoint to name the temporary
    // file kept for it: it goes, as without checkpoints.
    if (failure && output && checkpoints && !resume) {
      try {
        checkpoints->wait();
      } catch (const Error&) {
        // The failure already reported, or one of the same write.
      }
      if (checkpoints->written() == 0) output->discard();
    }
    // The output takes its name only once complete, and before the
    // checkpoint goes: a crash between the two leaves the finished output.
    const bool completed = !failure && !stats_.interrupted;
    try {
      if (!failure && checkpoints) checkpoints->wait();
      if (completed && options_.on_publish) options_.on_publish();
      if (completed && output) output->commit();
      if (completed && checkpoints && !options_.keep_checkpoint) checkpoints->remove();
    } catch (...) {
      failure = std::current_exception();
    }
    if (!failure && checkpoints) stats_.checkpoints = checkpoints->written();
    stats_.seconds = seconds();
    if (failure) {
      rethrow_saying_what_output_holds(failure, output ? &*output : nullptr, unverified_output());
    }
    report_progress();
    if (writer) stats_.output_bytes = writer->bytes_written();
    return stats_;
  }

 private:
  // A batch answered whose kept records are not yet written, with the
  // counts from before it.
  struct Unwritten {
    WorkBatch* batch = nullptr;
    uint64_t first_record = 0;  // its first record's number in the stream
    uint64_t kept_before = 0;
    uint64_t kept = 0;
  };

  // The output of Parquet input: a new file, or the one the checkpoint
  // left, continued from its footer.
  void open_parquet_output(const columnar::ParquetReader& like, io::OutputWriter& writer,
                           const ResumeState* resume) {
    if (!resume) {
      parquet_.emplace(like, options_, writer, nullptr);
      return;
    }
    if (resume->output_footer.empty()) {
      throw Error("cannot resume from checkpoint " + resume->loaded_from + ": it holds no "
                  "Parquet footer for the output " + options_.output + ", so it was not written "
                  "by a job of Parquet input. Start the job again without resuming.",
                  ErrorKind::invalid_argument);
    }
    const columnar::ParquetContinuation from{resume->output_footer, resume->output_offset};
    parquet_.emplace(like, options_, writer, &from);
  }

  // Answers `batch` while the output's thread writes the batch before; the
  // batch is then the one unwritten (or recycled, without an output). A
  // failure of either is thrown once both have ended: the batch before is
  // written in full or has failed, and nothing of this one is written.
  void process(WorkBatch& batch, pipeline::FrontEnd& front, io::OutputWriter* writer) {
    const Unwritten before = std::exchange(unwritten_, Unwritten{});
    Unwritten now{&batch, stats_.records, stats_.kept, 0};
    if (before.batch == nullptr) {
      now.kept = answer_batch(batch);
    } else {
      output_pool_.run(2, [&](unsigned part) {
        if (part == 0) {
          now.kept = answer_batch(batch);
        } else {
          write(before, *writer);
        }
      }, nullptr);
      front.recycle(before.batch);
    }
    const uint64_t n = records_in(batch, options_.format);
    stats_.records += n;
    stats_.kept += now.kept;
    stats_.dropped += n - now.kept;
    stats_.input_bytes = batch.input_bytes;
    progress_.input_bytes = batch.raw_bytes_read;
    progress_.input = batch.end.input_index;
    position_ = batch.end;
    // A batch recycled is the front end's again: nothing here reads it after.
    if (writer != nullptr) {
      unwritten_ = now;
    } else {
      front.recycle(&batch);
    }
    target_.after_batch(options_, stats_);
    report_progress();
  }

  // Fills the batch's answers; returns the records kept.
  uint64_t answer_batch(WorkBatch& batch) {
    const uint64_t n = records_in(batch, options_.format);
    batch.answers.resize(n);
    const uint64_t kept = batch.missing.empty() ? answer(batch, n) : answer_without_missing(batch);
    // A mapped input cut short after its reader looked reads as zeros from
    // then on (fs::MappingGuard): keys hashed or records copied from them
    // are wrong, so the job ends before a checkpoint or the output's
    // commit takes them in.
    check_not_cut(batch);
    return kept;
  }

  void write(const Unwritten& unwritten, io::OutputWriter& writer) {
    const uint64_t bytes_before = writer.bytes_written();
    write_kept(*unwritten.batch, writer);
    check_not_cut(*unwritten.batch);
    note_verified(unwritten, bytes_before, writer.bytes_written());
  }

  // Writes the batch left unwritten, on this thread: before a checkpoint
  // and at the end.
  void write_unwritten(pipeline::FrontEnd& front, io::OutputWriter* writer) {
    const Unwritten unwritten = std::exchange(unwritten_, Unwritten{});
    if (unwritten.batch == nullptr) return;
    write(unwritten, *writer);
    front.recycle(unwritten.batch);
  }

  // Fills batch.answers for its first `n` keys; returns the records kept.
  uint64_t answer(WorkBatch& batch, uint64_t n) {
    uint64_t kept = 0;
    switch (options_.mode) {
      case Mode::kDedup:
      case Mode::kDuplicates:
      case Mode::kBuild: {
        const uint64_t fresh = target_.test_and_set(batch, n);
        kept = options_.mode == Mode::kDuplicates ? n - fresh : fresh;
        break;
      }
      case Mode::kQueryPresent:
      case Mode::kQueryAbsent:
        target_.contains(batch, n);
        for (uint64_t i = 0; i < n; ++i) kept += keeps_record(options_.mode, batch.answers[i]);
        break;
    }
    return kept;
  }

  // A batch with records that lack their JSON or CDXJ key: they never reach
  // the filter or set, so they add nothing and match nothing. The keys of
  // the others move to the front, in order, are answered, and the answers
  // move back to their records; a missing one's answer is that of a key
  // seen nowhere else (keep) or one that is not written (drop).
  uint64_t answer_without_missing(WorkBatch& batch) {
    const uint64_t n = records_in(batch, options_.format);
    const std::vector<uint64_t>& missing = batch.missing;
    if (options_.missing_key == keys::MissingKey::kError) throw missing_key_error(batch);
    const uint64_t present = target_.hashing().exact
                                 ? pipeline::gather_present(batch.keys.data(), n, missing)
                                 : pipeline::gather_present(batch.fingerprints.data(), n, missing);
    const uint64_t kept = answer(batch, present);
    const uint8_t missing_answer = pipeline::missing_answer(options_.mode, options_.missing_key);
    pipeline::spread_answers(batch.answers.data(), n, missing, missing_answer);
    stats_.missing_keys += missing.size();
    // Build counts new keys, which these are not.
    return kept + (keeps_record(options_.mode, missing_answer) ? missing.size() : 0);
  }

  // --missing-key error: the first record without its key, by its number
  // in the stream and its byte offset in its input.
  Error missing_key_error(const WorkBatch& batch) const {
    const uint64_t i = batch.missing.front();
    if (batch.rows) return pipeline::null_key_error(options_, batch.place, i);
    const std::string key = options_.keys.key_text();
    const std::string advice = pipeline::missing_key_advice(options_);
    // The batch's records lie back to back from position_, where the one
    // before it ended.
    const auto& spans = batch.records.spans();
    const uint64_t into_batch = spans[i].offset - spans[0].offset;
    // A batch that runs from one input into another tells the offset in the
    // stream of the inputs.
    const StreamPoint& end = batch.end;
    const bool one_input = position_.input_index == end.input_index ||
                           (end.input_offset == 0 && end.input_index == position_.input_index + 1);
    const std::string& path = options_.inputs.at(one_input ? position_.input_index : 0);
    const std::string name = !one_input ? "the input" : path == "-" ? "standard input" : path;
    const std::string offset =
        one_input ? std::to_string(position_.input_offset + into_batch)
                  : std::to_string(position_.offset + into_batch) +
                        " of the inputs taken as one stream";
    const bool json = options_.keys.key.kind == keys::KeySpec::Kind::kJson;
    return Error(name + ": record " + std::to_string(stats_.records + i + 1) +
                     " (at byte offset " + offset + ") has no key " + key + ": " +
                     (json ? "it lacks that value or is not one JSON value"
                           : "it lacks that value or is not a CDXJ line (SURT, timestamp "
                             "and one JSON value, separated by spaces)") +
                     (options_.strict_json ? "" : " as far as it was read") + advice,
                 // The record is not what the key rules ask for, as a key
                 // given to a Filter or Set without it is: the file itself
                 // is not damaged.
                 ErrorKind::invalid_argument);
  }

  // Moves the verified mark to the batch's verified record, with the output
  // written before that record, given the output's length before and after
  // the batch.
  void note_verified(const Unwritten& unwritten, uint64_t bytes_before, uint64_t bytes_after) {
    const WorkBatch& batch = *unwritten.batch;
    if (batch.verified_records <= verified_.records) return;
    const uint64_t first = unwritten.first_record;
    const uint64_t n = records_in(batch, options_.format);
    const uint64_t upto = std::min<uint64_t>(batch.verified_records - first, n);
    // A batch verified whole (every plain input) needs no second pass over
    // its records: the mark is the batch's end.
    if (upto == n) {
      verified_ = Verified{first + n, unwritten.kept_before + unwritten.kept, bytes_after};
      return;
    }
    uint64_t bytes = bytes_before, kept = unwritten.kept_before;
    for (uint64_t i = 0; i < upto; ++i) {
      if (!keeps_record(options_.mode, batch.answers[i])) continue;
      ++kept;
      bytes += options_.format == InputFormat::kU64 ? 8 : batch.records.spans()[i].size + 1;
    }
    verified_ = Verified{first + upto, kept, bytes};
  }

  // What a failure on damaged compressed input adds: the output written
  // since the last verified record came from data that failed its check or
  // was never checked.
  std::string unverified_output() const {
    std::string text =
        " Records are written before the check that ends each compressed member, frame or "
        "stream, so from output record " + std::to_string(verified_.kept + 1) +
        " (byte offset " + std::to_string(verified_.output_bytes) +
        ") on the output may hold damaged data";
    if (verified_.kept == 0) return text + ".";
    return text + "; the " + std::to_string(verified_.kept) +
           (verified_.kept == 1 ? " record" : " records") + " before it passed their checks.";
  }

  void check_not_cut(const WorkBatch& batch) const {
    if (!batch.records.cut()) return;
    const uint64_t input = batch.end.input_index;
    throw io::cut_while_used_error(input < options_.inputs.size() ? options_.inputs[input] : "-",
                                   *batch.records.mapping());
  }

  void write_kept(const WorkBatch& batch, io::OutputWriter& writer) {
    const uint64_t n = records_in(batch, options_.format);
    const uint8_t* answers = batch.answers.data();
    const Mode mode = options_.mode;
    if (batch.rows) {
      if (key_lines_) return key_lines_->write(*batch.rows, batch.place, answers, mode);
      return parquet_->write(*batch.rows, answers, mode, batch.place.ends_group);
    }
    if (options_.format == InputFormat::kU64) {
      for (uint64_t i = 0; i < n; ++i) {
        if (!keeps_record(mode, answers[i])) continue;
        uint64_t le = batch.fingerprints[i];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        le = __builtin_bswap64(le);
#endif
        writer.write_fixed_record(reinterpret_cast<const char*>(&le), sizeof le);
      }
      return;
    }
    // Records kept one after another that lie back to back in the batch,
    // their separators between them, go out in one copy: about 2.4 records
    // a run at 40% duplicates. A record that ended its input without a
    // separator ends a run: the byte after it is not one.
    const char* data = batch.records.data();
    const io::RecordSpan* spans = batch.records.spans().data();
    const char separator = options_.record_separator;
    for (uint64_t i = 0; i < n;) {
      if (!keeps_record(mode, answers[i])) {
        ++i;
        continue;
      }
      const uint64_t begin = spans[i].offset;
      uint64_t end = begin + spans[i].size;
      uint64_t count = 1;
      while (i + count < n && keeps_record(mode, answers[i + count]) &&
             spans[i + count].offset == end + 1 && data[end] == separator) {
        end = spans[i + count].offset + spans[i + count].size;
        ++count;
      }
      writer.write_records(data + begin, end - begin, count);
      i += count;
    }
  }

  bool stop_requested() const {
    return options_.stop != nullptr && options_.stop->load(std::memory_order_relaxed);
  }

  // Output first: the batch left unwritten is written, and the bytes the
  // state counts reach the kernel here (flush() waits for the output
  // writer's buffers in flight) and the disk (fsync) on the checkpoint
  // writer's thread, before the checkpoint is written.
  void checkpoint(CheckpointWriter& checkpoints, pipeline::FrontEnd& front,
                  io::OutputFile* output) {
    io::OutputWriter* writer = output ? &output->writer() : nullptr;
    write_unwritten(front, writer);
    ResumeState state = base_state_;
    // Every row group of a Parquet output is in the writer (a segment ends
    // with each input row group, columnar/parquet_segments.h): their footer
    // goes into the checkpoint, and the output can be cut back to here.
    if (parquet_) {
      state.output_footer = parquet_->footer_so_far();
      writer->end_part();
    }
    if (output) {
      writer->flush();
      // The checkpoint names the temporary file: from now on it outlives
      // a failure and a second signal, for the resume.
      output->keep_for_resume();
    }
    state.position = position_;
    if (writer) {
      const io::OutputPrefix stored = writer->stored();
      // flush() waited for every buffer in flight: the output holds every
      // record kept so far. A checkpoint that said otherwise would resume
      // to a different output.
      const uint64_t records = parquet_ ? 0 : stats_.kept;
      if (stored.records != records || stored.bytes != writer->bytes_written()) {
        throw Error("cannot write a checkpoint: the output " + writer->name() + " holds " +
                        std::to_string(stored.records) + " records (" +
                        std::to_string(stored.bytes) + " bytes), not the " +
                        std::to_string(records) + " records (" +
                        std::to_string(writer->bytes_written()) + " bytes) written so far.",
                    ErrorKind::failure);
      }
      state.output_offset = stored.bytes;
      state.output_checksum = stored.checksum;
    }
    state.records = stats_.records;
    state.kept = stats_.kept;
    state.dropped = stats_.dropped;
    state.input_bytes = stats_.input_bytes;
    state.missing_keys = stats_.missing_keys;
    target_.checkpoint(checkpoints, std::move(state));
    schedule_->written(stats_.records);
  }

  void report_progress() {
    if (!options_.on_progress) return;
    progress_.records = stats_.records;
    progress_.kept = stats_.kept;
    progress_.seconds = seconds();
    options_.on_progress(progress_);
  }

  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  const PipelineOptions& options_;
  pipeline::RunTarget& target_;
  std::chrono::steady_clock::time_point started_;
  PipelineStats stats_;
  Progress progress_;
  // The records known intact so far (a prefix of the stream), how many of
  // them were written and the output bytes they take.
  struct Verified {
    uint64_t records = 0;
    uint64_t kept = 0;
    uint64_t output_bytes = 0;
  } verified_;
  ResumeState base_state_;
  StreamPoint position_;  // after the last batch processed
  std::optional<pipeline::CheckpointClock> schedule_;
  Unwritten unwritten_;
  std::optional<pipeline::ParquetOutput> parquet_;  // Parquet input's output
  std::optional<pipeline::KeyLinesOutput> key_lines_;  // or its key column as lines
  detail::ThreadPool output_pool_{"the output"};
};

}  // namespace

PipelineStats run_pipeline(const PipelineOptions& options, Filter& filter, Backend& backend) {
  const auto target = pipeline::filter_target(filter, backend, nullptr);
  return run_in_parts(options, [&](const PipelineOptions& run) {
    return Driver(run, *target).run();
  });
}

PipelineStats run_pipeline(const PipelineOptions& options, LayeredFilter& filter) {
  PipelineOptions growing = options;
  growing.on_over_capacity = nullptr;
  const std::unique_ptr<Backend> backend = filter.as_backend();
  // The first layer stands for the filter where one is needed: its seed is
  // every layer's, and its counters are not checked without the callback.
  const auto target = pipeline::filter_target(filter.layer(0), *backend, &filter);
  return run_in_parts(growing, [&](const PipelineOptions& run) {
    return Driver(run, *target).run();
  });
}

PipelineStats run_pipeline(const PipelineOptions& options, KeySet& set, const KeyRules& rules) {
  const auto target = pipeline::set_target(set, rules);
  return run_in_parts(options, [&](const PipelineOptions& run) {
    return Driver(run, *target).run();
  });
}

PipelineStats run_pipeline(const PipelineOptions& options, GpuKeySet& set,
                           const KeyRules& rules) {
  const auto target = pipeline::set_target(set, rules);
  return run_in_parts(options, [&](const PipelineOptions& run) {
    return Driver(run, *target).run();
  });
}

}  // namespace gdedup
