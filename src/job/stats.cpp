#include "job/stats.h"

#include <cstdio>
#include <optional>

#include "gdedup/frontend/number_text.h"
#include "io/output_file.h"

namespace gdedup::job {
namespace {

double per_second(uint64_t count, double seconds) {
  return seconds > 0 ? static_cast<double>(count) / seconds : 0.0;
}

// What the written and the dropped records are, per mode.
struct Words {
  const char* written;
  const char* dropped;
};

Words words_for(Mode mode) {
  switch (mode) {
    case Mode::kDedup: return {"kept", "duplicates dropped"};
    case Mode::kDuplicates: return {"duplicates written", "first occurrences dropped"};
    case Mode::kBuild: return {"new keys", "already present"};
    case Mode::kQueryPresent: return {"present (written)", "absent"};
    case Mode::kQueryAbsent: return {"absent (written)", "present"};
  }
  return {"written", "dropped"};
}

}  // namespace

JsonObject stats_json(const JobResult& r) {
  using Count = std::optional<uint64_t>;
  const PipelineStats& s = r.stats;
  JsonObject o;
  o.add("mode", mode_name(r.mode))
      .add("records", s.records)
      .add("kept", s.kept)
      .add("dropped", s.dropped)
      .add("missing_keys", s.missing_keys)
      .add("input_bytes", s.input_bytes)
      .add("output_bytes", s.output_bytes)
      .add("seconds", s.seconds)
      .add("records_per_second", per_second(s.records - r.resumed_records, s.seconds))
      .add("filter_set_bits", r.filter.set_bits)
      .add("filter_total_bits", r.filter.total_bits)
      .add("filter_layers", r.filter.layers)
      .add("filter_fill", r.filter.fill)
      .add("estimated_distinct_keys", r.filter.estimated_keys)
      .add("current_fpr", r.filter.current_fpr)
      .add("backend", r.backend)
      .add("checkpoints", s.checkpoints)
      .add("inputs", r.inputs)
      .add("inputs_skipped", r.inputs_skipped)
      .add("filter_saved", r.filter_saved);
  // Exact mode's set; null otherwise.
  using Number = std::optional<double>;
  o.add("exact", r.set.has_value())
      .add("set_keys", r.set ? Count(r.set->keys) : std::nullopt)
      .add("set_bytes", r.set ? Count(r.set->bytes) : std::nullopt)
      .add("set_load", r.set ? Number(r.set->load) : std::nullopt)
      .add("collision_chance", r.set ? Number(r.set->collision_chance) : std::nullopt);
  // Far past its plan (exit status 4): the records probably lost and a
  // capacity that would have served; null otherwise.
  o.add("probably_lost", r.overfull ? Count(r.overfull->probably_lost) : std::nullopt)
      .add("capacity_needed", r.overfull ? Count(r.overfull->capacity) : std::nullopt);
  return o;
}

// As the output: a new or regular file through a temporary file and a
// rename, the file a trusted link leads to likewise (the link kept), a
// device or pipe (/dev/stdout) in place.
void write_stats_file(const std::string& path, const std::string& text) {
  io::OutputFile out = io::OutputFile::create(path, text.size() + 1, "statistics file");
  out.writer().write(text.data(), text.size());
  out.close();
  out.commit();
}

}  // namespace gdedup::job

namespace gdedup {

std::string summary_line(const JobResult& r) {
  const PipelineStats& s = r.stats;
  const job::Words words = job::words_for(r.mode);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f s", s.seconds);
  std::string line = counted(s.records, "record") + ": " + group_digits(s.kept) + " " +
                     words.written + ", " + group_digits(s.dropped) + " " + words.dropped +
                     " in " + seconds;
  if (s.seconds > 0) {
    line += " (" + human_count(job::per_second(s.records - r.resumed_records, s.seconds)) +
            " records/s, " +
            human_bytes(static_cast<uint64_t>(
                job::per_second(s.input_bytes - r.resumed_bytes, s.seconds))) +
            "/s)";
  }
  if (r.set) {
    line += "; exact set of " + group_digits(r.set->keys) + " keys in " +
            human_bytes(r.set->bytes) + ", chance of any collision " +
            format_rate(r.set->collision_chance);
  } else {
    line += "; filter " +
            (r.filter.layers > 1 ? "of " + std::to_string(r.filter.layers) + " layers " : "") +
            format_percent(r.filter.fill) + " full, " +
            approx_keys(r.filter.estimated_keys, "distinct keys") + ", FPR now " +
            format_rate(r.filter.current_fpr);
  }
  if (s.missing_keys > 0) {
    line += "; " + counted(s.missing_keys, "record") + " without its key";
  }
  if (r.inputs_skipped > 0) {
    line += "; " + counted(r.inputs_skipped, "missing input") + " skipped";
  }
  if (r.checkpointing) {
    line += "; " + group_digits(s.checkpoints) +
            (s.checkpoints == 1 ? " checkpoint written" : " checkpoints written");
  }
  return line;
}

}  // namespace gdedup
