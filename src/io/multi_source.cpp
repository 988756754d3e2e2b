#include "io/multi_source.h"

#include "gdedup/error.h"
#include "io/input_file.h"

namespace gdedup::io {

MultiSource::MultiSource(std::vector<std::string> paths)
    : paths_(std::move(paths)), count_(paths_.size()) {
  open_current();
}

MultiSource::MultiSource(std::vector<std::unique_ptr<ByteSource>> sources)
    : sources_(std::move(sources)), count_(sources_.size()) {
  open_current();
}

MultiSource::MultiSource(std::unique_ptr<ByteSource> source) : count_(1) {
  sources_.push_back(std::move(source));
  open_current();
}

void MultiSource::open_current() {
  if (index_ >= count_) return;
  if (!paths_.empty()) {
    current_ = open_input(paths_[index_]);
  } else {
    current_ = std::move(sources_[index_]);
  }
  name_ = current_->name();
}

size_t MultiSource::read(char* buf, size_t capacity) {
  return current_ ? current_->read(buf, capacity) : 0;
}

bool MultiSource::next_input() {
  if (current_) {
    raw_done_ += current_->raw_bytes_read();
    auto size = current_->raw_size();
    if (raw_size_done_ && size) {
      *raw_size_done_ += *size;
    } else {
      raw_size_done_.reset();
    }
    current_.reset();
  }
  if (index_ < count_) ++index_;
  open_current();
  return current_ != nullptr;
}

uint64_t MultiSource::raw_bytes_read() const {
  return raw_done_ + (current_ ? current_->raw_bytes_read() : 0);
}

std::optional<uint64_t> MultiSource::raw_size() const {
  std::optional<uint64_t> total = raw_size_done_;
  if (current_ && total) {
    auto size = current_->raw_size();
    total = size ? std::optional<uint64_t>(*total + *size) : std::nullopt;
  }
  for (size_t i = index_ + 1; i < count_ && total; ++i) {
    std::optional<uint64_t> size;
    if (!paths_.empty()) {
      try {
        size = input_size(paths_[i]);
      } catch (const Error&) {
        // Reported properly when that input is reached.
      }
    } else if (sources_[i]) {
      size = sources_[i]->raw_size();
    }
    total = size ? std::optional<uint64_t>(*total + *size) : std::nullopt;
  }
  return total;
}

}  // namespace gdedup::io
