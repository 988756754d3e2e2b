// What a front end with one stream of batches hands the filter stage: each
// batch or the failure that ended the stream, in order; and the batches
// handed out until they are recycled (front_end.h: two at most).
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "pipeline/work_batch.h"

namespace gdedup::pipeline {

struct Outcome {
  std::unique_ptr<WorkBatch> batch;  // null: the input has ended
  std::exception_ptr failure;        // set: reading failed here
};

class HandedOut {
 public:
  // The outcome's batch, kept until taken back; null at the end of the
  // input (or of a queue closed); throws the outcome's failure.
  WorkBatch* hand_out(std::optional<Outcome> out) {
    if (!out) return nullptr;
    if (out->failure) std::rethrow_exception(out->failure);
    if (!out->batch) return nullptr;
    batches_.push_back(std::move(out->batch));
    return batches_.back().get();
  }

  // The batch handed out as `batch`, no longer handed out; null if it was not.
  std::unique_ptr<WorkBatch> take_back(WorkBatch* batch) {
    for (auto it = batches_.begin(); it != batches_.end(); ++it) {
      if (it->get() != batch) continue;
      std::unique_ptr<WorkBatch> taken = std::move(*it);
      batches_.erase(it);
      return taken;
    }
    return nullptr;
  }

 private:
  std::vector<std::unique_ptr<WorkBatch>> batches_;
};

}  // namespace gdedup::pipeline
