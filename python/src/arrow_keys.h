// Keys from Arrow arrays through the Arrow PyCapsule interface
// (__arrow_c_array__, __arrow_c_stream__): string, binary, large_string,
// large_binary, string_view and binary_view arrays, and streams of them
// (chunked arrays, polars and pandas columns), read in place.
#pragma once

#include <nanobind/nanobind.h>

#include "key_input.h"

namespace gdedup::python {

// Adds the keys of `keys` when it exports Arrow data, and returns whether it
// did. Throws nb::type_error for an Arrow type that holds no keys (naming
// it, and the types the caller takes: `accepted`), and UsageError for an
// array with nulls, which have no key.
bool add_arrow(nb::handle keys, KeyInput& input, const char* accepted);

}  // namespace gdedup::python
