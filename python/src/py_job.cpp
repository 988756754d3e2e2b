#include "py_job.h"

#include <chrono>
#include <cstdio>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"
#include "key_rules.h"

namespace gdedup::python {

namespace {

// The sizing arguments as a JobSizing, the values given noted in `events`
// for the library's messages; checked by the library.
JobSizing sizing_of(std::optional<uint64_t> capacity, std::optional<double> fpr,
                    std::optional<uint64_t> memory, std::optional<uint32_t> block_bits,
                    bool allow_high_fpr, PyEvents& events) {
  JobSizing s;
  s.capacity = capacity;
  s.memory = memory;
  s.fpr = fpr;
  s.block_bits = block_bits;
  s.allow_high_fpr = allow_high_fpr;
  if (capacity) events.set_given(JobOption::kCapacity, std::to_string(*capacity));
  if (memory) events.set_given(JobOption::kMemory, std::to_string(*memory));
  if (fpr) events.set_given(JobOption::kFpr, format_rate(*fpr));
  if (block_bits) events.set_given(JobOption::kBlockBits, std::to_string(*block_bits));
  return s;
}

}  // namespace

JobSizing job_sizing(std::optional<uint64_t> capacity, std::optional<double> fpr,
                     std::optional<uint64_t> memory, std::optional<uint32_t> block_bits,
                     bool allow_high_fpr, PyEvents& events) {
  const JobSizing s = sizing_of(capacity, fpr, memory, block_bits, allow_high_fpr, events);
  // A growing filter is planned to its rate too.
  check_job_sizing(s, events);
  return s;
}

namespace {

// gdedup.run's arguments, as _run.py hands them over: a dict whose values
// are None when not given; paths are bytes (os.fsencode).
class Arguments {
 public:
  explicit Arguments(nb::dict d) : d_(std::move(d)) {}

  template <class T>
  std::optional<T> get(const char* name) const {
    if (!d_.contains(name)) return std::nullopt;
    nb::handle value = d_[name];
    if (value.is_none()) return std::nullopt;
    T out;
    if (!nb::try_cast<T>(value, out)) {
      throw nb::type_error((std::string(name) + "=" + nb::repr(value).c_str() +
                            ": not a value this argument takes (see help(gdedup.run))").c_str());
    }
    return out;
  }
  bool flag(const char* name) const { return get<bool>(name).value_or(false); }
  // "" when not given. An empty path given is refused: the job would take
  // it for none (filter="": the keys never saved).
  std::string path(const char* name) const {
    const std::optional<nb::bytes> b = get<nb::bytes>(name);
    if (b && b->size() == 0) {
      throw UsageError(std::string(name) + "=\"\": the path is empty: give " + name +
                       "= a path, or leave it out");
    }
    return b ? std::string(b->c_str(), b->size()) : std::string();
  }

 private:
  nb::dict d_;
};

JobKind job_kind(const std::string& command) {
  if (command == "dedup") return JobKind::kDedup;
  if (command == "build") return JobKind::kBuild;
  if (command == "query") return JobKind::kQuery;
  throw UsageError("command=\"" + command + "\": expected \"dedup\", \"build\" or \"query\"");
}

// Python's words for a job, mapped to a JobSpec; the library checks it
// (check_job_spec), as it checks the command's.
class SpecMapping {
 public:
  SpecMapping(const Arguments& a, JobSpec& spec, PyEvents& events)
      : a_(a), spec_(spec), events_(events) {}

  // The argument `name` (None: not given), noted given as `option`, its
  // value quoted in messages as `shown` makes it.
  template <class T>
  std::optional<T> take(const char* name, JobOption option,
                        std::string (*shown)(const T&) = nullptr) {
    std::optional<T> value = a_.get<T>(name);
    if (!value) return value;
    spec_.given.insert(option);
    if (shown != nullptr) events_.set_given(option, shown(*value));
    return value;
  }

