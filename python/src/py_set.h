// gdedup.Set: a LiveSet (gdedup/live_set.h) with the key rules its keys are
// made by, taking keys from Python (key_input.h) and answering with NumPy arrays, with the
// methods of gdedup.Filter.
#pragma once

#include <nanobind/nanobind.h>

namespace gdedup::python {

namespace nb = nanobind;

void bind_set(nb::module_& m);

}  // namespace gdedup::python
