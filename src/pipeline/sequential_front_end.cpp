#include "pipeline/sequential_front_end.h"

#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "pipeline/batch_queue.h"
#include "pipeline/batch_source.h"
#include "pipeline/handed_out.h"

namespace gdedup::pipeline {
namespace {

// One batch per stage (reader, fingerprinter, filter, output) plus one
// waiting: every stage stays busy, and memory stays at five batches.
constexpr int kBatchesInFlight = 5;

class SequentialFrontEnd final : public FrontEnd {
 public:
  SequentialFrontEnd(const PipelineOptions& options, const KeyHashing& hashing,
                     const Backend* backend)
      : source_(make_batch_source(options, hashing)), backend_(backend) {}
  ~SequentialFrontEnd() override { stop(); }

  void skip_to(const StreamPoint& target) override { source_->skip_to(target); }

  void start() override {
    for (int i = 0; i < kBatchesInFlight; ++i) free_.push(std::make_unique<WorkBatch>(backend_));
    reader_ = std::thread([&] { read_all(); });
    try {
      hasher_ = std::thread([&] { hash_all(); });
    } catch (...) {
      // Refused by the system (no memory for its stack): the reader must be
      // stopped and joined, or its destructor ends the process.
      stop();
      throw;
    }
  }

  WorkBatch* next() override { return handed_out_.hand_out(full_.pop()); }

  void recycle(WorkBatch* batch) override {
    if (std::unique_ptr<WorkBatch> taken = handed_out_.take_back(batch)) {
      free_.push(std::move(taken));
    }
  }

  void stop() override {
    free_.close();
    read_.close();
    full_.close();
    if (reader_.joinable()) reader_.join();
    if (hasher_.joinable()) hasher_.join();
  }

 private:
  void read_all() {
    try {
      while (std::optional<std::unique_ptr<WorkBatch>> batch = free_.pop()) {
        if (!source_->next(**batch)) break;
        if (!read_.push(Outcome{std::move(*batch), nullptr})) return;
      }
      read_.push(Outcome{nullptr, nullptr});
    } catch (...) {
      read_.push(Outcome{nullptr, std::current_exception()});
    }
  }

  // Passes batches on in order; the end of input and a reading failure pass
  // through as they are.
  void hash_all() {
    while (std::optional<Outcome> out = read_.pop()) {
      if (out->batch) {
        try {
          source_->fingerprint(*out->batch);
        } catch (...) {
          out = Outcome{nullptr, std::current_exception()};
        }
      }
      const bool ends = out->batch == nullptr;
      if (!full_.push(std::move(*out)) || ends) return;
    }
  }

  std::unique_ptr<BatchSource> source_;
  const Backend* backend_;  // the batches' memory
  BatchQueue<std::unique_ptr<WorkBatch>> free_;
  BatchQueue<Outcome> read_;  // read, not yet fingerprinted
  BatchQueue<Outcome> full_;  // fingerprinted, for the filter stage
  HandedOut handed_out_;  // by next(), not yet recycled
  std::thread reader_;
  std::thread hasher_;
};

}  // namespace

std::unique_ptr<FrontEnd> make_sequential_front_end(const PipelineOptions& options,
                                                    const KeyHashing& hashing,
                                                    const Backend* backend) {
  return std::make_unique<SequentialFrontEnd>(options, hashing, backend);
}

}  // namespace gdedup::pipeline