 private:
  const Arguments& a_;
  JobSpec& spec_;
  PyEvents& events_;
};

std::string quoted(const std::string& text) { return "\"" + text + "\""; }
template <class T>
std::string number(const T& value) {
  return std::to_string(value);
}
std::string decimal(const double& value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

JobSpec job_spec(const std::string& command, const std::vector<nb::bytes>& paths,
                 const Arguments& a, PyEvents& events) {
  JobSpec spec;
  SpecMapping given(a, spec, events);
  spec.kind = job_kind(command);
  spec.duplicates = a.flag("duplicates");
  spec.absent = a.flag("absent");
  for (const nb::bytes& p : paths) spec.inputs.paths.emplace_back(p.c_str(), p.size());
  spec.inputs.files_from = a.path("files_from");
  spec.inputs.null_list = a.flag("null_list");
  spec.inputs.recursive = a.flag("recursive");
  spec.inputs.skip_missing = a.flag("skip_missing");
  const std::string format = a.get<std::string>("input_format").value_or("text");
  if (format == "u64") {
    spec.format = InputFormat::kU64;
  } else if (format != "text") {
    throw UsageError("input_format=\"" + format + "\": expected \"text\" or \"u64\"");
  }
  events.set_given(JobOption::kInputFormat, quoted(format));
  spec.record_separator = a.flag("null_data") ? '\0' : '\n';
  const OptionalText key = given.take<std::string>("key", JobOption::kKey);
  const OptionalText delimiter =
      given.take<std::string>("delimiter", JobOption::kDelimiter, quoted);
  const OptionalText normalize = given.take<std::string>("normalize", JobOption::kNormalize);
  if (spec.format == InputFormat::kText) {
    spec.keys = KeyOptions::parse(key.value_or("whole"), delimiter.value_or("tab"),
                                  normalize.value_or(""));
  }
  events.set_given(JobOption::kKey, quoted(key.value_or("whole")));
  if (const OptionalText missing =
          given.take<std::string>("missing_key", JobOption::kMissingKey, quoted)) {
    spec.missing_key = keys::parse_missing_key(*missing);
  }
  spec.strict_json = a.flag("strict_json");
  spec.ignore_key_rules = a.flag("ignore_key_rules");
  spec.output = a.path("output");
  if (spec.output.empty()) spec.output = "-";
  spec.output_parts = a.path("output_parts");
  if (const OptionalText format =
          given.take<std::string>("output_format", JobOption::kOutputFormat, quoted)) {
    if (!output_format_named(*format, spec.output_format)) {
      throw UsageError("output_format=\"" + *format + "\": expected \"parquet\" or \"lines\"");
    }
  }
  if (const OptionalText codec = given.take<std::string>("parquet_compression",
                                                         JobOption::kParquetCompression, quoted)) {
    spec.parquet_compression = *codec;
  }
  spec.row_group_rows =
      given.take<uint64_t>("row_group_rows", JobOption::kRowGroupRows, number).value_or(0);
  spec.filter_path = a.path("filter");
  spec.stats_path = a.path("stats");
  spec.sizing = sizing_of(a.get<uint64_t>("capacity"), a.get<double>("fpr"),
                          a.get<uint64_t>("memory"), a.get<uint32_t>("block_bits"),
                          a.flag("allow_high_fpr"), events);
  spec.no_grow = !a.get<bool>("grow").value_or(true);
  spec.exact = a.get<bool>("exact").value_or(false);
  spec.max_memory =
      given.take<uint64_t>("max_memory", JobOption::kMaxMemory, number).value_or(0);
  spec.backend = a.get<std::string>("backend").value_or("auto");
  events.set_given(JobOption::kBackend, quoted(spec.backend));
  spec.threads = given.take<unsigned>("threads", JobOption::kThreads).value_or(0);
  spec.filter_threads =
      given.take<unsigned>("filter_threads", JobOption::kFilterThreads).value_or(0);
  spec.device = given.take<int>("device", JobOption::kDevice, number).value_or(0);
  spec.batch_records = given.take<uint64_t>("batch_records", JobOption::kBatch, number)
                           .value_or(spec.batch_records);
  spec.compressed_piece_bytes =
      given.take<uint64_t>("compressed_piece_bytes", JobOption::kCompressedPieceBytes, number)
          .value_or(spec.compressed_piece_bytes);
  JobCheckpoints& c = spec.checkpoint;
  c.path = a.path("checkpoint");
  c.resume = a.flag("resume");
  c.replayable_stdin = a.flag("replayable_stdin");
  const std::optional<double> seconds = given.take<double>(
      "checkpoint_every_seconds", JobOption::kCheckpointEverySeconds, decimal);
  const std::optional<uint64_t> records =
      given.take<uint64_t>("checkpoint_every_records", JobOption::kCheckpointEveryRecords,
                           number);
  // Either interval given: the other is off.
  if (seconds || records) {
    c.every_seconds = seconds.value_or(0);
    c.every_records = records.value_or(0);
  }
  return spec;
}

// run_job on a thread of its own, while this one, the caller's, waits with
// the GIL released and looks for signals every tenth of a second: Python
// runs its signal handlers on the main thread only, so a KeyboardInterrupt
// is seen here and handed to the job through `events` (keep_raised).
JobResult run_watched(const JobSpec& spec, PyEvents& events) {
  JobResult result;
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  {
    nb::gil_scoped_release release;
    std::thread job([&] {
      try {
        result = run_job(spec, events);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
      ended.notify_all();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!ended.wait_for(lock, std::chrono::milliseconds(100), [&] { return done; })) {
      lock.unlock();
      {
        nb::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) events.keep_raised();
      }
      lock.lock();
    }
    lock.unlock();
    job.join();
  }
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const PythonRaised&) {
      events.restore_raised();
      throw nb::python_error();
    }
  }
  return result;
}

const char* status_name(JobStatus status) {
  switch (status) {
    case JobStatus::kComplete: return "complete";
    case JobStatus::kInterrupted: return "interrupted";
    case JobStatus::kOverfull: return "overfull";
    case JobStatus::kOutputClosed: return "output_closed";
  }
  return "complete";
}

nb::dict result_dict(const JobResult& r) {
  nb::dict d;
  d["status"] = status_name(r.status);
  d["message"] = r.message;
  d["summary"] = summary_line(r);
  d["records"] = r.stats.records;
  d["kept"] = r.stats.kept;
  d["dropped"] = r.stats.dropped;
  d["missing_keys"] = r.stats.missing_keys;
  d["input_bytes"] = r.stats.input_bytes;
  d["output_bytes"] = r.stats.output_bytes;
  d["seconds"] = r.stats.seconds;
  d["checkpoints"] = r.stats.checkpoints;
  d["inputs"] = r.inputs;
  d["inputs_skipped"] = r.inputs_skipped;
  d["resumed_records"] = r.resumed_records;
  d["backend"] = r.backend;
  d["filter_layers"] = r.filter.layers;
  d["filter_bytes"] = r.filter.bytes;
  d["filter_fill"] = r.filter.fill;
  d["filter_estimated_keys"] = r.filter.estimated_keys;
  d["filter_current_fpr"] = r.filter.current_fpr;
  d["filter_saved"] = r.filter_saved;
  d["probably_lost"] = r.overfull ? nb::cast(r.overfull->probably_lost) : nb::none();
  d["capacity_needed"] = r.overfull ? nb::cast(r.overfull->capacity) : nb::none();
  d["exact"] = r.set.has_value();
  d["set_keys"] = r.set ? nb::cast(r.set->keys) : nb::none();
  d["set_bytes"] = r.set ? nb::cast(r.set->bytes) : nb::none();
  d["set_load"] = r.set ? nb::cast(r.set->load) : nb::none();
  d["collision_chance"] = r.set ? nb::cast(r.set->collision_chance) : nb::none();
  return d;
}

}  // namespace

void bind_run(nb::module_& m) {
  m.def(
      "_run",
      [](const std::string& command, const std::vector<nb::bytes>& paths, nb::dict arguments,
         nb::object progress) {
        const Arguments a(std::move(arguments));
        PyEvents events(std::move(progress), !a.path("checkpoint").empty());
        const JobSpec spec = job_spec(command, paths, a, events);
        // A KeyboardInterrupt raised by the job's stop is the caller's, with
        // the result that says how to resume (_run.py).
        // A filter or checkpoint of the other mode: with or without exact=True.
        const std::string mode_advice = (spec.exact ? "leave out " : "pass ") +
                                        events.name(JobOption::kExact) + " to use it";
        const JobResult ended =
            advise_other_mode(mode_advice, [&] { return run_watched(spec, events); });
        nb::dict result = result_dict(ended);
        if (events.restore_raised()) {
          nb::python_error raised;
          result["raised"] = nb::borrow(raised.value());
          // Too late to stop the job: what it completed.
          if (ended.status == JobStatus::kComplete || ended.status == JobStatus::kOverfull) {
            result["completed"] = completed_job_text(spec, ended);
          }
        }
        return result;
      },
      nb::arg("command"), nb::arg("paths"), nb::arg("arguments"), nb::arg("progress").none());
}

}  // namespace gdedup::python
