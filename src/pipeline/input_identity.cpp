// The sample: the first and last 64 KiB and 16 blocks of 4 KiB spread evenly
// in between, or the whole file when it is smaller than 256 KiB. Enough to
// catch a file rewritten in place with the same size and a restored
// modification time; the cost is a few dozen reads, whatever the size. The
// filter file a job saves to is noted the same way (mark_filter_file).
#include "pipeline/input_identity.h"

#include <cerrno>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::pipeline {
namespace {

constexpr uint64_t kEdge = 64 << 10;
constexpr uint64_t kBlock = 4 << 10;
constexpr uint64_t kSpread = 16;
constexpr uint64_t kWholeBelow = 256 << 10;

[[noreturn]] void cannot_read(const std::string& what, const std::string& path, int err) {
  throw Error("cannot read " + what + " " + path + " to identify it for the checkpoint: " +
                  fs::error_text(err),
              ErrorKind::io);
}

uint64_t sample_hash(int fd, const std::string& what, const std::string& path, uint64_t size) {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  std::vector<char> buffer(kEdge);
  auto add = [&](uint64_t offset, uint64_t length) {
    const int64_t got = fs::read_at(fd, buffer.data(), length, offset);
    if (got < 0) cannot_read(what, path, errno);
    XXH3_64bits_update(&state, buffer.data(), static_cast<size_t>(got));
  };
  if (size < kWholeBelow) {
    for (uint64_t at = 0; at < size; at += kEdge) add(at, std::min(kEdge, size - at));
  } else {
    add(0, kEdge);
    for (uint64_t i = 1; i <= kSpread; ++i) add(size / (kSpread + 1) * i, kBlock);
    add(size - kEdge, kEdge);
  }
  return XXH3_64bits_digest(&state);
}

// `what` names the file in messages: "input", "filter file".
InputIdentity identify(const std::string& what, const std::string& path) {
  InputIdentity id;
  id.path = path;
  if (path == "-") {
    id.regular = false;
    return id;
  }
  fs::File file;
  if (const int err = fs::open_for_reading(path, file)) {
    throw Error("cannot open " + what + " " + path + ": " + fs::error_text(err), ErrorKind::io);
  }
  fs::FileStatus status;
  if (const int err = fs::status_of(file.fd(), status)) cannot_read(what, path, err);
  if (!status.regular()) {
    id.regular = false;
    return id;
  }
  id.size = status.size;
  id.mtime_ns = status.mtime_ns;
  id.sample_hash = sample_hash(file.fd(), what, path, id.size);
  return id;
}

[[noreturn]] void input_changed(const std::string& path, size_t number, const std::string& what) {
  throw Error("cannot resume: input " + std::to_string(number) + " (" + path + ") has changed "
                  "since the checkpoint was written: " + what + "; a resumed run must read the "
                  "same inputs",
              ErrorKind::resume_mismatch);
}

}  // namespace

InputIdentity identify_input(const std::string& path) { return identify("input", path); }

void check_same_size(const InputIdentity& saved, uint64_t size, size_t number) {
  if (saved.regular && saved.size != size) {
    input_changed(saved.path, number, "its size was " + std::to_string(saved.size) +
                                          " bytes and is now " + std::to_string(size));
  }
}

void check_same_input(const InputIdentity& saved, const InputIdentity& now, size_t number) {
  if (saved.path != now.path) {
    input_changed(now.path, number,
                  "the checkpoint was taken on " + saved.path + ", this run reads " + now.path);
  }
  if (saved.regular != now.regular) {
    input_changed(now.path, number, saved.regular ? "it was a regular file and is now a stream"
                                                  : "it was a stream and is now a regular file");
  }
  if (!now.regular) return;
  check_same_size(saved, now.size, number);
  if (saved.mtime_ns != now.mtime_ns) {
    input_changed(now.path, number, "its modification time is not the one recorded");
  }
  if (saved.sample_hash != now.sample_hash) {
    input_changed(now.path, number, "its content differs from the recorded sample although "
                                    "size and modification time are the same");
  }
}

}  // namespace gdedup::pipeline

namespace gdedup {

FilterFileMark mark_filter_file(const std::string& path) {
  FilterFileMark mark;
  mark.recorded = true;
  if (path.empty()) return mark;
  // stat first: opening a named pipe would wait for a writer.
  fs::FileStatus status;
  if (const int err = fs::status_of_path(path, status)) {
    if (err == ENOENT || err == ENOTDIR) return mark;
    pipeline::cannot_read("filter file", path, err);
  }
  mark.existed = true;
  if (status.regular()) {
    mark.file = pipeline::identify("filter file", path);
  } else {
    mark.file.path = path;
    mark.file.regular = false;
  }
  return mark;
}

std::string filter_file_change(const FilterFileMark& then, const FilterFileMark& now) {
  if (!then.recorded) return "";
  if (then.existed != now.existed) {
    return now.existed ? "it was created (the job started without one)" : "it was removed";
  }
  if (!now.existed) return "";
  const InputIdentity& a = then.file;
  const InputIdentity& b = now.file;
  if (a.regular != b.regular) return "it was replaced by something that is not a regular file";
  if (!b.regular) return "";
  const std::string again = "it was saved again or replaced (";
  if (a.size != b.size) {
    return again + "its size was " + std::to_string(a.size) + " bytes and is now " +
           std::to_string(b.size) + ")";
  }
  if (a.mtime_ns != b.mtime_ns) return again + "its modification time is not the one noted)";
  if (a.sample_hash != b.sample_hash) {
    return again + "its content differs from the noted sample, though size and modification "
                   "time are the same)";
  }
  return "";
}

}  // namespace gdedup
