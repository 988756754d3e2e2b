#include "py_events.h"

#include <nanobind/stl/string.h>

namespace gdedup::python {

PyEvents::~PyEvents() {
  // Destroyed with the GIL held, by the call that made it.
  for (PyObject*& held : raised_) Py_CLEAR(held);
}

void PyEvents::info(const std::string& message) {
  nb::gil_scoped_acquire gil;
  try {
    nb::module_::import_("logging").attr("getLogger")("gdedup").attr("info")(message);
  } catch (nb::python_error& e) {
    // A failing log handler is the program's to hear of, not the job's end.
    e.discard_as_unraisable("gdedup logging a note");
  }
}

void PyEvents::warn(const std::string& message) {
  nb::gil_scoped_acquire gil;
  // Warnings made errors (-W error) end the job with that error.
  if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) {
    keep_raised();
    throw PythonRaised{};
  }
}

void PyEvents::progress(const Progress& p, size_t layers) {
  // Without checkpoints a stop ends the job at once, until its results are
  // being put in place: stopped part way, some files would be new and
  // others old (the last call comes after the output took its place).
  const bool stops_now = !checkpointing_ && !publishing_.load();
  if (stop_.load() && stops_now) throw PythonRaised{};
  if (!progress_.is_valid() || progress_.is_none()) return;
  nb::gil_scoped_acquire gil;
  try {
    nb::dict d;
    d["records"] = p.records;
    d["kept"] = p.kept;
    d["input_bytes"] = p.input_bytes;
    d["input_size"] = p.input_size;
    d["input"] = p.input;
    d["inputs"] = p.inputs;
    d["seconds"] = p.seconds;
    d["layers"] = layers;
    progress_(d);
  } catch (nb::python_error& e) {
    e.restore();
    keep_raised();
    if (stops_now) throw PythonRaised{};
  }
}

void PyEvents::keep_raised() {
  PyObject* raised[3];
  PyErr_Fetch(&raised[0], &raised[1], &raised[2]);
  PyErr_NormalizeException(&raised[0], &raised[1], &raised[2]);
  if (raised_[0] != nullptr) {
    for (PyObject* later : raised) Py_XDECREF(later);
  } else {
    for (int i = 0; i < 3; ++i) raised_[i] = raised[i];
  }
  stop_.store(true);
}

bool PyEvents::restore_raised() {
  if (raised_[0] == nullptr) return false;
  PyErr_Restore(raised_[0], raised_[1], raised_[2]);
  raised_[0] = raised_[1] = raised_[2] = nullptr;
  return true;
}

std::string PyEvents::name(JobOption option) const {
  switch (option) {
    case JobOption::kNullList: return "null_list=True";
    case JobOption::kRecursive: return "recursive=True";
    case JobOption::kSkipMissing: return "skip_missing=True";
    case JobOption::kAllowHighFpr: return "allow_high_fpr=True";
    case JobOption::kNoGrow: return "grow=False";
    case JobOption::kIgnoreKeyRules: return "ignore_key_rules=True";
    case JobOption::kNullData: return "null_data=True";
    case JobOption::kResume: return "resume=True";
    case JobOption::kReplayableStdin: return "replayable_stdin=True";
    case JobOption::kExact: return "exact=True";
    case JobOption::kStrictJson: return "strict_json=True";
    default: return JobEvents::name(option) + "=";
  }
}

std::string PyEvents::given(JobOption option) const {
  const auto value = values_.find(option);
  return value == values_.end() ? name(option) : name(option) + value->second;
}

}  // namespace gdedup::python
