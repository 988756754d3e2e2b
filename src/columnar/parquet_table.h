// Parquet files read in slices of row groups and written back with the rows
// a job keeps, behind interfaces without Arrow's types. Arrow's headers need
// C++20, and its libraries take about 97 MB of address space and 18 MB of
// memory once loaded: only this folder's Arrow sources include them, and they
// are a module of their own (libgdedup_parquet.so, CMakeLists.txt) that
// parquet_module.cpp loads the first time a job reads Parquet, so that a
// job of lines, and the command's start, never map them.
//
// The module implements ParquetLibrary and its reader and writer. Both sides
// are built by the same compiler against the same C++ library in one build,
// so these classes pass std::string and std::vector across, and a
// gdedup::Error (header-only) thrown in the module reaches the engine's
// handlers, matched by its type's name as the C++ runtime does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gdedup::columnar {

// The first bytes of a Parquet file (and its last four): "PAR1".
inline constexpr std::string_view kParquetMagic{"PAR1", 4};

// What a key column holds, which decides how its values become key bytes
// (docs/KEYS.md, "Parquet columns").
enum class ColumnKind {
  kText,    // string, large string: the UTF-8 bytes
  kBinary,  // binary, large binary, fixed-size binary: the bytes
  kInteger  // any integer width, signed or not: 8 bytes, little-endian
};

// A slice of one row group of one input (at most ReadOptions::slice_rows
// rows, so that a huge row group is never decoded whole): the key of each
// row, and the rows themselves for the writer (held opaque). Keys point
// into the slice's own memory and live as long as it does.
class RowGroup {
 public:
  // Arrow's table, in the module that reads it.
  struct Data {
    virtual ~Data() = default;
  };
  RowGroup(std::unique_ptr<Data> data, std::vector<std::string_view> keys,
           std::vector<uint64_t> nulls)
      : data_(std::move(data)), keys_(std::move(keys)), nulls_(std::move(nulls)) {}
  RowGroup(const RowGroup&) = delete;
  RowGroup& operator=(const RowGroup&) = delete;

  size_t rows() const { return keys_.size(); }
  // The key of row i; meaningless where is_null(i).
  std::string_view key(size_t i) const { return keys_[i]; }
  // The rows whose key is null, in order.
  const std::vector<uint64_t>& nulls() const { return nulls_; }
  const Data& data() const { return *data_; }

 private:
  std::unique_ptr<Data> data_;
  std::vector<std::string_view> keys_;
  std::vector<uint64_t> nulls_;
};

// Where in the inputs a slice lies, for messages and the writer.
struct RowGroupPlace {
  size_t input = 0;       // index into the reader's paths
  uint64_t group = 0;     // row group of that file, from 0
  uint64_t first_row = 0; // the slice's first row's number in that file, from 0
  // The file bytes of the inputs up to this slice's end, that file's share
  // taken by its rows (for progress and statistics).
  uint64_t bytes_through = 0;
  // Of those, this slice's: bytes_through less that of the slice before
  // it, so that the slices' shares add up to the files' sizes.
  uint64_t bytes = 0;
  bool ends_group = true;  // the slice is its row group's last
};

// How the reader slices row groups.
struct ReadOptions {
  uint64_t slice_rows = uint64_t{1} << 18;  // at most this many rows a slice (>= 1)
};

// What the writer writes; each default follows the job's first input.
struct WriteOptions {
  // A codec's name (parquet_codec_names); empty: the first input's codec.
  std::string compression;
  // At most this many rows an output row group; 0: no limit but the input's
  // row groups. An output row group never holds rows of two input row
  // groups either way.
  uint64_t row_group_rows = 0;
};

// The codecs WriteOptions::compression may name.
inline constexpr const char* kParquetCodecNames[] = {"uncompressed", "snappy", "gzip",
                                                     "brotli", "zstd", "lz4"};

// kParquetCodecNames for messages: "uncompressed, snappy, ..., lz4".
inline std::string parquet_codec_list() {
  std::string listed;
  for (const char* codec : kParquetCodecNames) {
    listed += (listed.empty() ? "" : ", ") + std::string(codec);
  }
  return listed;
}

// The files of a job read in order, a slice of a row group at a time,
// keyed by one column (open_parquet_reader).
class ParquetReader {
 public:
  virtual ~ParquetReader() = default;
  virtual ColumnKind key_kind() const = 0;
  // kInteger: whether the column's type is unsigned (its keys' 8 bytes
  // are then read back as uint64, else as int64).
  virtual bool key_unsigned() const = 0;
  virtual uint64_t total_rows() const = 0;   // from the footers
  virtual uint64_t total_bytes() const = 0;  // the files' sizes
  virtual const std::vector<std::string>& paths() const = 0;
  // From now on next() decodes the key column alone: its slices hold
  // keys but no rows to write as Parquet (a job that writes keys as lines,
  // or nothing).
  virtual void read_key_only() = 0;
  // The next slice, with where it lies; null after the last one. Throws
  // gdedup::Error naming the file and row group for damaged data.
  virtual std::unique_ptr<RowGroup> next(RowGroupPlace& place) = 0;
  // The row groups of input `input`, from its footer.
  virtual uint64_t row_groups(size_t input) const = 0;
  // Makes row group `group` of input `input` the next one next() reads (a
  // resume, a rank's piece). Throws gdedup::Error naming the file when it
  // has fewer row groups.
  virtual void seek(size_t input, uint64_t group) = 0;
  // Replaces `out` with the rows of `group` (a row group of this reader)
  // whose keep[i] is nonzero, in order, as Arrow IPC stream bytes for
  // another process's ParquetWriter::write_packed; empty when none is kept.
  virtual void pack(const RowGroup& group, const uint8_t* keep, std::string& out) const = 0;
};

