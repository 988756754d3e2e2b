// Filter files: a 4096-byte header, then the bit array (docs/FORMAT.md,
// "Filter file"). Reading and writing are those of every gdedup file
// (file_reader.h, file_writer.h); this file says what a filter file is.
#include "gdedup/filter_file.h"

#include <sys/types.h>

#include "format/file_reader.h"
#include "format/file_writer.h"
#include "format/filter_file_format.h"
#include "gdedup/error.h"

namespace gdedup {

// The bit array is copied between memory and the file as it lies in memory;
// the format stores it little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "filter files store the bit array little-endian; a big-endian "
              "host would need to swap its words on save and load");
static_assert(sizeof(off_t) == 8, "filter files need 64-bit file offsets");

namespace {

using namespace filter_file;

format::FileKind filter_kind() {
  format::FileKind k;
  k.name = "filter file";
  k.magic = kMagic;
  k.version = kVersion;
  k.reserved_from = kOffReserved;
  k.other_name = "checkpoint";
  k.other_magic = kCheckpointMagic;
  k.other_error = ErrorKind::is_checkpoint;
  k.version_advice = "use the gdedup release that wrote it (or restore the file if its header "
                     "is damaged)";
  k.damage_advice = "; rebuild the filter or restore the file from a copy";
  return k;
}

// Opens `path` and verifies everything but the bit array, allocating nothing
// that the header's numbers decide.
void open_whole(const format::FileKind& kind, const std::string& path,
                   format::VerifiedFile& file) {
  format::open_verified(kind, path, file);
  format::check_length(kind, file, 0, "");
}

}  // namespace

void save_filter(const Filter& filter, const std::string& path) {
  format::write_file(path, "cannot save filter to " + path,
                     {kMagic, kVersion, filter.words(), filter.params(), filter.counters(), "",
                      {}});
}

FilterFileInfo read_filter_info(const std::string& path) {
  format::VerifiedFile file;
  open_whole(filter_kind(), path, file);
  return {file.fields.params, file.fields.counters, kVersion};
}

Filter load_filter(const std::string& path) {
  const format::FileKind kind = filter_kind();
  format::VerifiedFile file;
  open_whole(kind, path, file);
  Filter filter = [&] {
    try {
      return Filter(file.fields.params);
    } catch (const Error& e) {  // out of memory: say which file needed it
      throw Error("cannot load filter file " + path + ": " + e.what(), e);
    }
  }();
  format::read_payload(kind, file, filter.words());
  filter.counters() = file.fields.counters;
  return filter;
}

}  // namespace gdedup
