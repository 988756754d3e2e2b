#include "cli/checkpoint_info.h"

#include <vector>

#include "cli/numbers.h"

namespace gdedup::cli {
namespace {

// The command line that wrote the checkpoint, as far as the state tells.
std::string mode_command(Mode mode) {
  switch (mode) {
    case Mode::kDedup: return "dedup";
    case Mode::kDuplicates: return "dedup --duplicates";
    case Mode::kBuild: return "build";
    case Mode::kQueryPresent: return "query";
    case Mode::kQueryAbsent: return "query --absent";
  }
  return mode_name(mode);
}

std::string command_text(const ResumeState& s) {
  return mode_command(s.mode) + (s.record_separator == '\0' ? " -z" : "");
}

std::string key_text(const ResumeState& s) {
  if (s.format == InputFormat::kU64) return "the records (--input-format u64)";
  std::string text = s.keys.key_text();
  if (s.keys.key != keys::KeySpec::whole()) text += ", delimiter " + s.keys.delimiter_text();
  if (!s.keys.normalize.empty()) text += ", normalized: " + s.keys.normalize_text();
  return text;
}

std::string input_text(const InputIdentity& input) {
  if (!input.regular) return input.path + " (standard input or a pipe)";
  return input.path + " (" + group_digits(input.size) + " bytes)";
}

std::vector<std::string> input_paths(const ResumeState& s) {
  std::vector<std::string> paths;
  for (const InputIdentity& input : s.inputs) paths.push_back(input.path);
  return paths;
}

// A growing filter's layers in one line; the filter rows that follow it
// describe the first layer.
std::string growth_text(const Checkpoint& checkpoint) {
  uint64_t bytes = checkpoint.filter.params().bytes();
  for (const Filter& layer : checkpoint.later_layers) bytes += layer.params().bytes();
  return counted(checkpoint.later_layers.size() + 1, "layer") + " of " + human_bytes(bytes) +
         " together, " + counted(checkpoint.state.growth->keys_offered, "key") +
         " offered; the rows below describe the first layer";
}

}  // namespace

std::string checkpoint_info_text(const std::string& path, const Checkpoint& checkpoint,
                                 const FilterState& state) {
  const ResumeState& s = checkpoint.state;
  std::string out = row("file", path);
  out += row("kind", "checkpoint of an unfinished job: its command plus --resume continues it");
  out += row("command", command_text(s));
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    out += row(i == 0 ? (s.inputs.size() == 1 ? "input" : "inputs") : "", input_text(s.inputs[i]));
  }
  out += row("key", key_text(s));
  if (!s.output.empty()) {
    out += row("output", s.output + " (" + group_digits(s.output_offset) + " bytes written to " +
                             s.output_temporary + " so far)");
  }
  std::string position = counted(s.records, "record") + " done";
  if (s.position.input_index < s.inputs.size()) {
    position += ", up to byte " + group_digits(s.position.input_offset) + " of " +
                s.inputs[s.position.input_index].path;
  }
  out += row("position", position);
  out += row("kept", group_digits(s.kept));
  out += row("dropped", group_digits(s.dropped));
  if (s.growth) out += row("growth", growth_text(checkpoint));
  return out + filter_rows(checkpoint.filter.params(), checkpoint.filter.counters(), state);
}

JsonObject checkpoint_info_json(const std::string& path, const Checkpoint& checkpoint,
                                const FilterState& state) {
  const ResumeState& s = checkpoint.state;
  JsonObject o;
  o.add("file", path)
      .add("kind", "checkpoint")
      .add("mode", mode_name(s.mode))
      .add("inputs", input_paths(s))
      .add("output", s.output)
      .add("output_temporary", s.output_temporary)
      .add("output_bytes", s.output_offset)
      .add("records", s.records)
      .add("kept", s.kept)
      .add("dropped", s.dropped)
      .add("input_index", s.position.input_index)
      .add("input_offset", s.position.input_offset)
      .add("layers", static_cast<uint64_t>(checkpoint.later_layers.size() + 1));
  if (s.growth) o.add("keys_offered", s.growth->keys_offered);
  return add_filter_fields(o, checkpoint.filter.params(), checkpoint.filter.counters(), state);
}

}  // namespace gdedup::cli
