// Keys from NumPy arrays of bytes (dtype S) and of str (dtype U), read in
// place through the buffer protocol and hashed without the GIL, as Arrow
// arrays are: no Python object is made for each item.
#pragma once

#include <nanobind/nanobind.h>

#include "key_input.h"

namespace gdedup::python {

// Adds the keys of `keys` when it is a 1-dimensional NumPy array of dtype S
// or U (in the machine's byte order), and returns whether it did. Each item
// is its value as NumPy gives it (numpy.bytes_, numpy.str_): without the
// NULs that pad it to the dtype's width; a U item as UTF-8.
bool add_numpy_text(nb::handle keys, KeyInput& input);

}  // namespace gdedup::python
