#include "io/mapped_bytes.h"

#include "fs/memory.h"
#include "gdedup/frontend/paths.h"
#include "io/input_changed.h"

namespace gdedup::io {

namespace {
// Pages are given back in steps of this many bytes at least: one madvise(2)
// a step, not one a batch.
constexpr uint64_t kDropStep = uint64_t{32} << 20;
}  // namespace

std::shared_ptr<MappedBytes> MappedBytes::map(int fd, uint64_t offset, uint64_t size) {
  const uint64_t lead = offset % fs::page_size();
  const uint64_t region_bytes = lead + size;
  const void* region = fs::map_file_read_only(fd, static_cast<size_t>(region_bytes), offset - lead);
  if (region == nullptr) return nullptr;
  std::shared_ptr<MappedBytes> mapped(
      new MappedBytes(static_cast<const char*>(region), region_bytes, lead, offset + size));
  if (!mapped->guard_.taken()) return nullptr;
  return mapped;
}

MappedBytes::MappedBytes(const char* region, uint64_t region_bytes, uint64_t lead,
                         uint64_t file_end)
    : region_(region),
      region_bytes_(region_bytes),
      data_(region + lead),
      size_(region_bytes - lead),
      file_end_(file_end),
      guard_(region, static_cast<size_t>(region_bytes)) {}

MappedBytes::~MappedBytes() {
  fs::unmap(const_cast<char*>(region_), static_cast<size_t>(region_bytes_));
}

void MappedBytes::done_before(const char* p) {
  const uint64_t page = fs::page_size();
  const uint64_t upto = static_cast<uint64_t>(p - region_) / page * page;
  uint64_t dropped = dropped_.load(std::memory_order_relaxed);
  while (upto >= dropped + kDropStep) {
    if (dropped_.compare_exchange_weak(dropped, upto, std::memory_order_relaxed)) {
      fs::drop_mapped_pages(region_ + dropped, static_cast<size_t>(upto - dropped));
      return;
    }
  }
}

Error unreadable_mapping_error(const std::string& name, uint64_t offset) {
  return Error("cannot read input " + name + " before byte offset " + std::to_string(offset) +
                   ": part of it could not be read through its mapping, though its size and "
                   "modification time are as when it was opened (a failing device, or a file "
                   "cut short and written back meanwhile).",
               ErrorKind::io);
}

Error cut_while_used_error(const std::string& name, const MappedBytes& mapped) {
  fs::FileStatus status;
  const uint64_t now = fs::status_of_path(name, status) == 0 ? status.size : 0;
  return input_changed_error(name, mapped.file_end(), now,
                             "after its records were read and before they were all used (they "
                             "read as zeros since, so none of them is kept)");
}

}  // namespace gdedup::io
