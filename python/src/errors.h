// gdedup::Error to Python: each ErrorKind raises its class of the
// gdedup.Error hierarchy (python/gdedup/_errors.py), with the engine's
// message and the kind's numbers as attributes.
#pragma once

#include <nanobind/nanobind.h>

namespace gdedup::python {

namespace nb = nanobind;

// Registers the translator and _core._set_error_classes, through which the
// package hands over its classes, by kind name, at import.
void bind_errors(nb::module_& m);

}  // namespace gdedup::python
