#include "pipeline/batch_source.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "gdedup/error.h"
#include "io/multi_source.h"
#include "io/record_reader.h"
#include "pipeline/batch_hasher.h"

namespace gdedup::pipeline {
namespace {

class TextSource final : public BatchSource {
 public:
  TextSource(const PipelineOptions& options, const KeyHashing& hashing)
      : hasher_(options, hashing),
        reader_(io::MultiSource(options.inputs),
                text_reader_options(options)) {}

  bool next(WorkBatch& batch) override {
    if (!reader_.next(batch.records)) return false;
    batch.input_bytes = batch.records.end().offset;
    batch.raw_bytes_read = reader_.source().raw_bytes_read();
    batch.end = batch.records.end();
    batch.verified_records = batch.records.verified_records();
    return true;
  }

  void fingerprint(WorkBatch& batch) override { hasher_.fingerprint(batch); }

  void skip_to(const StreamPoint& target) override { reader_.skip_to(target); }

 private:
  BatchHasher hasher_;
  io::RecordReader reader_;
};

// 8-byte little-endian fingerprints, back to back; each input must hold a
// whole number of them.
class U64Source final : public BatchSource {
 public:
  explicit U64Source(const PipelineOptions& options)
      : source_(options.inputs), batch_records_(options.batch_records) {}

  bool next(WorkBatch& batch) override {
    batch.fingerprints.resize(batch_records_);
    const size_t have = read(reinterpret_cast<char*>(batch.fingerprints.data()),
                             batch_records_ * 8);
    // Every input holds whole fingerprints and the buffer starts on one, so
    // `have` is a multiple of 8 here.
    batch.fingerprints.resize(have / 8);
    for (uint64_t& fp : batch.fingerprints) fp = le64(fp);
    batch.input_bytes = position_.offset;
    batch.raw_bytes_read = source_.raw_bytes_read();
    batch.end = position_;
    // Fingerprints are 8 bytes: those of the earlier inputs, and of the
    // current one those within its verified bytes.
    const uint64_t verified = std::min(source_.verified_bytes(), position_.input_offset);
    batch.verified_records = (position_.offset - position_.input_offset + verified) / 8;
    return have > 0;
  }

  // The fingerprints are the records: nothing to compute.
  void fingerprint(WorkBatch&) override {}

  void skip_to(const StreamPoint& target) override {
    std::vector<char> scratch(std::min<uint64_t>(uint64_t{1} << 20, batch_records_ * 8));
    while (position_.records < target.records) {
      const uint64_t left = (target.records - position_.records) * 8;
      if (read(scratch.data(), static_cast<size_t>(std::min<uint64_t>(left, scratch.size()))) == 0) {
        break;
      }
    }
    const StreamPoint& p = position_;
    // The end of one input and the start of the next are the same place.
    auto later_form = [](const StreamPoint& a, const StreamPoint& b) {
      return a.input_index > b.input_index && a.input_offset == 0;
    };
    const bool same_place =
        (p.input_index == target.input_index && p.input_offset == target.input_offset) ||
        later_form(p, target) || later_form(target, p);
    if (p.records != target.records || p.offset != target.offset || !same_place) {
      throw Error("the input is not the one the checkpoint was taken on: it holds " +
                      std::to_string(p.records) + " fingerprints up to input " +
                      std::to_string(p.input_index + 1) + ", byte " +
                      std::to_string(p.input_offset) + ", the checkpoint says " +
                      std::to_string(target.records) + " up to input " +
                      std::to_string(target.input_index + 1) + ", byte " +
                      std::to_string(target.input_offset) + ".",
                  ErrorKind::resume_mismatch);
    }
  }

 private:
  static uint64_t le64(uint64_t v) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
  }

  // Fills `out` with up to `want` bytes (a multiple of 8), crossing into the
  // next inputs as they end; fewer only at the end of the last input.
  size_t read(char* out, size_t want) {
    size_t have = 0;
    while (have < want && !done_) {
      const size_t got = source_.read(out + have, want - have);
      have += got;
      position_.input_offset += got;
      if (got == 0) {
        if (position_.input_offset % 8 != 0) {
          throw Error(source_.name() + " is not a whole number of 64-bit fingerprints: it has " +
                          std::to_string(position_.input_offset) + " bytes, " +
                          std::to_string(position_.input_offset % 8) +
                          " more than a multiple of 8.",
                      ErrorKind::damaged);
        }
        done_ = !source_.next_input();
        position_.input_offset = 0;
        position_.input_index = source_.input_index();
      }
    }
    position_.offset += have;
    position_.records = position_.offset / 8;
    return have;
  }

  io::MultiSource source_;
  size_t batch_records_;
  StreamPoint position_;
  bool done_ = false;
};

}  // namespace

io::ReaderOptions text_reader_options(const PipelineOptions& options) {
  io::ReaderOptions reader;
  reader.batch_records = static_cast<size_t>(options.batch_records);
  reader.max_record_bytes = options.max_record_bytes;
  reader.separator = options.record_separator;
  reader.min_mapped_bytes = options.min_mapped_bytes;
  return reader;
}

std::unique_ptr<BatchSource> make_batch_source(const PipelineOptions& options,
                                               const KeyHashing& hashing) {
  if (options.format == InputFormat::kU64) return std::make_unique<U64Source>(options);
  return std::make_unique<TextSource>(options, hashing);
}

}  // namespace gdedup::pipeline
