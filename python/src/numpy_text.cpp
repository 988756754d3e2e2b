#include "numpy_text.h"

#include <cctype>
#include <cstring>
#include <string>

namespace gdedup::python {
namespace {

// A held buffer of fixed-width items: S items are bytes, U items UCS-4
// code points. Released with the GIL held, as the KeyInput is dropped.
class NumpyTextPart : public HashedBy<NumpyTextPart> {
 public:
  NumpyTextPart(const Py_buffer& view, bool ucs4)
      : HashedBy(static_cast<uint64_t>(view.shape[0])), view_(view), ucs4_(ucs4) {}
  ~NumpyTextPart() override { PyBuffer_Release(&view_); }
  NumpyTextPart(const NumpyTextPart&) = delete;
  NumpyTextPart& operator=(const NumpyTextPart&) = delete;

 private:
  friend HashedBy<NumpyTextPart>;
  template <class Hashed>
  void hash_each(uint64_t begin, uint64_t count, const KeyHasher& hasher, std::string& scratch,
                 Hashed* out) const {
    const auto* base = static_cast<const char*>(view_.buf);
    const auto width = static_cast<size_t>(view_.itemsize);
    for (uint64_t i = 0; i < count; ++i) {
      const char* item = base + static_cast<Py_ssize_t>(begin + i) * view_.strides[0];
      const std::string_view key = ucs4_ ? utf8_of(item, width / 4, begin + i)
                                         : std::string_view(item, unpadded(item, width));
      out[i] = record_key<Hashed>(hasher, key, scratch, begin + i);
    }
  }

  // The bytes of an S item without the NULs that pad its end.
  static size_t unpadded(const char* item, size_t width) {
    while (width > 0 && item[width - 1] == 0) --width;
    return width;
  }

  // A U item of `width` code points, without the NULs that pad its end, as
  // UTF-8 (in text_, valid until the next item). A code point that UTF-8
  // cannot hold (a lone surrogate) is refused as str.encode refuses it,
  // with Python's own error.
  std::string_view utf8_of(const char* item, size_t width, uint64_t index) const {
    uint32_t c = 0;
    while (width > 0 && (std::memcpy(&c, item + 4 * (width - 1), 4), c == 0)) --width;
    text_.clear();
    for (size_t j = 0; j < width; ++j) {
      std::memcpy(&c, item + 4 * j, 4);
      if (c < 0x80) {
        text_ += static_cast<char>(c);
      } else if (c < 0x800) {
        text_ += static_cast<char>(0xC0 | (c >> 6));
        text_ += static_cast<char>(0x80 | (c & 0x3F));
      } else if (c < 0x10000 && (c < 0xD800 || c > 0xDFFF)) {
        text_ += static_cast<char>(0xE0 | (c >> 12));
        text_ += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        text_ += static_cast<char>(0x80 | (c & 0x3F));
      } else if (c >= 0x10000 && c <= 0x10FFFF) {
        text_ += static_cast<char>(0xF0 | (c >> 18));
        text_ += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        text_ += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        text_ += static_cast<char>(0x80 | (c & 0x3F));
      } else {
        refuse(item, width, index);
      }
    }
    return text_;
  }

  [[noreturn]] static void refuse(const char* item, size_t width, uint64_t index) {
    nb::gil_scoped_acquire gil;
    nb::object text = nb::steal(
        PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, item, static_cast<Py_ssize_t>(width)));
    if (text.is_valid()) {
      Py_ssize_t size = 0;
      if (PyUnicode_AsUTF8AndSize(text.ptr(), &size) != nullptr) {
        throw nb::type_error(("key " + std::to_string(index) + " of the NumPy array is not "
                              "text UTF-8 can hold").c_str());
      }
    }
    throw nb::python_error();
  }

  Py_buffer view_;
  bool ucs4_;
  mutable std::string text_;  // the UTF-8 of a U item; one thread hashes a part
};

}  // namespace

bool add_numpy_text(nb::handle keys, KeyInput& input) {
  if (!nb::hasattr(keys, "dtype") || !nb::hasattr(keys.attr("dtype"), "kind")) return false;
  const std::string kind = nb::str(keys.attr("dtype").attr("kind")).c_str();
  if (kind != "S" && kind != "U") return false;
  Py_buffer view;
  if (PyObject_GetBuffer(keys.ptr(), &view, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return false;  // read item by item instead
  }
  // "10s" or "10w": no byte-order mark, so the machine's order.
  const char* format = view.format != nullptr ? view.format : "";
  const size_t length = std::strlen(format);
  const char type = kind == "S" ? 's' : 'w';
  if (view.ndim != 1 || length < 2 || !std::isdigit(static_cast<unsigned char>(format[0])) ||
      format[length - 1] != type) {
    PyBuffer_Release(&view);
    return false;
  }
  if (view.shape[0] == 0) {
    PyBuffer_Release(&view);
  } else {
    input.add(std::make_unique<NumpyTextPart>(view, kind == "U"));
  }
  input.has_records = true;
  return true;
}

}  // namespace gdedup::python
