#include "answers.h"

#include <nanobind/ndarray.h>

namespace gdedup::python {

nb::object bool_array(std::unique_ptr<uint8_t[]> answers, size_t n) {
  uint8_t* data = answers.release();
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<uint8_t*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, bool, nb::ndim<1>>(data, {n}, owner));
}

}  // namespace gdedup::python
