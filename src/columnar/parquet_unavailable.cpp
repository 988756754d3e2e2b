// parquet_table.h in a build without Arrow: Parquet input is recognised by
// its magic bytes everywhere, and refused here with what to do about it.
#include "columnar/parquet_table.h"
#include "gdedup/error.h"

namespace gdedup::columnar {
namespace {

[[noreturn]] void unavailable(const std::string& path) {
  throw Error(path + " is a Parquet file, but this build of gdedup has no Parquet support: "
                     "install pyarrow (scripts/install-python-deps.sh), whose Arrow and "
                     "Parquet libraries it builds against, then configure again with "
                     "-DGDEDUP_PARQUET=ON and rebuild.",
              ErrorKind::unsupported_format);
}

}  // namespace

struct RowGroup::Data {};
struct ParquetReader::State {};
struct ParquetWriter::State {};

bool parquet_supported() { return false; }

uint64_t parquet_file_rows(const std::string& path, uint64_t& bytes) {
  (void)bytes;
  unavailable(path);
}

RowGroup::RowGroup(std::unique_ptr<Data> data, std::vector<std::string_view> keys,
                   std::vector<uint64_t> nulls)
    : data_(std::move(data)), keys_(std::move(keys)), nulls_(std::move(nulls)) {}
RowGroup::~RowGroup() = default;

ParquetReader::ParquetReader(std::vector<std::string> paths, std::vector<std::string> column) {
  (void)column;
  unavailable(paths.empty() ? "the input" : paths.front());
}
ParquetReader::~ParquetReader() = default;
ColumnKind ParquetReader::key_kind() const { return ColumnKind::kText; }
uint64_t ParquetReader::total_rows() const { return 0; }
uint64_t ParquetReader::total_bytes() const { return 0; }
const std::vector<std::string>& ParquetReader::paths() const {
  static const std::vector<std::string> none;
  return none;
}
std::unique_ptr<RowGroup> ParquetReader::next(RowGroupPlace& place) {
  (void)place;
  return nullptr;
}

ParquetWriter::ParquetWriter(const ParquetReader& like, ByteSink& sink) {
  (void)like, (void)sink;
  unavailable("the input");
}
ParquetWriter::~ParquetWriter() = default;
void ParquetWriter::write(const RowGroup& group, const uint8_t* keep) { (void)group, (void)keep; }
void ParquetWriter::close() {}

}  // namespace gdedup::columnar
