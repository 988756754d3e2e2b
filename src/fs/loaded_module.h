// Shared modules loaded while the program runs (dlopen(3)), for the parts
// of the engine whose libraries are too heavy to load at every start (the
// Parquet module, src/columnar/parquet_module.cpp).
#pragma once

#include <string>

namespace gdedup::fs {

// The shared module at `path`, loaded with its own symbols kept to itself
// (RTLD_LOCAL) and bound at once (RTLD_NOW); null with the loader's words in
// `error` where it cannot be (missing, not an ELF object, a library it needs
// missing). A module stays loaded for the process's life.
void* load_module(const std::string& path, std::string& error);

// The address of `name` in a module load_module gave; null with the
// loader's words in `error` where it has none.
void* module_symbol(void* module, const char* name, std::string& error);

// The folder of the file whose code holds `address`: a shared library's
// (the Python module's, when the engine is linked into it), or the running
// program's (/proc/self/exe) when the address is in the program itself.
// Empty where it cannot be told.
std::string folder_of_code(const void* address);

}  // namespace gdedup::fs
