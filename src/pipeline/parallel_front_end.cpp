#include "pipeline/parallel_front_end.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/multi_source.h"
#include "io/record_reader.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/batch_queue.h"
#include "pipeline/batch_source.h"
#include "pipeline/piece_plan.h"

namespace gdedup::pipeline {
namespace {

// What a worker hands the in-order stage, in its piece's order: batches of
// records, then an end marker; or a failure, after the batches before it.
// Positions in a batch (WorkBatch::end, verified_records) count from the
// piece's first byte and its first record, the head included.
struct Chunk {
  size_t piece = 0;
  std::unique_ptr<WorkBatch> batch;  // null for the end marker and a failure
  std::exception_ptr failure;
  // The piece's first chunk: its head (the bytes before its first separator,
  // or all of it without one) for a piece that does not start a record.
  bool first = false;
  std::string head;
  bool has_separator = false;
  // The end marker: the tail (bytes after the last separator) of a piece
  // that does not end its input, and the piece's decoded and raw bytes.
  bool last = false;
  std::string tail;
  uint64_t bytes = 0;
  uint64_t raw_bytes = 0;
  // Where the stream goes on (piece_after()), and whether the piece's data
  // ran to the end of its input: a compressed part may do both although
  // planned otherwise.
  size_t next_piece = 0;
  bool ends_input = false;
};

struct Worker {
  Worker(const PipelineOptions& options, const KeyHashing& hashing) : hasher(options, hashing) {}
  BatchHasher hasher;
  BatchQueue<std::unique_ptr<WorkBatch>> free;
  BatchQueue<Chunk> out;
  std::thread thread;
};

class ParallelFrontEnd final : public FrontEnd {
 public:
  ParallelFrontEnd(const PipelineOptions& options, const KeyHashing& hashing,
                   const Backend* backend)
      : options_(options),
        backend_(backend),
        reader_options_(text_reader_options(options)),
        hasher_(options, hashing),
        joined_{std::make_unique<WorkBatch>(backend), std::make_unique<WorkBatch>(backend)} {
    for (unsigned i = 0; i < options.read_threads; ++i) {
      workers_.push_back(std::make_unique<Worker>(options, hashing));
    }
    // A first input that cannot be opened, or is in a format refused, fails
    // now, before the output is created, as with one thread; standard input
    // is not read here, its bytes would be lost.
    if (options.inputs.at(0) != "-") io::open_input(options.inputs[0]);
  }
  ~ParallelFrontEnd() override { stop(); }

  void skip_to(const StreamPoint& target) override { at_ = target; }

  void start() override {
    // Parts of compressed files only where whole files leave workers idle.
    const size_t inputs_left = options_.inputs.size() - static_cast<size_t>(at_.input_index);
    const PieceSizes sizes{options_.piece_bytes, options_.compressed_piece_bytes,
                           inputs_left < workers_.size() * kInputsPerWorkerWithoutParts};
    plan_ = plan_pieces(options_.inputs, sizes, at_);
    try {
      for (size_t w = 0; w < workers_.size(); ++w) {
        for (int i = 0; i < kBatchesPerWorker; ++i) {
          workers_[w]->free.push(std::make_unique<WorkBatch>(backend_));
        }
        workers_[w]->thread = std::thread([this, w] { work(w); });
      }
    } catch (...) {
      // Refused by the system: the workers started must be stopped and
      // joined, or their destructors end the process.
      stop();
      throw;
    }
  }

  WorkBatch* next() override;

  void recycle(WorkBatch* batch) override {
    for (auto it = handed_out_.begin(); it != handed_out_.end(); ++it) {
      if (it->batch.get() != batch) continue;
      workers_[it->worker]->free.push(std::move(it->batch));
      handed_out_.erase(it);
      return;
    }
    // A joined record's batch is the front end's own.
  }

  void stop() override {
    {
      std::lock_guard<std::mutex> lock(claim_mutex_);
      stopped_ = true;
    }
    claims_.close();
    for (auto& w : workers_) {
      w->free.close();
      w->out.close();
    }
    for (auto& w : workers_) {
      if (w->thread.joinable()) w->thread.join();
    }
  }

 private:
  // A worker's thread: takes pieces in order until none is left.
  void work(size_t w) {
    for (;;) {
      size_t piece;
      {
        std::lock_guard<std::mutex> lock(claim_mutex_);
        if (stopped_ || next_piece_ == plan_.size()) return;
        piece = next_piece_++;
        // Under the lock, so the claims are queued in piece order.
        claims_.push(w);
      }
      if (!read_piece(*workers_[w], piece)) return;
    }
  }

  // False when the worker must stop: the front end stopped. A failure is
  // the piece's last chunk, and the worker goes on: the piece may be one the
  // in-order stage drops (a compressed part after a false boundary).
  bool read_piece(Worker& worker, size_t k);
  // The in-order stage's steps, on the filter thread.
  void begin_piece();
  WorkBatch* join_head(const Chunk& chunk);
  void add_pending(const std::string& bytes);
  WorkBatch* deliver_pending(const Piece& piece, uint64_t input_offset, bool verified);
  void place(WorkBatch& batch) const;
  WorkBatch* end_piece(const Chunk& chunk);
  [[noreturn]] void fail(std::exception_ptr failure) const;
  const std::string& input_name() const;

