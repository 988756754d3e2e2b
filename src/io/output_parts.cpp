#include "io/output_parts.h"

#include <algorithm>
#include <cerrno>
#include <random>
#include <sstream>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "fs/replacement.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::io {
namespace {

constexpr const char* kManifestLine = "gdedup output parts 1";

}  // namespace

// A name a manifest may list: "part-" and hex digits and dashes, so that
// removing the parts of a planted manifest can never reach another file.
bool part_like(const std::string& name) {
  if (name.size() <= 5 || name.compare(0, 5, "part-") != 0) return false;
  for (char c : name) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string in_dir(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string parts_manifest(const std::string& dir) { return in_dir(dir, "MANIFEST"); }

std::string new_parts_run() {
  std::random_device device;
  const uint64_t token = (static_cast<uint64_t>(device()) << 32) ^ device();
  return hex64(token).substr(2);
}

std::string part_name(const std::string& run, uint64_t index, uint64_t count) {
  std::string digits = std::to_string(index);
  const size_t width = std::max<size_t>(6, std::to_string(count > 0 ? count - 1 : 0).size());
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return "part-" + run + "-" + digits;
}

void prepare_parts_dir(const std::string& dir, const OptionNames& names) {
  const std::string option = names.name(JobOption::kOutputParts);
  fs::FileStatus status;
  int err = fs::status_of_path(dir, status);
  if (err == 0 && !status.directory()) {
    throw UsageError(option + " " + dir + " is not a folder; give a folder (created if "
                     "missing) for the output's parts and manifest");
  }
  if (err == ENOENT) err = fs::make_folder(dir);
  if (err != 0) {
    throw Error("cannot create the folder " + dir + " for " + option + ": " +
                    fs::error_text(err),
                ErrorKind::io);
  }
}

std::vector<std::string> listed_parts(const std::string& dir, const OptionNames& options) {
  const std::string another = "; move it away, or give " + options.name(JobOption::kOutputParts) +
                              " another folder";
  const std::string path = parts_manifest(dir);
  fs::File file;
  const int err = fs::open_for_reading(path, file);
  if (err == ENOENT) return {};
  if (err != 0) {
    throw Error("cannot read the manifest " + path + ": " + fs::error_text(err), ErrorKind::io);
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const long got = fs::read_some(file.fd(), buffer, sizeof buffer);
    if (got < 0) {
      throw Error("cannot read the manifest " + path + ": " + fs::error_text(errno),
                  ErrorKind::io);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<size_t>(got));
  }
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> names;
  if (!std::getline(lines, line) || line != kManifestLine) {
    throw Error(path + " is not a manifest of gdedup output parts (its first line is not \"" +
                    std::string(kManifestLine) + "\")" + another,
                ErrorKind::damaged);
  }
  while (std::getline(lines, line)) {
    const std::string name = line.substr(0, line.find('\t'));
    if (!part_like(name)) {
      throw Error(path + " lists \"" + name + "\", which is not a part's name" + another,
                  ErrorKind::damaged);
    }
    names.push_back(name);
  }
  return names;
}

void write_parts_manifest(const std::string& dir, const std::vector<OutputPart>& parts) {
  std::string text = std::string(kManifestLine) + "\n";
  for (const OutputPart& part : parts) {
    text += part.name + "\t" + std::to_string(part.bytes) + "\t" + hex64(part.checksum) + "\t" +
            part.host + "\n";
  }
  const std::string path = parts_manifest(dir);
  fs::Replacement file(path, "cannot write the manifest " + path);
  file.write(text.data(), text.size());
  file.commit();
}

void remove_parts(const std::string& dir, const std::vector<std::string>& names,
                  const std::vector<OutputPart>& keep) {
  for (const std::string& name : names) {
    bool kept = false;
    for (const OutputPart& part : keep) kept = kept || part.name == name;
    if (kept || !part_like(name)) continue;
    const std::string path = in_dir(dir, name);
    const int err = fs::unlink_file(path);
    if (err != 0 && err != ENOENT) {
      throw Error("cannot remove " + path + ", a part of the folder's previous output: " +
                      fs::error_text(err),
                  ErrorKind::io);
    }
  }
}

uint64_t file_checksum(const std::string& path) {
  fs::File file;
  const int err = fs::open_for_reading(path, file);
  if (err != 0) throw Error("cannot read " + path + ": " + fs::error_text(err), ErrorKind::io);
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  std::vector<char> buffer(size_t{1} << 20);
  for (;;) {
    const long got = fs::read_some(file.fd(), buffer.data(), buffer.size());
    if (got < 0) throw Error("cannot read " + path + ": " + fs::error_text(errno), ErrorKind::io);
    if (got == 0) break;
    XXH3_64bits_update(&state, buffer.data(), static_cast<size_t>(got));
  }
  return XXH3_64bits_digest(&state);
}

}  // namespace gdedup::io
