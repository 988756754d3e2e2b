// Parquet files read a row group at a time and written back with the rows a
// job keeps, behind an interface without Arrow's types: Arrow's headers need
// C++20, and only this folder's sources include them (gdedup_parquet in
// CMakeLists.txt). A build without Arrow gets parquet_unavailable.cpp, whose
// every entry point says how to get a build that has it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gdedup::columnar {

// Whether this build reads and writes Parquet.
bool parquet_supported();

// The first bytes of a Parquet file (and its last four): "PAR1".
inline constexpr std::string_view kParquetMagic{"PAR1", 4};

// What a key column holds, which decides how its values become key bytes
// (docs/KEYS.md, "Parquet columns").
enum class ColumnKind {
  kText,    // string, large string: the UTF-8 bytes
  kBinary,  // binary, large binary, fixed-size binary: the bytes
  kInteger  // any integer width, signed or not: 8 bytes, little-endian
};

// The rows a Parquet file's footer says it holds, and the file's size in
// `bytes`. Throws gdedup::Error naming the file when it is not readable
// Parquet.
uint64_t parquet_file_rows(const std::string& path, uint64_t& bytes);

// One row group of one input: the key of each row, and the rows themselves
// for the writer (held opaque). Keys point into the row group's own memory
// and live as long as it does.
class RowGroup {
 public:
  struct Data;  // Arrow's table, in the sources that include Arrow
  RowGroup(std::unique_ptr<Data> data, std::vector<std::string_view> keys,
           std::vector<uint64_t> nulls);
  ~RowGroup();
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

// Where in the inputs a row group lies, for messages.
struct RowGroupPlace {
  size_t input = 0;       // index into the reader's paths
  uint64_t group = 0;     // row group of that file, from 0
  uint64_t first_row = 0; // its first row's number in that file, from 0
  // The file bytes of the inputs up to this row group's end, that file's
  // share taken by its rows (for progress and statistics).
  uint64_t bytes_through = 0;
};

// The files of a job read in order, a row group at a time, keyed by one
// column. Opening reads every file's footer and checks them: each is
// Parquet, has the column (a dotted path into struct columns), of a type
// that can be keyed, and has the first file's schema. Throws gdedup::Error
// naming the file (and the other file, and the column) otherwise.
class ParquetReader {
 public:
  // `column`: the path of names from the top (["url"], ["meta", "url"]).
  ParquetReader(std::vector<std::string> paths, std::vector<std::string> column);
  ~ParquetReader();
  ParquetReader(const ParquetReader&) = delete;
  ParquetReader& operator=(const ParquetReader&) = delete;

  ColumnKind key_kind() const;
  uint64_t total_rows() const;   // from the footers
  uint64_t total_bytes() const;  // the files' sizes
  const std::vector<std::string>& paths() const;
  // The next row group, with where it lies; null after the last one.
  // Throws gdedup::Error naming the file and row group for damaged data.
  std::unique_ptr<RowGroup> next(RowGroupPlace& place);

  struct State;

 private:
  std::unique_ptr<State> state_;
  friend class ParquetWriter;
};

// Bytes out, in order: the writer's only way to the disk.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const char* data, size_t size) = 0;
};

// A Parquet file with the schema and key-value metadata of `like`'s files,
// their compression and row-group sizes, written to `sink` a row group at a
// time. close() writes the footer; a writer destroyed unclosed leaves the
// sink without one (the job that failed removes its output).
class ParquetWriter {
 public:
  ParquetWriter(const ParquetReader& like, ByteSink& sink);
  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  // Writes the rows of `group` whose keep[i] is nonzero, in order, as one
  // row group (none when no row is kept).
  void write(const RowGroup& group, const uint8_t* keep);
  void close();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace gdedup::columnar
