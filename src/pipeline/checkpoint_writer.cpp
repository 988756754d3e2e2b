#include "pipeline/checkpoint_writer.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

#include "gdedup/error.h"
#include "fs/file_ops.h"

namespace gdedup::pipeline {
CheckpointWriter::CheckpointWriter(std::string path, std::string output,
                                   const ResumeState* resumed)
    : path_(std::move(path)), output_(std::move(output)) {
  // A resumed run starts from a checkpoint that is on disk and still good.
  if (resumed != nullptr) {
    have_good_ = true;
    last_good_records_ = resumed->position.records;
  }
}

CheckpointWriter::~CheckpointWriter() {
  if (thread_.joinable()) thread_.join();
}

void CheckpointWriter::wait() {
  if (thread_.joinable()) thread_.join();
  if (!failure_) return;
  throw_checkpoint_failed(failure_, have_good_ ? &last_good_records_ : nullptr);
}

void throw_checkpoint_failed(const std::exception_ptr& failure, const uint64_t* last_good) {
  std::string reason;
  ErrorKind kind = ErrorKind::failure;
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    reason = e.what();
    kind = e.kind();
  } catch (const std::bad_alloc& e) {
    reason = e.what();
    kind = ErrorKind::out_of_memory;
  } catch (const std::exception& e) {
    reason = e.what();
  }
  const std::string previous =
      last_good != nullptr ? "the previous checkpoint, at record " + std::to_string(*last_good) +
                                 ", is intact and the job can be resumed from it"
                           : "no earlier checkpoint of this run exists";
  throw Error("checkpoint failed: " + reason + ". The job stopped rather than go on without "
              "a checkpoint; " + previous + ".",
              kind);
}

void CheckpointWriter::write(const Image& image, uint64_t records) {
  if (!output_.empty()) {
    // The state counts output bytes the pipeline thread flushed to the
    // kernel; an fsync through any descriptor of the file makes them
    // durable before the checkpoint that relies on them exists.
    if (!output_file_.is_open()) {
      if (const int err = fs::open_own_file(output_, output_file_)) {
        throw Error("cannot open output " + output_ + " to sync it: " + fs::error_text(err),
                    ErrorKind::io);
      }
    }
    if (const int err = output_file_.sync()) {
      throw Error("syncing output " + output_ + " failed: " + fs::error_text(err), ErrorKind::io);
    }
  }
  image(path_);
  ++written_;
  have_good_ = true;
  last_good_records_ = records;
}

void CheckpointWriter::start(const std::vector<const Filter*>& layers, ResumeState state) {
  wait();
  uint64_t words = 0;
  for (const Filter* layer : layers) words += layer->params().words();
  if (snapshot_words_ != words) {
    snapshot_.reset();
    snapshot_words_ = 0;
    // Not value-initialised: the copies below fill it.
    snapshot_.reset(new (std::nothrow) uint32_t[words]);
    if (snapshot_) snapshot_words_ = words;
  }
  std::vector<format::LayerView> images;
  for (const Filter* layer : layers) images.push_back(format::view_of(*layer));
  const uint64_t records = state.position.records;
  if (!snapshot_) {
    // No memory for a second copy of the filter: write from the filter
    // itself, holding the pipeline for the whole write.
    try {
      write([&](const std::string& path) { format::write_checkpoint_file(images, state, path); },
            records);
    } catch (...) {
      failure_ = std::current_exception();
    }
    wait();
    return;
  }
  uint32_t* copy = snapshot_.get();
  for (format::LayerView& image : images) {
    const uint64_t n = image.params.words();
    std::memcpy(copy, image.words, n * sizeof(uint32_t));
    image.words = copy;
    copy += n;
  }
  // The image is copied into a std::function, which holds copyable things.
  auto snapshot = std::make_shared<const std::vector<format::LayerView>>(std::move(images));
  start_image([snapshot, state = std::move(state)](const std::string& path) {
    format::write_checkpoint_file(*snapshot, state, path);
  }, records);
}

void CheckpointWriter::start_image(Image image, uint64_t records) {
  wait();
  finished_ = false;
  thread_ = std::thread([this, image = std::move(image), records] {
    try {
      write(image, records);
    } catch (...) {
      failure_ = std::current_exception();
    }
    finished_ = true;
  });
}

void CheckpointWriter::remove() {
  if (thread_.joinable()) thread_.join();
  // A checkpoint left behind by a completed run would restart the tail of a
  // finished job; failing to remove it is harmless, since resuming from it
  // rebuilds the same output.
  fs::unlink_file(path_);
}

}  // namespace gdedup::pipeline
