// The reader of parquet_table.h: each file's footer read and checked when
// the reader opens, row groups decoded in slices by Arrow's record-batch
// reader on its thread pool (a slice's columns at once) when asked for.
#include <arrow/io/file.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/writer.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <limits>

#include "columnar/parquet_arrow.h"
#include "gdedup/error.h"

namespace gdedup::columnar {
namespace {

// Each column's read buffer (ReaderProperties::buffer_size).
constexpr int64_t kReadBuffer = int64_t{1} << 20;

}  // namespace

void throw_status(const std::string& where, const std::string& what,
                  const arrow::Status& status) {
  const ErrorKind kind = status.IsIOError() ? ErrorKind::io
                         : status.IsOutOfMemory() ? ErrorKind::out_of_memory
                                                  : ErrorKind::damaged;
  throw Error(where + ": " + what + " (" + status.message() + ").", kind);
}

namespace {

std::string column_text(const std::vector<std::string>& column) {
  std::string text;
  for (const std::string& name : column) text += (text.empty() ? "" : ".") + name;
  return text;
}

// The field index at each level of `column` in `schema`; throws naming the
// file when a name is missing or a level above the last is not a struct.
std::vector<int> key_path(const arrow::Schema& schema, const std::vector<std::string>& column,
                          const std::string& path) {
  std::vector<int> indices;
  const arrow::FieldVector* fields = &schema.fields();
  std::shared_ptr<arrow::DataType> type;
  for (size_t level = 0; level < column.size(); ++level) {
    int found = -1;
    for (size_t i = 0; i < fields->size(); ++i) {
      if ((*fields)[i]->name() != column[level]) continue;
      if (found >= 0) {
        throw Error(path + ": the key column " + column_text(column) + " is ambiguous: " +
                        "the file has two fields named " + column[level] + ".",
                    ErrorKind::invalid_argument);
      }
      found = static_cast<int>(i);
    }
    if (found < 0) {
      std::string names;
      for (const auto& f : *fields) names += (names.empty() ? "" : ", ") + f->name();
      throw Error(path + ": has no column " +
                      column_text({column.begin(), column.begin() + level + 1}) +
                      " for the key column:" + column_text(column) + " (its columns there: " +
                      names + ").",
                  ErrorKind::invalid_argument);
    }
    indices.push_back(found);
    type = (*fields)[found]->type();
    if (level + 1 < column.size()) {
      if (type->id() != arrow::Type::STRUCT) {
        throw Error(path + ": the column " +
                        column_text({column.begin(), column.begin() + level + 1}) + " is " +
                        type->ToString() + ", not a struct, so it has no field " +
                        column[level + 1] + ".",
                    ErrorKind::invalid_argument);
      }
      fields = &type->fields();
    }
  }
  return indices;
}

// The first column where `other` differs from `first`, in a sentence that
// names both files.
std::string schema_difference(const arrow::Schema& first, const std::string& first_path,
                              const arrow::Schema& other, const std::string& other_path) {
  for (int i = 0; i < std::max(first.num_fields(), other.num_fields()); ++i) {
    if (i >= first.num_fields()) {
      return other_path + " has a column " + other.field(i)->name() + " that " + first_path +
             " has not";
    }
    if (i >= other.num_fields()) {
      return other_path + " has no column " + first.field(i)->name() + ", which " +
             first_path + " has";
    }
    const arrow::Field& a = *first.field(i);
    const arrow::Field& b = *other.field(i);
    if (a.name() != b.name()) {
      return "column " + std::to_string(i + 1) + " is " + b.name() + " in " + other_path +
             " but " + a.name() + " in " + first_path;
    }
    if (!a.Equals(b, /*check_metadata=*/false)) {
      return "the column " + a.name() + " is " + b.ToString() + " in " + other_path + " but " +
             a.ToString() + " in " + first_path;
    }
  }
  return "their schemas differ in their fields' metadata";
}

ColumnKind kind_of(const arrow::DataType& type, const std::vector<std::string>& column,
                   const std::string& path) {
  switch (type.id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::STRING_VIEW:
      return ColumnKind::kText;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY:
      return ColumnKind::kBinary;
    case arrow::Type::INT8: case arrow::Type::INT16: case arrow::Type::INT32:
    case arrow::Type::INT64: case arrow::Type::UINT8: case arrow::Type::UINT16:
    case arrow::Type::UINT32: case arrow::Type::UINT64:
      return ColumnKind::kInteger;
    case arrow::Type::DICTIONARY:
      // Keyed by its values, as the same data unencoded is.
      return kind_of(*static_cast<const arrow::DictionaryType&>(type).value_type(), column,
                     path);
    default:
      throw Error(path + ": the key column " + column_text(column) + " is " + type.ToString() +
                      ", which cannot be a key: a key column holds strings, binary values "
                      "or integers (or a dictionary of them).",
                  ErrorKind::invalid_argument);
  }
}

std::unique_ptr<parquet::arrow::FileReader> open_file(const std::string& path, uint64_t& bytes,
                                                      const ReadOptions& options,
                                                      FileOpener& opener) {
  // Arrow's file takes the descriptor, opened through the engine's src/fs.
  const int fd = opener.open(path);
  auto opened = arrow::io::ReadableFile::Open(fd);
  if (!opened.ok()) throw_status(path, "cannot be read", opened.status());
  std::shared_ptr<arrow::io::ReadableFile> readable = *opened;
  auto size = readable->GetSize();
  if (!size.ok()) throw_status(path, "cannot be read", size.status());
  bytes = static_cast<uint64_t>(*size);
  // A slice's columns decode at once on Arrow's thread pool. Pages are read
  // through a buffer of kReadBuffer bytes each column, not pre-buffered:
  // pre-buffering reads a row group's column chunks whole, which for a
  // huge row group is unbounded.
  parquet::ArrowReaderProperties arrow_properties;
  arrow_properties.set_use_threads(true);
  arrow_properties.set_pre_buffer(false);
  arrow_properties.set_batch_size(static_cast<int64_t>(
      std::min<uint64_t>(options.slice_rows, std::numeric_limits<int64_t>::max())));
  parquet::ReaderProperties properties(rows_pool());
  properties.enable_buffered_stream();
  properties.set_buffer_size(kReadBuffer);
  parquet::arrow::FileReaderBuilder builder;
  try {
    const arrow::Status status = builder.Open(readable, properties);
    if (!status.ok()) throw_status(path, "is not a readable Parquet file", status);
  } catch (const parquet::ParquetException& e) {
    throw Error(path + ": is not a readable Parquet file (" + e.what() + ").",
                ErrorKind::damaged);
  }
  auto reader = builder.memory_pool(rows_pool())->properties(arrow_properties)->Build();
  if (!reader.ok()) throw_status(path, "is not a readable Parquet file", reader.status());
  return std::move(*reader);
}

// Flattens a chunk of the key's top column down the struct path, its
// parents' nulls included.
std::shared_ptr<arrow::Array> key_array(std::shared_ptr<arrow::Array> array,
                                        const std::vector<int>& path, const std::string& where) {
  for (size_t level = 1; level < path.size(); ++level) {
    auto field = static_cast<const arrow::StructArray&>(*array).GetFlattenedField(path[level]);
    if (!field.ok()) throw_status(where, "cannot read the key column", field.status());
    array = *field;
  }
  return array;
}

template <typename ArrayType>
void add_view_keys(const arrow::Array& array, std::vector<std::string_view>& keys) {
  const auto& typed = static_cast<const ArrayType&>(array);
  for (int64_t i = 0; i < typed.length(); ++i) {
    const auto view = typed.GetView(i);
    keys.emplace_back(reinterpret_cast<const char*>(view.data()), view.size());
  }
}

template <typename ArrayType>
void add_integer_keys(const arrow::Array& array, char* out) {
  const auto& typed = static_cast<const ArrayType&>(array);
  for (int64_t i = 0; i < typed.length(); ++i, out += 8) {
    // Signed values sign-extended, unsigned zero-extended, then little-endian.
    using Value = typename ArrayType::value_type;
    const uint64_t wide = std::is_signed_v<Value>
                              ? static_cast<uint64_t>(static_cast<int64_t>(typed.Value(i)))
                              : static_cast<uint64_t>(typed.Value(i));
    for (int b = 0; b < 8; ++b) out[b] = static_cast<char>(wide >> (8 * b));
  }
}

// The key of each of `array`'s values (not a dictionary), appended to
// `keys`; an integer's 8 bytes are written at `integers`, 8 a value.
void add_value_keys(const arrow::Array& array, char* integers,
                    std::vector<std::string_view>& keys) {
  switch (array.type_id()) {
    case arrow::Type::STRING: return add_view_keys<arrow::StringArray>(array, keys);
    case arrow::Type::LARGE_STRING: return add_view_keys<arrow::LargeStringArray>(array, keys);
    case arrow::Type::BINARY: return add_view_keys<arrow::BinaryArray>(array, keys);
    case arrow::Type::LARGE_BINARY: return add_view_keys<arrow::LargeBinaryArray>(array, keys);
    case arrow::Type::STRING_VIEW: return add_view_keys<arrow::StringViewArray>(array, keys);
    case arrow::Type::BINARY_VIEW: return add_view_keys<arrow::BinaryViewArray>(array, keys);
    case arrow::Type::FIXED_SIZE_BINARY:
      return add_view_keys<arrow::FixedSizeBinaryArray>(array, keys);
    default: break;
  }
  switch (array.type_id()) {
    case arrow::Type::INT8: add_integer_keys<arrow::Int8Array>(array, integers); break;
    case arrow::Type::INT16: add_integer_keys<arrow::Int16Array>(array, integers); break;
    case arrow::Type::INT32: add_integer_keys<arrow::Int32Array>(array, integers); break;
    case arrow::Type::INT64: add_integer_keys<arrow::Int64Array>(array, integers); break;
    case arrow::Type::UINT8: add_integer_keys<arrow::UInt8Array>(array, integers); break;
    case arrow::Type::UINT16: add_integer_keys<arrow::UInt16Array>(array, integers); break;
    case arrow::Type::UINT32: add_integer_keys<arrow::UInt32Array>(array, integers); break;
    case arrow::Type::UINT64: add_integer_keys<arrow::UInt64Array>(array, integers); break;
    default: break;  // kind_of() refused every other type at open
  }
  for (int64_t i = 0; i < array.length(); ++i) keys.emplace_back(integers + i * 8, 8);
}

// The key of each row of the key column `array` into `keys`, and the rows
// without one (null, or a dictionary's null value) into `nulls`. A
// dictionary-encoded column's rows are keyed by their values, as the same
// values unencoded are.
void add_keys(const arrow::Array& array, ArrowRows& data, std::vector<std::string_view>& keys,
              std::vector<uint64_t>& nulls, ColumnKind kind) {
  const size_t rows = static_cast<size_t>(array.length());
  if (array.type_id() != arrow::Type::DICTIONARY) {
    if (kind == ColumnKind::kInteger) data.key_bytes.resize(rows * 8);
    add_value_keys(array, data.key_bytes.data(), keys);
    if (array.null_count() == 0) return;
    for (size_t i = 0; i < rows; ++i) {
      if (array.IsNull(static_cast<int64_t>(i))) nulls.push_back(i);
    }
    return;
  }
  const auto& encoded = static_cast<const arrow::DictionaryArray&>(array);
  const arrow::Array& values = *encoded.dictionary();
  if (kind == ColumnKind::kInteger) {
    data.key_bytes.resize(static_cast<size_t>(values.length()) * 8);
  }
  std::vector<std::string_view> value_keys;
  value_keys.reserve(static_cast<size_t>(values.length()));
  add_value_keys(values, data.key_bytes.data(), value_keys);
  for (size_t i = 0; i < rows; ++i) {
    const int64_t row = static_cast<int64_t>(i);
    const int64_t value = encoded.IsNull(row) ? -1 : encoded.GetValueIndex(row);
    if (value < 0 || value >= values.length() || values.IsNull(value)) {
      // An index past the dictionary is damage Arrow's reader lets through
      // only if the file lies; its row has no key either way.
      nulls.push_back(i);
      keys.emplace_back();
      continue;
    }
    keys.push_back(value_keys[static_cast<size_t>(value)]);
  }
}

}  // namespace

uint64_t arrow_file_rows(const std::string& path, uint64_t& bytes, FileOpener& opener) {
  return static_cast<uint64_t>(
      open_file(path, bytes, ReadOptions{}, opener)->parquet_reader()->metadata()->num_rows());
}

ArrowReader::ArrowReader(std::vector<std::string> paths, std::vector<std::string> column,
                         const ReadOptions& options, FileOpener& opener)
    : paths_(std::move(paths)), column_(std::move(column)) {
  for (size_t i = 0; i < paths_.size(); ++i) {
    const std::string& path = paths_[i];
    uint64_t bytes = 0;
    Input input{open_file(path, bytes, options, opener), 0, bytes};
    total_bytes_ += bytes;
    std::shared_ptr<arrow::Schema> schema;
    const arrow::Status status = input.reader->GetSchema(&schema);
    if (!status.ok()) throw_status(path, "has a schema Arrow cannot read", status);
    const parquet::FileMetaData& meta = *input.reader->parquet_reader()->metadata();
    input.rows = static_cast<uint64_t>(meta.num_rows());
    total_rows_ += input.rows;
    if (i == 0) {
      schema_ = schema;
      key_path_ = key_path(*schema, column_, path);
      std::shared_ptr<arrow::DataType> type = schema->field(key_path_[0])->type();
      for (size_t level = 1; level < key_path_.size(); ++level) {
        type = type->field(key_path_[level])->type();
      }
      kind_ = kind_of(*type, column_, path);
      key_type_ = type;
      for (int g = 0; g < meta.num_row_groups(); ++g) {
        row_group_rows_ = std::max<int64_t>(row_group_rows_, meta.RowGroup(g)->num_rows());
      }
      if (meta.num_row_groups() > 0 && meta.num_columns() > 0) {
        compression_ = meta.RowGroup(0)->ColumnChunk(0)->compression();
      }
    } else if (!schema->Equals(*schema_, /*check_metadata=*/false)) {
      throw Error(path + ": its schema differs from that of " + paths_[0] +
                      ", the job's first input, so their rows cannot go to one output: " +
                      schema_difference(*schema_, paths_[0], *schema, path) + ".",
                  ErrorKind::invalid_argument);
    }
    inputs_.push_back(std::move(input));
  }
}

uint64_t ArrowReader::row_groups(size_t input) const {
  return static_cast<uint64_t>(inputs_.at(input).reader->num_row_groups());
}

uint64_t ArrowReader::bytes_to(uint64_t row) const {
  const Input& input = inputs_[input_];
  if (input.rows == 0) return bytes_before_ + input.bytes;
  return bytes_before_ + static_cast<uint64_t>(static_cast<double>(input.bytes) *
                                               static_cast<double>(row) /
                                               static_cast<double>(input.rows));
}

void ArrowReader::pack(const RowGroup& group, const uint8_t* keep, std::string& out) const {
  out.clear();
  // Slices come from this reader: the only kind there is.
  auto table = arrow::Table::FromRecordBatches(
      {kept_rows(static_cast<const ArrowRows&>(group.data()).rows, keep)});
  if (!table.ok()) throw_status("the kept rows", "cannot be packed", table.status());
  if ((*table)->num_rows() == 0) return;
  // A view column's slices each point into the row group's whole buffers,
  // which IPC would write whole for every slice: it travels in the type
  // with offsets instead, each slice's values alone, its chunks kept.
  const std::shared_ptr<arrow::Table> sent =
      cast_table(*table, *without_views(*(*table)->schema()));
  auto sink = arrow::io::BufferOutputStream::Create();
  if (!sink.ok()) throw_status("the kept rows", "cannot be packed", sink.status());
  auto writer = arrow::ipc::MakeStreamWriter(*sink, sent->schema());
  if (!writer.ok()) throw_status("the kept rows", "cannot be packed", writer.status());
  arrow::Status status = (*writer)->WriteTable(*sent);
  if (status.ok()) status = (*writer)->Close();
  if (!status.ok()) throw_status("the kept rows", "cannot be packed", status);
  auto bytes = (*sink)->Finish();
  if (!bytes.ok()) throw_status("the kept rows", "cannot be packed", bytes.status());
  out.assign(reinterpret_cast<const char*>((*bytes)->data()),
             static_cast<size_t>((*bytes)->size()));
}

bool ArrowReader::open_group() {
  for (;; ++group_, first_row_ += group_rows_) {
    group_rows_ = 0;
    while (input_ < inputs_.size() && group_ >= inputs_[input_].reader->num_row_groups()) {
      bytes_before_ += inputs_[input_].bytes;
      ++input_;
      group_ = 0;
      first_row_ = 0;
    }
    if (input_ == inputs_.size()) return false;
    parquet::arrow::FileReader& reader = *inputs_[input_].reader;
    const parquet::FileMetaData& meta = *reader.parquet_reader()->metadata();
    group_rows_ = static_cast<uint64_t>(meta.RowGroup(group_)->num_rows());
    if (group_rows_ == 0) continue;
    const std::string where = paths_[input_] + ": row group " + std::to_string(group_ + 1);
    slices_ = open_slices(where);
    group_read_ = 0;
    return true;
  }
}

std::shared_ptr<arrow::RecordBatch> ArrowReader::read_slice(const std::string& where) {
  std::shared_ptr<arrow::RecordBatch> slice;
  do {
    try {
      const arrow::Status status = slices_->ReadNext(&slice);
      if (!status.ok()) throw_status(where, "cannot be decoded", status);
    } catch (const parquet::ParquetException& e) {
      throw Error(where + ": cannot be decoded (" + e.what() + ").", ErrorKind::damaged);
    }
  } while (slice && slice->num_rows() == 0);
  const uint64_t rows = slice ? static_cast<uint64_t>(slice->num_rows()) : 0;
  if ((!slice && group_read_ != group_rows_) || group_read_ + rows > group_rows_) {
    throw Error(where + ": cannot be decoded: its pages hold " +
                    std::to_string(group_read_ + rows) + (slice ? " rows or more" : " rows") +
                    ", but the file's footer says " + std::to_string(group_rows_) + ".",
                ErrorKind::damaged);
  }
  return slice;
}

std::unique_ptr<RowGroup> ArrowReader::next(RowGroupPlace& place) {
  if (!slices_ && !open_group()) return nullptr;
  const std::string where = paths_[input_] + ": row group " + std::to_string(group_ + 1);
  auto data = std::make_unique<ArrowRows>();
  data->rows = read_slice(where);  // not null: the row group has rows left
  const size_t rows = static_cast<size_t>(data->rows->num_rows());
  place = RowGroupPlace{input_, static_cast<uint64_t>(group_), first_row_};
  std::vector<std::string_view> keys;
  std::vector<uint64_t> nulls;
  keys.reserve(rows);
  const std::shared_ptr<arrow::Array> array =
      key_array(data->rows->column(read_key_path()[0]), read_key_path(), where);
  add_keys(*array, *data, keys, nulls, kind_);
  const uint64_t bytes_from = bytes_to(first_row_);
  first_row_ += rows;
  place.bytes_through = bytes_to(first_row_);
  place.bytes = place.bytes_through - bytes_from;
  group_read_ += rows;
  place.ends_group = group_read_ == group_rows_;
  if (place.ends_group) {
    // The reader is done: its row group's buffers go now.
    slices_.reset();
    ++group_;
  }
  return std::make_unique<RowGroup>(std::move(data), std::move(keys), std::move(nulls));
}

void ArrowReader::seek(size_t input, uint64_t group) {
  const uint64_t groups = input < inputs_.size()
                              ? static_cast<uint64_t>(inputs_[input].reader->num_row_groups())
                              : 0;
  if (input >= inputs_.size() || group > groups) {
    const std::string which = input < paths_.size() ? paths_[input] : "the job has no such input";
    throw Error("the inputs are not those the checkpoint was taken on: it resumes at row group " +
                    std::to_string(group + 1) + " of input " + std::to_string(input + 1) + " (" +
                    which + "), which has " + std::to_string(groups) + " row groups.",
                ErrorKind::invalid_argument);
  }
  bytes_before_ = 0;
  for (size_t i = 0; i < input; ++i) bytes_before_ += inputs_[i].bytes;
  input_ = input;
  group_ = static_cast<int>(group);
  slices_.reset();
  group_read_ = 0;
  first_row_ = 0;
  const auto metadata = inputs_[input].reader->parquet_reader()->metadata();
  for (int g = 0; g < group_; ++g) {
    first_row_ += static_cast<uint64_t>(metadata->RowGroup(g)->num_rows());
  }
}

}  // namespace gdedup::columnar
