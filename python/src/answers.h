// What add, test_and_set and contains answer, for a Filter and a Set alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <nanobind/nanobind.h>

namespace gdedup::python {

namespace nb = nanobind;

enum class Op {
  kAdd,         // test_and_set, answered with the count (or, for one key, whether it was new)
  kTestAndSet,  // answers: was present
  kContains,    // answers: present; read-only
};

// The answers of a batch as a NumPy bool array that owns them: the engine
// writes them where NumPy reads them.
nb::object bool_array(std::unique_ptr<uint8_t[]> answers, size_t n);

}  // namespace gdedup::python
