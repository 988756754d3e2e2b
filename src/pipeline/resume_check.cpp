#include "pipeline/resume_check.h"

#include "gdedup/error.h"
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
                  const Filter& filter, const std::vector<InputIdentity>& now) {
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
  const std::string output = options.mode == Mode::kBuild ? "" : options.output;
  if (state.output != output) {
    option_differs(state, "output", output_text(state.output), output_text(output));
  }
  if (state.inputs.size() != now.size()) {
    option_differs(state, "input", std::to_string(state.inputs.size()) + " inputs",
                   std::to_string(now.size()));
  }
  for (size_t i = 0; i < now.size(); ++i) {
    if (state.inputs[i].path != now[i].path) {
      option_differs(state, "input", "input " + std::to_string(i + 1) + " " +
                                         quoted(state.inputs[i].path),
                     quoted(now[i].path));
    }
  }
  try {
    check_checkpoint_params(state.params, filter.params());
  } catch (const Error& e) {
    throw UsageError(std::string("the filter given to the resumed run is not the "
                                 "checkpoint's (use the filter load_checkpoint returns): ") +
                         e.what(),
                     ErrorKind::resume_mismatch);
  }
  if (filter.counters().insertions != state.insertions) {
    throw UsageError("the filter given to the resumed run is not the checkpoint's: it counts " +
                         std::to_string(filter.counters().insertions) +
                         " insertions, the "
                         "checkpoint " +
                         std::to_string(state.insertions) +
                         " (use the filter load_checkpoint returns)",
                     ErrorKind::resume_mismatch);
  }
  for (size_t i = 0; i < now.size(); ++i) check_same_input(state.inputs[i], now[i], i + 1);
}

}  // namespace gdedup::pipeline
