// The checkpoint loader on hostile files.
//
// Input: one mode byte, then the file (a filter file header with the
// checkpoint magic, the bit array, the resume state, the growth section and
// the later layers' section). Mode 0 loads the bytes as they are. Mode 1
// recomputes the header checksum; mode 2 also the bit array, state and
// growth checksums over the ranges the header names; mode 3 first sets the
// state length to whatever follows the bit array and the growth's to 0. So
// mutations reach the field checks and the state and growth decoders.
//
// Properties: load_checkpoint either returns or throws gdedup::Error naming
// the file (anything else, a crash or a huge allocation is a finding); a
// loaded checkpoint saves to a file that loads to the same state and saves
// back to the same bytes (the first save may differ from the input only in
// spelling the key options canonically); read_checkpoint_state agrees with
// load_checkpoint, also about the layers.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fuzz_util.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "format/checkpoint_format.h"

namespace {

namespace ck = gdedup::checkpoint_file;
using gdedup::fuzz::clipped;
using gdedup::fuzz::show;

gdedup::fuzz::FileScratch& scratch() {
  static gdedup::fuzz::FileScratch s("checkpoint", "saved.ckpt");
  return s;
}

void reseal(std::string& file, int mode) {
  if (file.size() < ck::kHeaderBytes) return;
  auto* h = reinterpret_cast<unsigned char*>(file.data());
  const uint64_t payload = ck::get_u64(h + ck::kOffPayloadBytes);
  const uint64_t state_at = payload > file.size() ? file.size() : ck::kHeaderBytes + payload;
  if (mode == 3) {
    ck::put_u64(h + ck::kOffStateBytes, state_at >= file.size() ? 0 : file.size() - state_at);
    ck::put_u64(h + ck::kOffGrowthBytes, 0);
  }
  if (mode >= 2) {
    const std::string_view bits = clipped(file, ck::kHeaderBytes, payload);
    ck::put_u64(h + ck::kOffPayloadChecksum, XXH3_64bits(bits.data(), bits.size()));
    const std::string_view state = clipped(file, state_at, ck::get_u64(h + ck::kOffStateBytes));
    ck::put_u64(h + ck::kOffStateChecksum, XXH3_64bits(state.data(), state.size()));
    const uint64_t state_bytes = ck::get_u64(h + ck::kOffStateBytes);
    const uint64_t growth_at = state_bytes > file.size() - state_at ? file.size() : state_at + state_bytes;
    const std::string_view growth = clipped(file, growth_at, ck::get_u64(h + ck::kOffGrowthBytes));
    ck::put_u64(h + ck::kOffGrowthChecksum, XXH3_64bits(growth.data(), growth.size()));
  }
  ck::put_u64(h + ck::kOffHeaderChecksum, ck::header_checksum(h));
}

bool same_growth(const std::optional<gdedup::GrowthState>& a,
                 const std::optional<gdedup::GrowthState>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  const gdedup::GrowthRule &x = a->rule, &y = b->rule;
  return x.first_capacity == y.first_capacity && x.target_fpr == y.target_fpr &&
         x.growth == y.growth && x.tightening == y.tightening && x.block_bits == y.block_bits &&
         x.check_every == y.check_every && a->max_bytes == b->max_bytes &&
         a->keys_offered == b->keys_offered;
}

bool same_layers(const std::vector<gdedup::SavedLayer>& a,
                 const std::vector<gdedup::SavedLayer>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].params != b[i].params || a[i].insertions != b[i].insertions) return false;
  }
  return true;
}

bool same_identity(const gdedup::InputIdentity& x, const gdedup::InputIdentity& y) {
  return x.path == y.path && x.regular == y.regular && x.size == y.size &&
         x.mtime_ns == y.mtime_ns && x.sample_hash == y.sample_hash;
}

bool same_state(const gdedup::ResumeState& a, const gdedup::ResumeState& b) {
  if (a.inputs.size() != b.inputs.size()) return false;
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    if (!same_identity(a.inputs[i], b.inputs[i])) return false;
  }
  const gdedup::FilterFileMark &f = a.filter_file, &g = b.filter_file;
  if (f.recorded != g.recorded || f.existed != g.existed || !same_identity(f.file, g.file)) {
    return false;
  }
  return a.mode == b.mode && a.format == b.format && a.keys == b.keys &&
         a.output == b.output && a.output_temporary == b.output_temporary &&
         a.position.records == b.position.records &&
         a.position.offset == b.position.offset &&
         a.position.input_index == b.position.input_index &&
         a.position.input_offset == b.position.input_offset &&
         a.output_offset == b.output_offset && a.records == b.records && a.kept == b.kept &&
         a.dropped == b.dropped && a.input_bytes == b.input_bytes && a.params == b.params &&
         a.insertions == b.insertions && same_growth(a.growth, b.growth) &&
         same_layers(a.later_layers, b.later_layers);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const int mode = in.byte() % 4;
  std::string file(in.rest());
  if (mode >= 1) reseal(file, mode);
  scratch().write_input(file);
  const gdedup::fuzz::FileScratch& s = scratch();

  bool loaded = false;
  try {
    gdedup::Checkpoint checkpoint = gdedup::load_checkpoint(s.in_path);
    loaded = true;
    const gdedup::ResumeState state = gdedup::read_checkpoint_state(s.in_path);
    FUZZ_CHECK(same_state(state, checkpoint.state),
               "read_checkpoint_state disagrees with load_checkpoint");
    FUZZ_CHECK(checkpoint.state.params == checkpoint.filter.params(),
               "the state names other filter parameters than the filter loaded");
    FUZZ_CHECK(checkpoint.state.later_layers.size() == checkpoint.later_layers.size(),
               "the state names another number of layers than were loaded");
    gdedup::save_checkpoint(checkpoint, s.out_path);
    const std::string saved = gdedup::fuzz::read_file(s.out_path);
    const gdedup::Checkpoint reloaded = gdedup::load_checkpoint(s.out_path);
    FUZZ_CHECK(same_state(reloaded.state, checkpoint.state),
               "a saved checkpoint loads to another state");
    gdedup::save_checkpoint(reloaded, s.out_path);
    const std::string resaved = gdedup::fuzz::read_file(s.out_path);
    FUZZ_CHECK(resaved == saved, "a loaded checkpoint saves to other bytes: loaded " +
                                     std::to_string(saved.size()) + " bytes, saved " +
                                     std::to_string(resaved.size()));
  } catch (const gdedup::Error& e) {
    FUZZ_CHECK(!loaded, std::string("saving a loaded checkpoint failed: ") + e.what());
    const std::string message = e.what();
    FUZZ_CHECK(message.find(s.in_path) != std::string::npos,
               "the error does not name the file: " + show(message));
  }
  return 0;
}