  const PipelineOptions& options_;
  const Backend* backend_;  // the batches' memory
  const io::ReaderOptions reader_options_;
  std::vector<Piece> plan_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex claim_mutex_;
  size_t next_piece_ = 0;  // the next piece a worker takes
  bool stopped_ = false;
  BatchQueue<size_t> claims_;  // the worker of each piece, in piece order

  // The in-order stage: only next() and recycle() touch these.
  BatchHasher hasher_;              // for joined records
  size_t piece_ = 0;              // the piece being delivered
  size_t continue_at_ = 0;        // pieces before it that are not yet delivered are dropped
  size_t worker_ = 0;             // its worker
  bool claimed_ = false;          // worker_ is known
  std::optional<Chunk> held_;     // a chunk to deliver after a joined record
  // The workers' batches next() handed out, not yet recycled.
  struct HandedOut {
    size_t worker;
    std::unique_ptr<WorkBatch> batch;
  };
  std::vector<HandedOut> handed_out_;
  // A record joined from pieces, in one batch or the other by turns: the
  // one handed out before may still be out.
  std::unique_ptr<WorkBatch> joined_[2];
  unsigned joined_turn_ = 0;
  std::string pending_;           // a record begun by earlier pieces
  StreamPoint at_;                // after the last record delivered
  uint64_t input_start_ = 0;      // stream offset of the current input's first byte
  uint64_t piece_offset_ = 0;     // input offset of the current piece's first byte
  uint64_t piece_records_ = 0;    // records delivered before the current piece
  uint64_t raw_done_ = 0;         // raw bytes of the pieces delivered
};

bool ParallelFrontEnd::read_piece(Worker& worker, size_t k) {
  const Piece& piece = plan_[k];
  try {
    OpenPiece opened = open_piece(piece, options_.inputs[piece.input], options_.record_separator);
    io::RecordReader reader(io::MultiSource(std::move(opened.source)), reader_options_);
    bool first = true;
    std::string tail;
    for (;;) {
      std::optional<std::unique_ptr<WorkBatch>> taken = worker.free.pop();
      if (!taken) return false;
      std::unique_ptr<WorkBatch> batch = std::move(*taken);
      io::RecordBatch& records = batch->records;
      const bool more = reader.next(records);
      Chunk chunk;
      chunk.piece = k;
      if (first && !piece.starts_record) {
        chunk.first = true;
        if (more) {
          // Without a separator the piece is one unterminated record.
          chunk.has_separator = !(records.size() == 1 && records.ends_unterminated());
          chunk.head.assign(records[0]);
          records.drop_first();
        }
      }
      first = false;
      if (!more) {
        worker.free.push(std::move(batch));
        chunk.last = true;
        chunk.tail = std::move(tail);
        chunk.bytes = reader.position().offset;
        chunk.raw_bytes = reader.source().raw_bytes_read();
        chunk.next_piece = piece_after(plan_, k, opened);
        chunk.ends_input = piece.ends_input ||
                           (piece.parts && chunk.next_piece == k - piece.part + piece.parts->ranges.size());
        return worker.out.push(std::move(chunk));
      }
      batch->end = reader.position();
      if (!piece.ends_input && records.ends_unterminated()) {
        tail.assign(records[records.size() - 1]);
        records.drop_last();
        batch->end.records -= 1;
        batch->end.offset -= tail.size();
      }
      worker.hasher.fingerprint(*batch);
      batch->raw_bytes_read = reader.source().raw_bytes_read();
      batch->verified_records = records.verified_records();
      chunk.batch = std::move(batch);
      if (!worker.out.push(std::move(chunk))) return false;
    }
  } catch (...) {
    Chunk chunk;
    chunk.piece = k;
    chunk.failure = std::current_exception();
    return worker.out.push(std::move(chunk));
  }
}

WorkBatch* ParallelFrontEnd::next() {
  for (;;) {
    if (piece_ == plan_.size()) return nullptr;
    const bool dropped = piece_ < continue_at_;
    if (!claimed_) {
      std::optional<size_t> w = claims_.pop();
      if (!w) return nullptr;
      worker_ = *w;
      claimed_ = true;
      if (!dropped) begin_piece();
    }
    std::optional<Chunk> chunk;
    if (held_) {
      chunk = std::move(held_);
      held_.reset();
    } else {
      chunk = workers_[worker_]->out.pop();
      if (!chunk) return nullptr;
    }
    if (dropped) {
      // Its bytes are in the piece before, which read on through it.
      if (chunk->batch) workers_[worker_]->free.push(std::move(chunk->batch));
      if (chunk->last || chunk->failure) {
        ++piece_;
        claimed_ = false;
      }
      continue;
    }
    if (chunk->failure) fail(chunk->failure);
    if (chunk->first) {
      chunk->first = false;
      if (WorkBatch* joined = join_head(*chunk)) {
        held_ = std::move(chunk);
        return joined;
      }
    }
    if (chunk->last) {
      if (WorkBatch* joined = end_piece(*chunk)) return joined;
      continue;
    }
    if (chunk->batch->records.empty()) {
      workers_[worker_]->free.push(std::move(chunk->batch));
      continue;
    }
    WorkBatch* batch = chunk->batch.get();
    handed_out_.push_back(HandedOut{worker_, std::move(chunk->batch)});
    place(*batch);
    at_ = batch->end;
    return batch;
  }
}

void ParallelFrontEnd::begin_piece() {
  const Piece& piece = plan_[piece_];
  piece_records_ = at_.records;
  if (piece_ > 0 && plan_[piece_ - 1].input == piece.input) return;
  // A new input: every byte of the ones before it is in a record delivered,
  // except where a resume starts inside this one.
  input_start_ = at_.offset - (at_.input_index == piece.input ? at_.input_offset : 0);
  piece_offset_ = piece.begin;
  pending_.clear();
}

// The head ends the record the pieces before began (pending_): with a
// separator it is whole; so is it at the end of the input, unless empty.
WorkBatch* ParallelFrontEnd::join_head(const Chunk& chunk) {
  const Piece& piece = plan_[piece_];
  add_pending(chunk.head);
  if (!chunk.has_separator && !(piece.ends_input && !pending_.empty())) return nullptr;
  // The head's bytes were checked with the rest of the piece's first batch.
  const bool verified = !chunk.batch || chunk.batch->verified_records >= 1;
  return deliver_pending(piece, piece_offset_ + chunk.head.size() + (chunk.has_separator ? 1 : 0),
                         verified);
}

// The record after the last delivered goes on with `bytes`; it may not grow
// past the record length limit.
void ParallelFrontEnd::add_pending(const std::string& bytes) {
  if (pending_.size() + bytes.size() > options_.max_record_bytes) {
    throw io::RecordTooLong(input_name(), at_.records + 1, at_.offset - input_start_,
                            options_.max_record_bytes, options_.record_separator);
  }
  pending_ += bytes;
}

// The record pending_ holds, ending at `input_offset` of `piece`'s input, as
// the record after the last delivered.
WorkBatch* ParallelFrontEnd::deliver_pending(const Piece& piece, uint64_t input_offset,
                                             bool verified) {
  WorkBatch& joined = *joined_[joined_turn_];
  joined_turn_ ^= 1;
  joined.records.hold_one(pending_);
  pending_.clear();
  hasher_.fingerprint(joined);
  StreamPoint& end = joined.end;
  end.records = at_.records + 1;
  end.input_index = piece.input;
  end.input_offset = input_offset;
  end.offset = input_start_ + end.input_offset;
  joined.input_bytes = end.offset;
  joined.raw_bytes_read = raw_done_;
  joined.verified_records = verified ? end.records : 0;
  at_ = end;
  return &joined;
}

// From the piece's own positions to the stream's.
void ParallelFrontEnd::place(WorkBatch& batch) const {
  const Piece& piece = plan_[piece_];
  StreamPoint& end = batch.end;
  end.records += piece_records_;
  end.input_index = piece.input;
  end.input_offset = piece_offset_ + end.offset;
  end.offset = input_start_ + end.input_offset;
  batch.input_bytes = end.offset;
  batch.raw_bytes_read += raw_done_;
  if (batch.verified_records > 0) {
    batch.verified_records = std::min(batch.verified_records + piece_records_, end.records);
  }
}

// Null, or the record the tail ends: a compressed part planned to be
// followed by others whose data ran to the end of the file ends its input.
WorkBatch* ParallelFrontEnd::end_piece(const Chunk& chunk) {
  const Piece& piece = plan_[piece_];
  if (!piece.ends_input) add_pending(chunk.tail);
  piece_offset_ += chunk.bytes;
  raw_done_ += chunk.raw_bytes;
  continue_at_ = chunk.next_piece;
  ++piece_;
  claimed_ = false;
  if (piece.ends_input || !chunk.ends_input) return nullptr;
  if (pending_.empty()) return nullptr;
  // Decoded to the end, so every check of the file passed.
  return deliver_pending(piece, piece_offset_, true);
}

// A record too long is told by its place in the stream, which the worker
// that found it does not know: it is the record after the last delivered.
void ParallelFrontEnd::fail(std::exception_ptr failure) const {
  try {
    std::rethrow_exception(failure);
  } catch (const io::RecordTooLong&) {
    throw io::RecordTooLong(input_name(), at_.records + 1, at_.offset - input_start_,
                            options_.max_record_bytes, options_.record_separator);
  }
}

const std::string& ParallelFrontEnd::input_name() const {
  static const std::string kStandardInput = "standard input";
  const std::string& path = options_.inputs[plan_[piece_].input];
  return path == "-" ? kStandardInput : path;
}

}  // namespace

std::unique_ptr<FrontEnd> make_parallel_front_end(const PipelineOptions& options,
                                                  const KeyHashing& hashing,
                                                  const Backend* backend) {
  return std::make_unique<ParallelFrontEnd>(options, hashing, backend);
}

}  // namespace gdedup::pipeline