// Bytes out, in order: the writer's only way to the disk.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const char* data, size_t size) = 0;
};

// Where a writer continues a file that a checkpoint left: the sink holds
// its first `offset` bytes, whose row groups `footer` describes (both as
// ParquetWriter::footer_so_far() and the sink's length were then).
struct ParquetContinuation {
  std::string footer;
  uint64_t offset = 0;
};

// A Parquet file being written slice by slice (open_parquet_writer).
// close() writes the footer; a writer destroyed unclosed leaves the sink
// without one (the job that failed removes its output).
class ParquetWriter {
 public:
  virtual ~ParquetWriter() = default;
  // Writes the rows of `slice` whose keep[i] is nonzero, in order, into the
  // output row group open since the slice's row group began; `ends_group`
  // closes it (none is written where no row was kept). The bytes written
  // depend only on the rows kept in each input row group, never on how the
  // row groups were sliced.
  virtual void write(const RowGroup& slice, const uint8_t* keep, bool ends_group) = 0;
  // Writes the rows ParquetReader::pack packed from one row group, as that
  // row group's output: the same bytes write() gives for its slices and
  // the flags they were packed from.
  virtual void write_packed(const char* data, size_t size) = 0;
  // For a checkpoint, between input row groups: every byte of the row
  // groups written so far is in the sink, and their footer (Parquet's
  // FileMetaData, opaque bytes) is returned. A writer opened on it
  // continues the file byte for byte as this one goes on
  // (columnar/parquet_segments.h).
  virtual std::string footer_so_far() = 0;
  virtual void close() = 0;
};

// How the module opens an input: a descriptor of `path` for reading,
// opened through src/fs (off 0, 1, 2), which the module then owns; throws
// gdedup::Error naming the file where it cannot be opened.
class FileOpener {
 public:
  virtual ~FileOpener() = default;
  virtual int open(const std::string& path) = 0;
};

// What the module gives: the three ways into Arrow's Parquet.
class ParquetLibrary {
 public:
  virtual ~ParquetLibrary() = default;
  // See parquet_file_rows below.
  virtual uint64_t file_rows(const std::string& path, uint64_t& bytes, FileOpener& opener) = 0;
  // See open_parquet_reader below.
  virtual std::unique_ptr<ParquetReader> open_reader(std::vector<std::string> paths,
                                                     std::vector<std::string> column,
                                                     const ReadOptions& options,
                                                     FileOpener& opener) = 0;
  // See open_parquet_writer below; `like` is a reader of this library.
  virtual std::unique_ptr<ParquetWriter> open_writer(const ParquetReader& like,
                                                     const WriteOptions& options, ByteSink& sink,
                                                     const ParquetContinuation* from) = 0;
};

// The module's one entry, `extern "C"`: its ParquetLibrary, which lives as
// long as the process. The name carries the interface's version, so that a
// module of another version is refused by name rather than called wrongly.
using ParquetEntry = ParquetLibrary* (*)();
inline constexpr const char* kParquetEntryName = "gdedup_parquet_library_v3";

// The engine's side (parquet_module.cpp): each loads the module on first
// use, and throws gdedup::Error (unsupported_format) naming the path tried
// and the loader's words where it cannot, or saying how to get a build with
// Parquet support where this one has none.

// The rows a Parquet file's footer says it holds, and the file's size in
// `bytes`. Throws gdedup::Error naming the file when it is not readable
// Parquet.
uint64_t parquet_file_rows(const std::string& path, uint64_t& bytes);

// Opening reads every file's footer and checks them: each is Parquet, has
// the column (`column`: the path of names from the top, ["url"] or
// ["meta", "url"]), of a type that can be keyed, and has the first file's
// schema. Throws gdedup::Error naming the file (and the other file, and the
// column) otherwise.
std::unique_ptr<ParquetReader> open_parquet_reader(std::vector<std::string> paths,
                                                   std::vector<std::string> column,
                                                   const ReadOptions& options);

// A Parquet file with the schema and key-value metadata of `like`'s files,
// their compression and row-group sizes unless `options` says otherwise,
// written to `sink`; or, given `from`, the file a checkpoint left,
// continued (throws gdedup::Error when its footer cannot be read or has
// another schema).
std::unique_ptr<ParquetWriter> open_parquet_writer(const ParquetReader& like,
                                                   const WriteOptions& options, ByteSink& sink,
                                                   const ParquetContinuation* from = nullptr);

}  // namespace gdedup::columnar
