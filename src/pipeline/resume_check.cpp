#include "pipeline/resume_check.h"

#include <optional>

#include "gdedup/error.h"
#include "io/input_file.h"
#include "io/output_file.h"
#include "io/record_reader.h"
#include "pipeline/input_identity.h"

namespace gdedup::pipeline {
namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

[[noreturn]] void option_differs(const ResumeState& state, const std::string& option,
                                 const std::string& saved, const std::string& now) {
  const std::string from = state.loaded_from.empty() ? "" : " " + state.loaded_from;
  throw Error("cannot resume from checkpoint" + from + ": the " + option +
                  " option differs: the checkpoint was written with " + saved + ", this run has " +
                  now + "; resume with the options of the interrupted run",
              ErrorKind::resume_mismatch);
}

std::string output_text(const std::string& output) {
  return output.empty() ? "no output" : quoted(output);
}

// The filter the caller passed must be the one the checkpoint was loaded
// into: the same growth, layers, parameters and insertions.
void check_same_filter(const ResumeState& state, const RunFilter& filter) {
  const std::string not_it =
      "the filter given to the resumed run is not the checkpoint's (use the filter "
      "load_checkpoint returns, through resume_growing_filter for one that grows): ";
  try {
    check_checkpoint_growth(state.growth, filter.growth);
  } catch (const Error& e) {
    throw UsageError(not_it + e.what(), ErrorKind::resume_mismatch);
  }
  if (state.growth && state.growth->keys_offered != filter.growth->keys_offered) {
    throw UsageError(not_it + "it was offered " + std::to_string(filter.growth->keys_offered) +
                     " keys, the checkpoint's " + std::to_string(state.growth->keys_offered),
                     ErrorKind::resume_mismatch);
  }
  std::vector<SavedLayer> saved{{state.params, state.insertions}};
  saved.insert(saved.end(), state.later_layers.begin(), state.later_layers.end());
  if (saved.size() != filter.layers.size()) {
    throw UsageError(not_it + "it has " + std::to_string(filter.layers.size()) +
                     " layers, the checkpoint's " + std::to_string(saved.size()),
                     ErrorKind::resume_mismatch);
  }
  for (size_t i = 0; i < saved.size(); ++i) {
    const Filter& layer = *filter.layers[i];
    const std::string which = saved.size() == 1 ? "" : "layer " + std::to_string(i + 1) + ": ";
    try {
      check_checkpoint_params(saved[i].params, layer.params());
    } catch (const Error& e) {
      throw UsageError(not_it + which + e.what(), ErrorKind::resume_mismatch);
    }
    if (layer.counters().insertions != saved[i].insertions) {
      throw UsageError(not_it + which + "it counts " +
                       std::to_string(layer.counters().insertions) + " insertions, the "
                       "checkpoint " + std::to_string(saved[i].insertions),
                       ErrorKind::resume_mismatch);
    }
  }
}

// The input list: as many inputs, by the same paths.
void check_input_paths(const ResumeState& state, const std::vector<std::string>& inputs) {
  auto differs = [&](const std::string& saved, const std::string& now) {
    const std::string from = state.loaded_from.empty() ? "" : " " + state.loaded_from;
    throw Error("cannot resume from checkpoint" + from + ": the input list differs: the "
                    "checkpoint was written with " + saved + ", this run has " + now +
                    "; resume with the inputs of the interrupted run",
                ErrorKind::resume_mismatch);
  };
  auto count = [](size_t n) { return std::to_string(n) + (n == 1 ? " input" : " inputs"); };
  if (state.inputs.size() != inputs.size()) {
    differs(count(state.inputs.size()), count(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (state.inputs[i].path != inputs[i]) {
      differs("input " + std::to_string(i + 1) + " " + quoted(state.inputs[i].path),
              quoted(inputs[i]));
    }
  }
}

}  // namespace

const char* mode_text(Mode mode) {
  if (mode == Mode::kQueryPresent) return "query (present)";
  if (mode == Mode::kQueryAbsent) return "query (absent)";
  return mode_name(mode);
}

const char* format_name(InputFormat format) {
  return format == InputFormat::kU64 ? "u64" : "text";
}

void check_resume(const ResumeState& state, const PipelineOptions& options,
                  const RunFilter& filter, const std::vector<InputIdentity>& now) {
  check_same_filter(state, filter);
  check_resume_run(state, options, now);
}

void check_resume_run(const ResumeState& state, const PipelineOptions& options,
                      const std::vector<InputIdentity>& now) {
  if (state.mode != options.mode) {
    option_differs(state, "mode", mode_text(state.mode), mode_text(options.mode));
  }
  if (state.format != options.format) {
    option_differs(state, "input format", format_name(state.format),
                   format_name(options.format));
  }
  if (state.record_separator != options.record_separator) {
    option_differs(state, "record separator", io::separator_name(state.record_separator),
                   io::separator_name(options.record_separator));
  }
  // Typed comparisons: any two spellings of one option resume each other.
  if (state.keys.key != options.keys.key) {
    option_differs(state, "key", quoted(state.keys.key_text()),
                   quoted(options.keys.key_text()));
  }
  if (state.keys.delimiter != options.keys.delimiter) {
    option_differs(state, "delimiter", quoted(state.keys.delimiter_text()),
                   quoted(options.keys.delimiter_text()));
  }
  if (state.keys.normalize != options.keys.normalize) {
    option_differs(state, "normalize", quoted(state.keys.normalize_text()),
                   quoted(options.keys.normalize_text()));
  }
  if (state.missing_key != options.missing_key) {
    option_differs(state, "missing-key policy", keys::missing_key_text(state.missing_key),
                   keys::missing_key_text(options.missing_key));
  }
  if (state.strict_json != options.strict_json) {
    const auto reading = [](bool strict) {
      return strict ? "every record's JSON read whole" : "JSON read as far as the key";
    };
    option_differs(state, "strict JSON", reading(state.strict_json),
                   reading(options.strict_json));
  }
  const std::string output = options.mode == Mode::kBuild ? "" : options.output;
  if (state.output != output) {
    option_differs(state, "output", output_text(state.output), output_text(output));
  }
  check_input_paths(state, options.inputs);
  for (size_t i = 0; i < now.size(); ++i) check_same_input(state.inputs[i], now[i], i + 1);
}

ResumeState identify_run(const PipelineOptions& options) {
  ResumeState state;
  state.mode = options.mode;
  state.format = options.format;
  state.record_separator = options.record_separator;
  state.keys = options.keys;
  state.missing_key = options.missing_key;
  state.strict_json = options.strict_json;
  if (options.mode != Mode::kBuild) {
    if (options.output == "-") {
      throw UsageError("checkpoints need the output in a file: standard output cannot be "
                       "cut back to a checkpoint's offset when the run is resumed");
    }
    if (io::replaced_file(options.output).empty()) {
      throw UsageError("checkpoints need the output in a regular file: " + options.output +
                       " is not a regular file, so a resumed run could not cut it back to "
                       "the checkpoint's offset");
    }
    state.output = options.output;
  }
  for (const std::string& path : options.inputs) {
    InputIdentity id = pipeline::identify_input(path);
    if (!id.regular && !options.replayable_stdin) {
      const std::string what =
          path == "-" ? "standard input" : "input " + path + ", which is not a regular file,";
      throw UsageError("cannot checkpoint a run that reads " + what +
                       ": a resumed run could not read it again from the start; give the "
                       "input as a file, or state that the stream will be replayed from "
                       "its start on resume");
    }
    state.inputs.push_back(std::move(id));
  }
  // A resumed run notes the file as its checkpoint did: as the job found it
  // when it started, whatever became of it since.
  state.filter_file = options.resume != nullptr ? options.resume->filter_file
                                                : mark_filter_file(options.saved_filter);
  return state;
}

}  // namespace gdedup::pipeline

namespace gdedup {

void check_checkpoint_inputs(const ResumeState& state, const std::vector<std::string>& inputs) {
  pipeline::check_input_paths(state, inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (const std::optional<uint64_t> size = io::input_size(inputs[i])) {
      pipeline::check_same_size(state.inputs[i], *size, i + 1);
    }
  }
}

}  // namespace gdedup
