#include "cli/checkpoint_info.h"

#include <vector>

#include "cli/flags.h"
#include "cli/numbers.h"

namespace gdedup::cli {
namespace {

// The command line that wrote the checkpoint, as far as the state tells.
std::string mode_command(Mode mode) {
  switch (mode) {
    case Mode::kDedup: return "dedup";
    case Mode::kDuplicates: return "dedup " + flag::kDuplicates;
    case Mode::kBuild: return "build";
    case Mode::kQueryPresent: return "query";
    case Mode::kQueryAbsent: return "query " + flag::kAbsent;
  }
  return mode_name(mode);
}

std::string command_text(const ResumeState& s) {
  return mode_command(s.mode) + (s.record_separator == '\0' ? " " + flag::kNullData : "");
}

std::string key_text(const ResumeState& s) {
  if (s.format == InputFormat::kU64) return "the records (" + flag::kInputFormat + " u64)";
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

// A growing filter's rule in one line; the filter rows that follow it
// describe its layers.
std::string growth_text(const GrowthState& growth) {
  return "layers of " + std::to_string(growth.rule.growth) + "x the keys from " +
         counted(growth.rule.first_capacity, "key") + ", FPR at most " +
         format_rate(growth.rule.target_fpr) + "; " + counted(growth.keys_offered, "key") +
         " offered so far";
}

std::vector<const Filter*> layers_of(const Checkpoint& checkpoint) {
  std::vector<const Filter*> layers = {&checkpoint.filter};
  for (const Filter& layer : checkpoint.later_layers) layers.push_back(&layer);
  return layers;
}

// Inputs listed at each end of a long list; with the current one, a
// listing stays under ten rows however many inputs a job has.
constexpr size_t kInputsAtEachEnd = 3;

// One row per input when there are few (or `all`); otherwise the count,
// the first and last few and the current one, each with its number, and
// how many lie between them.
std::string input_rows(const ResumeState& s, bool all) {
  const size_t count = s.inputs.size();
  if (all || count <= 2 * kInputsAtEachEnd + 1) {
    std::string out;
    for (size_t i = 0; i < count; ++i) {
      out += row(i == 0 ? (count == 1 ? "input" : "inputs") : "", input_text(s.inputs[i]));
    }
    return out;
  }
  const size_t current = s.position.input_index;
  std::vector<size_t> shown;
  for (size_t i = 0; i < count; ++i) {
    if (i < kInputsAtEachEnd || i >= count - kInputsAtEachEnd || i == current) shown.push_back(i);
  }
  std::string out = row("inputs", group_digits(count) + ": the first and last " +
                                      std::to_string(kInputsAtEachEnd) +
                                      " and the current one (info " + flag::kAllInputs +
                                      " lists them all)");
  for (size_t j = 0; j < shown.size(); ++j) {
    const size_t i = shown[j];
    if (j > 0 && i > shown[j - 1] + 1) {
      out += row("", "... " + counted(i - shown[j - 1] - 1, "input"));
    }
    out += row("", group_digits(i + 1) + ". " + input_text(s.inputs[i]) +
                       (i == current ? " (current)" : ""));
  }
  return out;
}

// The rows of the job a checkpoint belongs to, down to "dropped".
std::string job_rows(const std::string& path, const ResumeState& s, bool all_inputs,
                     const std::string& kind) {
  std::string out = row("file", path);
  out += row("kind", kind);
  out += row("command", command_text(s));
  out += input_rows(s, all_inputs);
  out += row("key", key_text(s));
  if (!s.output.empty()) {
    out += row("output", s.output + " (" + group_digits(s.output_offset) + " bytes written to " +
                             s.output_temporary + " so far)");
  }
  std::string position = counted(s.records, "record") + " done";
  if (s.position.input_index < s.inputs.size()) {
    position += ", up to byte " + group_digits(s.position.input_offset) + " of " +
                s.inputs[s.position.input_index].path;
    if (s.inputs.size() > 1) {
      position += " (input " + group_digits(s.position.input_index + 1) + " of " +
                  group_digits(s.inputs.size()) + ")";
    }
  }
  out += row("position", position);
  out += row("kept", group_digits(s.kept));
  out += row("dropped", group_digits(s.dropped));
  return out;
}

JsonObject job_json(const std::string& path, const ResumeState& s, const char* kind) {
  JsonObject o;
  o.add("file", path)
      .add("kind", kind)
      .add("info_version", kInfoJsonVersion)
      .add("mode", mode_name(s.mode))
      .add("input_count", uint64_t{s.inputs.size()})
      .add("inputs", input_paths(s))
      .add("output", s.output)
      .add("output_temporary", s.output_temporary)
      .add("output_bytes", s.output_offset)
      .add("records", s.records)
      .add("kept", s.kept)
      .add("dropped", s.dropped)
      .add("input_index", s.position.input_index)
      .add("input_offset", s.position.input_offset);
  return o;
}

}  // namespace

std::string checkpoint_info_text(const std::string& path, const Checkpoint& checkpoint,
                                 bool all_inputs) {
  const ResumeState& s = checkpoint.state;
  std::string out = job_rows(path, s, all_inputs,
                             "checkpoint of an unfinished job: its command plus " +
                                 flag::kResume + " continues it");
  if (s.growth) out += row("growth", growth_text(*s.growth));
  return out + whole_filter_rows(layers_of(checkpoint));
}

JsonObject checkpoint_info_json(const std::string& path, const Checkpoint& checkpoint) {
  const ResumeState& s = checkpoint.state;
  JsonObject o = job_json(path, s, "checkpoint");
  if (s.growth) o.add("keys_offered", s.growth->keys_offered);
  return add_whole_filter_fields(o, layers_of(checkpoint));
}

std::string set_checkpoint_info_text(const std::string& path, const SetFileSummary& checkpoint,
                                     bool all_inputs) {
  return job_rows(path, *checkpoint.state, all_inputs,
                  "checkpoint of an unfinished job with " + flag::kExact +
                      ": its command plus " + flag::kResume + " continues it") +
         row("key rules", checkpoint.info.rules.to_string()) + set_rows(checkpoint);
}

JsonObject set_checkpoint_info_json(const std::string& path, const SetFileSummary& checkpoint) {
  JsonObject o = job_json(path, *checkpoint.state, "set_checkpoint");
  o.add("key_rules", checkpoint.info.rules.to_string());
  return add_set_fields(o, checkpoint);
}

}  // namespace gdedup::cli
