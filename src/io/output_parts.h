// --output-parts DIR: a job's output as part files in a folder plus a
// manifest (docs/CLI.md, "Output in parts"). The manifest, DIR/MANIFEST,
// lists the parts in order; the output is their bytes concatenated, the
// same bytes `-o FILE` would hold. Where the parts are cut depends on the
// run (one process writes one part; the ranks of an MPI job one for each
// piece that kept a record, each written by its rank, so that no file is
// shared). The manifest is written last, by a replacement (a temporary
// file renamed over it): until then the folder's previous manifest, and
// the parts it lists, stand unchanged, since a run names its parts with a
// token of its own; after it, the previous run's parts are removed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gdedup/option_names.h"

namespace gdedup::io {

// One part as the manifest lists it.
struct OutputPart {
  std::string name;  // in the folder
  uint64_t bytes = 0;
  uint64_t checksum = 0;  // XXH3-64 of its bytes
  std::string host;       // the machine that wrote it (its folder may be its own)
};

// A name a manifest may list: "part-" and hex digits and dashes, so that
// removing the parts of a planted manifest can never reach another file.
bool part_like(const std::string& name);

// DIR/NAME.
std::string in_dir(const std::string& dir, const std::string& name);
// DIR/MANIFEST.
std::string parts_manifest(const std::string& dir);

// A token no other run shares, for part names: 16 hex digits.
std::string new_parts_run();

// "part-RUN-NNNNNN": part `index` of a run of at most `count` parts, the
// number zero-padded so that names sort in order.
std::string part_name(const std::string& run, uint64_t index, uint64_t count);

// Creates the folder when it does not exist (its parent must). Throws
// Error naming it when it cannot, or when it is not a folder (UsageError,
// naming the option as `names` does).
void prepare_parts_dir(const std::string& dir, const OptionNames& names);

// The parts DIR/MANIFEST lists now; none when there is no manifest. Throws
// Error naming the manifest when it cannot be read or is not one.
std::vector<std::string> listed_parts(const std::string& dir, const OptionNames& options);

// Writes DIR/MANIFEST listing `parts` in order, by a replacement. Throws
// Error naming the manifest on failure; the previous one then stands.
void write_parts_manifest(const std::string& dir, const std::vector<OutputPart>& parts);

// Removes each of the files `names` in DIR that `keep` does not list; a file
// already gone is no error, any other failure throws Error naming it.
void remove_parts(const std::string& dir, const std::vector<std::string>& names,
                  const std::vector<OutputPart>& keep);

// The XXH3-64 of the file at `path`, read once: for a part written whole by
// a writer that did not hash it.
uint64_t file_checksum(const std::string& path);

}  // namespace gdedup::io
