#include "pipeline/piece_plan.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"
#include "io/input_changed.h"
#include "io/random_access.h"

namespace gdedup::pipeline {
namespace {

// Enough for every compression magic (io::detect_compression).
constexpr size_t kMagicBytes = 10;

// The regular file at `path`, opened to plan its pieces, and the format its
// first bytes say; no file when it cannot be opened or read (it is then
// planned whole, and fails in its turn).
struct Looked {
  std::unique_ptr<io::RandomAccessInput> file;
  io::Compression format = io::Compression::none;
};
Looked look_at(const std::string& path) {
  Looked looked;
  try {
    looked.file = io::RandomAccessInput::open(path);
    if (!looked.file) return looked;
    char magic[kMagicBytes];
    const size_t got = looked.file->read_at(0, magic, sizeof magic);
    looked.format = io::detect_compression(magic, got);
  } catch (const Error&) {
    looked.file.reset();
  }
  return looked;
}

// A compressed part with the file it reads, opened for it alone: parts of
// one file are read by several workers at once, and a list of many files
// keeps none of them open while it waits. Its reader may close it at its
// end, so it leaves where its data goes on in `next`.
class OpenedPart final : public io::ByteSource {
 public:
  OpenedPart(std::unique_ptr<io::RandomAccessInput> input, const Piece& piece,
             std::shared_ptr<std::optional<size_t>> next)
      : input_(std::move(input)), part_(*input_, piece.parts, piece.part), next_(std::move(next)) {}
  size_t read(char* buf, size_t capacity) override {
    const size_t n = part_.read(buf, capacity);
    if (n == 0) *next_ = part_.next_piece();
    return n;
  }
  const std::string& name() const override { return part_.name(); }
  uint64_t raw_bytes_read() const override { return part_.raw_bytes_read(); }
  std::optional<uint64_t> raw_size() const override { return part_.raw_size(); }
  bool compressed() const override { return part_.compressed(); }
  uint64_t verified_bytes() const override { return part_.verified_bytes(); }

 private:
  std::unique_ptr<io::RandomAccessInput> input_;
  io::CompressedPieceSource part_;
  std::shared_ptr<std::optional<size_t>> next_;
};

// The parts of the compressed regular file `file`, or none when it has one
// part only (or cannot be read: it is then planned whole).
std::vector<Piece> compressed_parts(const io::RandomAccessInput& file, size_t input,
                                    uint64_t bytes) {
  std::shared_ptr<const io::PiecePlan> parts;
  try {
    parts = std::make_shared<const io::PiecePlan>(io::find_pieces(file, bytes));
  } catch (const Error&) {
    return {};
  }
  const size_t count = parts->ranges.size();
  if (count < 2) return {};
  std::vector<Piece> pieces(count);
  for (size_t p = 0; p < count; ++p) {
    Piece& piece = pieces[p];
    piece.input = input;
    piece.kind = PieceKind::kCompressedPart;
    piece.begin = parts->ranges[p].begin;
    piece.end = parts->ranges[p].end;
    piece.starts_record = p == 0;
    piece.ends_input = p + 1 == count;
    piece.stamp = io::FileStamp{file.size(), file.mtime_ns()};
    piece.parts = parts;
    piece.part = p;
  }
  return pieces;
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

std::vector<Piece> plan_pieces(const std::vector<std::string>& inputs, const PieceSizes& sizes,
                               const StreamPoint& from) {
  if (sizes.plain == 0 || sizes.compressed == 0) {
    throw UsageError("the piece size must be at least 1 byte");
  }
  std::vector<Piece> pieces;
  for (size_t i = static_cast<size_t>(from.input_index); i < inputs.size(); ++i) {
    const uint64_t start = i == from.input_index ? from.input_offset : 0;
    Piece whole;
    whole.input = i;
    whole.begin = start;
    fs::FileStatus status;
    const std::string& path = inputs[i];
    const bool regular = path != "-" && fs::status_of_path(path, status) == 0 &&
                         status.regular() && start <= status.size;
    const uint64_t smallest = sizes.compressed_parts ? std::min(sizes.plain, sizes.compressed)
                                                     : sizes.plain;
    const Looked looked = regular && status.size > smallest ? look_at(path) : Looked{};
    if (looked.file && looked.format != io::Compression::none) {
      std::vector<Piece> parts;
      if (sizes.compressed_parts && start == 0 && status.size > sizes.compressed) {
        parts = compressed_parts(*looked.file, i, sizes.compressed);
      }
      if (parts.empty()) parts.push_back(whole);
      pieces.insert(pieces.end(), parts.begin(), parts.end());
      continue;
    }
    if (!looked.file || status.size <= sizes.plain) {
      pieces.push_back(whole);
      continue;
    }
    const uint64_t piece_bytes = sizes.plain;
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

OpenPiece open_piece(const Piece& piece, const std::string& path, char separator) {
  OpenPiece opened;
  if (piece.kind == PieceKind::kWholeInput) {
    opened.source = io::open_input(path);
    skip_lead(*opened.source, 0, piece.begin, piece, path, separator);
    return opened;
  }
  if (piece.kind == PieceKind::kCompressedPart) {
    std::unique_ptr<io::RandomAccessInput> file = io::RandomAccessInput::open(path);
    if (!file || file->size() != piece.stamp.size || file->mtime_ns() != piece.stamp.mtime_ns) {
      const uint64_t now = file ? file->size() : 0;
      throw io::input_changed_error(path, piece.stamp.size, now,
                                    "before its part at byte offset " +
                                        std::to_string(piece.begin) + " was read");
    }
    auto next = std::make_shared<std::optional<size_t>>();
    opened.source = std::make_unique<OpenedPart>(std::move(file), piece, next);
    opened.next_part = std::move(next);
    return opened;
  }
  // A range that starts a record after its file's start: the byte before it
  // must end one.
  const uint64_t lead = piece.starts_record && piece.begin > 0 ? 1 : 0;
  opened.source = std::make_unique<io::RangeSource>(path, piece.begin - lead, piece.end,
                                                    piece.stamp);
  skip_lead(*opened.source, piece.begin - lead, lead, piece, path, separator);
  return opened;
}

size_t piece_after(const std::vector<Piece>& pieces, size_t k, const OpenPiece& opened) {
  if (!opened.next_part) return k + 1;
  if (!opened.next_part->has_value()) {
    throw Error("piece " + std::to_string(k) + " was asked where its data goes on before it "
                "was read to its end.", ErrorKind::failure);
  }
  // The file's parts are pieces k - part ... k - part + N - 1.
  return k - pieces[k].part + **opened.next_part;
}

}  // namespace gdedup::pipeline
