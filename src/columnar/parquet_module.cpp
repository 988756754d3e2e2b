// The engine's side of parquet_table.h: the Parquet module
// (libgdedup_parquet.so) loaded the first time a job needs it, from beside
// the code that runs the engine (the command, or the Python package's
// extension module) or from the install's library folder relative to it.
// A build without Parquet support has no module, and says how to get one.
#include <cstring>
#include <mutex>

#include "columnar/parquet_table.h"
#include "fs/file_ops.h"
#include "fs/loaded_module.h"
#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::columnar {
namespace {

// Inputs opened through src/fs, as every other input is.
class FsOpener final : public FileOpener {
 public:
  int open(const std::string& path) override {
    fs::File file;
    if (const int err = fs::open_for_reading(path, file)) {
      throw Error("cannot open input " + path + ": " + std::strerror(err) + ".", ErrorKind::io);
    }
    return file.release();
  }
};

#ifdef GDEDUP_PARQUET_MODULE

// Where the module may be, in order: beside the code, then in the
// install's library folder (GDEDUP_PARQUET_LIBDIR: relative to the
// program's folder, as `cmake --install` lays them out).
std::vector<std::string> module_places() {
  static const int anchor = 0;
  const std::string folder = fs::folder_of_code(&anchor);
  if (folder.empty()) return {};
  return {folder + "/" GDEDUP_PARQUET_MODULE,
          folder + "/" GDEDUP_PARQUET_LIBDIR "/" GDEDUP_PARQUET_MODULE};
}

// The module's library, loaded once; throws naming `input`, the places
// tried and the loader's words where it cannot be.
ParquetLibrary& library(const std::string& input) {
  static std::mutex mutex;
  static ParquetLibrary* loaded = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (loaded) return *loaded;
  const std::vector<std::string> places = module_places();
  std::string tried;
  for (const std::string& place : places) {
    fs::FileStatus status;
    if (fs::status_of_path(place, status) != 0) {
      tried += (tried.empty() ? "" : " nor ") + place;
      continue;
    }
    std::string error;
    void* module = fs::load_module(place, error);
    void* entry = module ? fs::module_symbol(module, kParquetEntryName, error) : nullptr;
    if (!entry) {
      throw Error(input + " is a Parquet file, but gdedup's Parquet module " + place +
                      " cannot be loaded: " + error + ". It needs pyarrow's Arrow and Parquet "
                      "libraries of the version it was built with (scripts/"
                      "install-python-deps.sh installs them), and about 100 MB of address "
                      "space to map them.",
                  ErrorKind::unsupported_format);
    }
    loaded = reinterpret_cast<ParquetEntry>(entry)();
    return *loaded;
  }
  throw Error(input + " is a Parquet file, but gdedup's Parquet module was not found: there is "
                      "no " + (tried.empty() ? std::string(GDEDUP_PARQUET_MODULE) : tried) +
                  ". Build it beside the program (the target gdedup_parquet) or install gdedup "
                  "again, which puts it in the library folder.",
              ErrorKind::unsupported_format);
}

#else

[[noreturn]] ParquetLibrary& library(const std::string& input) {
  throw Error(input + " is a Parquet file, but this build of gdedup has no Parquet support: "
                      "install pyarrow (scripts/install-python-deps.sh), whose Arrow and "
                      "Parquet libraries it builds against, then configure again with "
                      "-DGDEDUP_PARQUET=ON and rebuild.",
              ErrorKind::unsupported_format);
}

#endif

}  // namespace

uint64_t parquet_file_rows(const std::string& path, uint64_t& bytes) {
  FsOpener opener;
  return library(path).file_rows(path, bytes, opener);
}

std::unique_ptr<ParquetReader> open_parquet_reader(std::vector<std::string> paths,
                                                   std::vector<std::string> column,
                                                   const ReadOptions& options) {
  ParquetLibrary& parquet = library(paths.empty() ? "the input" : paths.front());
  FsOpener opener;
  return parquet.open_reader(std::move(paths), std::move(column), options, opener);
}

std::unique_ptr<ParquetWriter> open_parquet_writer(const ParquetReader& like,
                                                   const WriteOptions& options, ByteSink& sink,
                                                   const ParquetContinuation* from) {
  return library(like.paths().empty() ? "the input" : like.paths().front())
      .open_writer(like, options, sink, from);
}

}  // namespace gdedup::columnar
