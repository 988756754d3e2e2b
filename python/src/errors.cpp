#include "errors.h"

#include <exception>
#include <initializer_list>
#include <string>

#include "gdedup/error.h"

namespace gdedup::python {
namespace {

// The classes by kind name. Held for the life of the interpreter: the
// translator may run until its end.
PyObject* g_classes = nullptr;

const char* kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::failure: return "failure";
    case ErrorKind::invalid_argument: return "invalid_argument";
    case ErrorKind::io: return "io";
    case ErrorKind::damaged: return "damaged";
    case ErrorKind::is_checkpoint: return "is_checkpoint";
    case ErrorKind::other_mode: return "other_mode";
    case ErrorKind::out_of_memory: return "out_of_memory";
    case ErrorKind::thread_limit: return "thread_limit";
    case ErrorKind::plan_infeasible: return "plan_infeasible";
    case ErrorKind::device_memory: return "device_memory";
    case ErrorKind::no_device: return "no_device";
    case ErrorKind::record_too_long: return "record_too_long";
    case ErrorKind::broken_pipe: return "broken_pipe";
    case ErrorKind::unsupported_format: return "unsupported_format";
    case ErrorKind::input_changed: return "input_changed";
    case ErrorKind::resume_mismatch: return "resume_mismatch";
    case ErrorKind::key_rules_mismatch: return "key_rules_mismatch";
    case ErrorKind::filter_overfull: return "filter_overfull";
    case ErrorKind::set_full: return "set_full";
    case ErrorKind::decoder_memory: return "decoder_memory";
  }
  return "failure";
}

}  // namespace

void set_error(const Error& e, std::initializer_list<ErrorAttribute> extra) {
  PyObject* cls = g_classes ? PyDict_GetItemString(g_classes, kind_name(e.kind())) : nullptr;
  if (cls == nullptr) cls = g_classes ? PyDict_GetItemString(g_classes, "failure") : nullptr;
  if (cls == nullptr) {  // the package was not imported: _core used alone
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return;
  }
  // Paths in messages may hold bytes that are not UTF-8.
  const std::string what = e.what();
  PyObject* message = PyUnicode_DecodeUTF8(what.data(), static_cast<Py_ssize_t>(what.size()),
                                           "backslashreplace");
  if (message == nullptr) return;
  PyObject* error = PyObject_CallOneArg(cls, message);
  Py_DECREF(message);
  if (error == nullptr) return;  // the call's own exception is raised instead
  bool ok = PyObject_SetAttrString(error, "kind", nb::str(kind_name(e.kind())).ptr()) == 0 &&
            PyObject_SetAttrString(error, "needed", nb::int_(e.needed()).ptr()) == 0 &&
            PyObject_SetAttrString(error, "available", nb::int_(e.available()).ptr()) == 0;
  for (const ErrorAttribute& attribute : extra) {
    ok = ok && PyObject_SetAttrString(error, attribute.name, attribute.value.ptr()) == 0;
  }
  if (ok) PyErr_SetObject(cls, error);
  Py_DECREF(error);
}

void bind_errors(nb::module_& m) {
  m.def("_set_error_classes", [](nb::dict classes) {
    Py_XDECREF(g_classes);
    g_classes = classes.inc_ref().ptr();
  });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      set_error(e);
    }
  });
}

}  // namespace gdedup::python
