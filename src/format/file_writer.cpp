#include "format/file_writer.h"

#include "format/filter_file_format.h"
#include "fs/replacement.h"

namespace gdedup::format {
namespace {

using namespace filter_file;

// Pieces hashed and written at a time.
constexpr uint64_t kWriteChunk = uint64_t{64} << 20;

}  // namespace

void write_file(const std::string& path, const std::string& failure,
                const FileContents& contents) {
  fs::Replacement file(path, failure);
  unsigned char header[kHeaderBytes] = {};
  file.write(header, kHeaderBytes);
  const auto* bytes = reinterpret_cast<const unsigned char*>(contents.words);
  const uint64_t checksum =
      checksum_pieces(bytes, contents.params.bytes(), kWriteChunk,
                      [&](uint64_t done, uint64_t n) { file.write(bytes + done, n); });
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
