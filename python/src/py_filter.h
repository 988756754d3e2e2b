// gdedup.Filter: a LiveFilter (gdedup/live_filter.h) with the key rules its
// keys are made by, taking keys from Python (key_input.h) and answering with NumPy arrays.
#pragma once

#include <nanobind/nanobind.h>

namespace gdedup::python {

namespace nb = nanobind;

void bind_filter(nb::module_& m);

}  // namespace gdedup::python
