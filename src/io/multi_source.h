// Several inputs read one after another as one stream of records. The inputs
// stay separate: read() stops at the end of each, so that the record reader
// can end an unterminated last line there instead of gluing it to the first
// line of the next input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/byte_source.h"

namespace gdedup::io {

class MultiSource {
 public:
  // Paths ("-" is standard input) opened one at a time, when reached, through
  // open_input(): the first here, so that a bad first path fails at once.
  explicit MultiSource(std::vector<std::string> paths);
  // Sources already open (tests, library callers holding pipes or buffers).
  explicit MultiSource(std::vector<std::unique_ptr<ByteSource>> sources);
  explicit MultiSource(std::unique_ptr<ByteSource> source);
  MultiSource(MultiSource&&) noexcept = default;
  MultiSource& operator=(MultiSource&&) noexcept = default;

  // Reads from the current input; 0 means it has ended (then next_input()).
  size_t read(char* buf, size_t capacity);
  // ByteSource::map_rest() and mapped_to() of the current input.
  std::shared_ptr<MappedBytes> map_current(uint64_t min_bytes) {
    return current_ ? current_->map_rest(min_bytes) : nullptr;
  }
  void mapped_to(uint64_t bytes) { current_->mapped_to(bytes); }
  // Closes the current input and opens the next; false when none is left.
  bool next_input();

  size_t input_count() const { return count_; }
  // Index of the current input, input_count() once all are done.
  size_t input_index() const { return index_; }
  // Name of the current input (or of the last one, once all are done).
  const std::string& name() const { return name_; }

  // Raw (compressed) bytes read over all inputs, and their total where every
  // input's size is known (none of them standard input or a pipe).
  uint64_t raw_bytes_read() const;
  std::optional<uint64_t> raw_size() const;
  // ByteSource::verified_bytes() of the current input; the inputs before it
  // ended, so every check of theirs passed.
  uint64_t verified_bytes() const {
    return current_ ? current_->verified_bytes() : ByteSource::kAllVerified;
  }

 private:
  void open_current();

  std::vector<std::string> paths_;                    // when opened by path
  std::vector<std::unique_ptr<ByteSource>> sources_;  // when given open
  size_t count_ = 0;
  size_t index_ = 0;
  std::unique_ptr<ByteSource> current_;
  std::string name_;
  uint64_t raw_done_ = 0;  // raw bytes of the inputs already closed
  std::optional<uint64_t> raw_size_done_ = 0;
};

}  // namespace gdedup::io
