#include "format/file_writer.h"

#include <algorithm>
#include <vector>

#include "format/filter_file_format.h"
#include "fs/replacement.h"

namespace gdedup::format {
namespace {

using namespace filter_file;

// Pieces hashed and written at a time.
constexpr uint64_t kWriteChunk = uint64_t{64} << 20;

}  // namespace

uint64_t write_bit_array(fs::Replacement& out, const unsigned char* bytes, uint64_t size,
                         const BitReader& read) {
  std::vector<unsigned char> piece(bytes == nullptr ? std::min(size, kWriteChunk) : 0);
  return checksum_stream(size, kWriteChunk, [&](uint64_t done, uint64_t n) {
    const unsigned char* from = bytes == nullptr ? piece.data() : bytes + done;
    if (bytes == nullptr) read(done, n, piece.data());
    out.write(from, n);
    return from;
  });
}

void write_file(const std::string& path, const std::string& failure,
                const FileContents& contents) {
  fs::Replacement file(path, failure);
  unsigned char header[kHeaderBytes] = {};
  file.write(header, kHeaderBytes);
  const auto* bytes = reinterpret_cast<const unsigned char*>(contents.words);
  const uint64_t checksum = write_bit_array(file, bytes, contents.params.bytes(), contents.read);
  file.write(contents.trailer.data(), contents.trailer.size());
  if (contents.write_more) {
    contents.write_more(file, kHeaderBytes + contents.params.bytes() + contents.trailer.size());
  }
  encode_header(header, contents.magic, contents.version, contents.params, contents.counters,
                checksum);
  if (contents.add_fields) contents.add_fields(header);
  seal_header(header);
  file.pwrite(header, kHeaderBytes, 0);
  file.commit();
}

}  // namespace gdedup::format
