// gdedup::Error to Python: each ErrorKind raises its class of the
// gdedup.Error hierarchy (python/gdedup/_errors.py), with the engine's
// message and the kind's numbers as attributes.
#pragma once

#include <initializer_list>
#include <string>

#include <nanobind/nanobind.h>

#include "gdedup/error.h"

namespace gdedup::python {

namespace nb = nanobind;

// Registers the translator and _core._set_error_classes, through which the
// package hands over its classes, by kind name, at import.
void bind_errors(nb::module_& m);

// An attribute an error carries besides kind, needed and available.
struct ErrorAttribute {
  const char* name;
  nb::handle value;
};

// Sets e as the Python error of its kind's class, with `extra` attributes
// (a caller then throws nb::python_error). The translator's path, for a
// caller whose error carries more than the engine's numbers.
void set_error(const Error& e, std::initializer_list<ErrorAttribute> extra = {});

// Runs `work`; a file of the other mode it refuses (ErrorKind::other_mode:
// a set where a Bloom filter's file belongs, or the other way round) is told
// with `advice`, how Python takes that file, after the engine's words.
template <class Work>
auto advise_other_mode(const std::string& advice, Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::other_mode) throw;
    throw Error(std::string(e.what()) + "; " + advice, e);
  }
}

}  // namespace gdedup::python
