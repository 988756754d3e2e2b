// threads= (and filter_threads=) as every class and function of the module
// takes it.
#pragma once

#include <optional>

namespace gdedup::python {

// The count the library takes: None is its default (0 inside the library);
// 0 and counts past kMaxJobThreads are refused as a job refuses them
// (check_thread_count). `name` is the argument's ("threads").
unsigned thread_count(std::optional<unsigned> threads, const char* name = "threads");

}  // namespace gdedup::python
