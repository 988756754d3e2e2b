// gdedup::Error to Python: each ErrorKind raises its class of the
// gdedup.Error hierarchy (python/gdedup/_errors.py), with the engine's
// message and the kind's numbers as attributes.
#pragma once

#include <initializer_list>

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

}  // namespace gdedup::python
