#include "pipeline/piece_plan.h"

#include <algorithm>
#include <vector>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/paths.h"

namespace gdedup::pipeline {
namespace {

// Enough for every compression magic (io::detect_compression).
constexpr size_t kMagicBytes = 10;

// True for a regular file whose first bytes are not a compressed format's.
bool plain_file(const std::string& path) {
  fs::File file;
  if (fs::open_for_reading(path, file) != 0) return false;
  char magic[kMagicBytes];
  const int64_t got = fs::read_at(file.fd(), magic, sizeof magic, 0);
  if (got < 0) return false;
  return io::detect_compression(magic, static_cast<size_t>(got)) == io::Compression::none;
}

[[noreturn]] void not_the_input(const Piece& piece, const std::string& path,
                                const std::string& what) {
  throw Error("the input is not the one the checkpoint was taken on: input " +
                  std::to_string(piece.input + 1) + " (" + path + ") " + what + ".",
              ErrorKind::resume_mismatch);
}

// Reads the `lead` bytes before the piece's first record, which begin at
// byte `from` of the input, and checks that the last of them is a separator,
// or that they are all the input has (a position at its end).
void skip_lead(io::ByteSource& source, uint64_t from, uint64_t lead, const Piece& piece,
               const std::string& path, char separator) {
  std::vector<char> scratch(static_cast<size_t>(std::min<uint64_t>(lead, uint64_t{1} << 20)));
  uint64_t left = lead;
  char last = separator;
  while (left > 0) {
    const size_t n = source.read(scratch.data(),
                                 static_cast<size_t>(std::min<uint64_t>(left, scratch.size())));
    if (n == 0) {
      not_the_input(piece, path, "ends at byte " + std::to_string(from + lead - left) +
                                     ", before the checkpoint's byte " +
                                     std::to_string(from + lead));
    }
    last = scratch[n - 1];
    left -= n;
  }
  char after;
  if (last != separator && source.read(&after, 1) != 0) {
    not_the_input(piece, path, "has no record boundary at byte " + std::to_string(from + lead) +
                                   ", where the checkpoint's position lies");
  }
}

}  // namespace

std::vector<Piece> plan_pieces(const std::vector<std::string>& inputs, uint64_t piece_bytes,
                               const StreamPoint& from) {
  if (piece_bytes == 0) throw UsageError("the piece size must be at least 1 byte");
  std::vector<Piece> pieces;
  for (size_t i = static_cast<size_t>(from.input_index); i < inputs.size(); ++i) {
    const uint64_t start = i == from.input_index ? from.input_offset : 0;
    Piece whole;
    whole.input = i;
    whole.begin = start;
    fs::FileStatus status;
    const std::string& path = inputs[i];
    const bool large = path != "-" && fs::status_of_path(path, status) == 0 &&
                       status.regular() && status.size > piece_bytes;
    if (!large || start > status.size || !plain_file(path)) {
      pieces.push_back(whole);
      continue;
    }
    for (uint64_t at = start; at < status.size; at += piece_bytes) {
      Piece range;
      range.input = i;
      range.kind = PieceKind::kPlainRange;
      range.begin = at;
      range.end = std::min(status.size, at + piece_bytes);
      range.starts_record = at == start;
      range.ends_input = range.end == status.size;
      range.stamp = io::FileStamp{status.size, status.mtime_ns};
      pieces.push_back(range);
    }
  }
  return pieces;
}

std::unique_ptr<io::ByteSource> open_piece(const Piece& piece, const std::string& path,
                                           char separator) {
  if (piece.kind == PieceKind::kWholeInput) {
    std::unique_ptr<io::ByteSource> source = io::open_input(path);
    skip_lead(*source, 0, piece.begin, piece, path, separator);
    return source;
  }
  // A range that starts a record after its file's start: the byte before it
  // must end one.
  const uint64_t lead = piece.starts_record && piece.begin > 0 ? 1 : 0;
  auto source = std::make_unique<io::RangeSource>(path, piece.begin - lead, piece.end,
                                                  piece.stamp);
  skip_lead(*source, piece.begin - lead, lead, piece, path, separator);
  return source;
}

}  // namespace gdedup::pipeline
