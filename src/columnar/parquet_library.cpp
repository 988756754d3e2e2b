// The Parquet module's entry (parquet_table.h, kParquetEntryName): the one
// symbol libgdedup_parquet.so shows, the rest of it hidden.
#include "columnar/parquet_arrow.h"

namespace gdedup::columnar {
namespace {

class ArrowLibrary final : public ParquetLibrary {
 public:
  uint64_t file_rows(const std::string& path, uint64_t& bytes, FileOpener& opener) override {
    return arrow_file_rows(path, bytes, opener);
  }
  std::unique_ptr<ParquetReader> open_reader(std::vector<std::string> paths,
                                             std::vector<std::string> column,
                                             const ReadOptions& options,
                                             FileOpener& opener) override {
    return std::make_unique<ArrowReader>(std::move(paths), std::move(column), options, opener);
  }
  // The engine hands back a reader this library made: the only kind there is.
  std::unique_ptr<ParquetWriter> open_writer(const ParquetReader& like,
                                             const WriteOptions& options, ByteSink& sink,
                                             const ParquetContinuation* from) override {
    return open_arrow_writer(static_cast<const ArrowReader&>(like), options, sink, from);
  }
};

}  // namespace
}  // namespace gdedup::columnar

extern "C" __attribute__((visibility("default"))) gdedup::columnar::ParquetLibrary*
gdedup_parquet_library_v3() {
  static gdedup::columnar::ArrowLibrary library;
  return &library;
}
