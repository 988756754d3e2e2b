// What a job or a new filter says, in Python's words (gdedup/job.h,
// JobEvents): options named as the keyword arguments ("capacity=",
// "grow=False"), notes to logging.getLogger("gdedup"), warnings as
// RuntimeWarning, progress to a callable, and a stop that a KeyboardInterrupt
// or a failing callable asks for (until the job puts its results in place).
// Every call into Python takes the GIL: a job calls from its own threads.
#pragma once

#include <atomic>
#include <map>
#include <string>

#include <nanobind/nanobind.h>

#include "gdedup/job.h"

namespace gdedup::python {

namespace nb = nanobind;

// Thrown through the job from a call into Python that raised: the Python
// exception is kept by the PyEvents, to be raised when the job has ended.
struct PythonRaised {};

class PyEvents : public JobEvents {
 public:
  PyEvents() = default;
  // `progress`: a callable taking a dict of counts, or None.
  PyEvents(nb::object progress, bool checkpointing)
      : progress_(std::move(progress)), checkpointing_(checkpointing) {}
  ~PyEvents() override;
  PyEvents(const PyEvents&) = delete;
  PyEvents& operator=(const PyEvents&) = delete;

  void info(const std::string& message) override;
  void warn(const std::string& message) override;
  void progress(const Progress& progress, size_t layers) override;
  const std::atomic<bool>* stop() const override { return &stop_; }
  // From now on a KeyboardInterrupt, or an exception a callable raises, is
  // kept but no longer stops the job: its results are being put in place.
  void publishing() override { publishing_.store(true); }
  std::string name(JobOption option) const override;
  std::string given(JobOption option) const override;

  // The value the user gave, as given() quotes it after the name: "1e-06".
  void set_given(JobOption option, std::string value) { values_[option] = std::move(value); }

  // With the GIL: keeps the Python exception now set (KeyboardInterrupt,
  // or one a callable raised), the first only, and asks the job to stop:
  // at its next batch with a checkpoint when it takes them, else by
  // PythonRaised thrown from the next progress call.
  void keep_raised();
  // With the GIL: the exception kept, set again as Python's current one;
  // false when there is none.
  bool restore_raised();

 private:
  nb::object progress_;
  bool checkpointing_ = false;
  std::map<JobOption, std::string> values_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> publishing_{false};
  PyObject* raised_[3] = {nullptr, nullptr, nullptr};  // type, value, traceback
};

}  // namespace gdedup::python

namespace gdedup::python {

// fn() with the GIL held, its PythonRaised turned back into the Python
// exception that `events` kept.
template <class Fn>
auto speaking(PyEvents& events, Fn fn) {
  try {
    return fn();
  } catch (const PythonRaised&) {
    events.restore_raised();
    throw nb::python_error();
  }
}

}  // namespace gdedup::python
