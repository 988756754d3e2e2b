#include "fs/loaded_module.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>

namespace gdedup::fs {
namespace {

std::string loader_error() {
  const char* words = ::dlerror();
  return words ? words : "no reason given";
}

std::string folder_of(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? std::string(".") : file.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace

void* load_module(const std::string& path, std::string& error) {
  void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module) error = loader_error();
  return module;
}

void* module_symbol(void* module, const char* name, std::string& error) {
  ::dlerror();  // a null symbol is told from a missing one by dlerror only
  void* symbol = ::dlsym(module, name);
  if (!symbol) error = loader_error();
  return symbol;
}

std::string folder_of_code(const void* address) {
  Dl_info info{};
  link_map* map = nullptr;
  if (::dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0 && map &&
      map->l_name && map->l_name[0] != '\0') {
    return folder_of(map->l_name);  // as it was loaded: relative to the folder of then, if so
  }
  // The program itself has no name in its link map (dladdr gives argv[0],
  // which may be relative or a name found on PATH).
  char program[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", program, sizeof program - 1);
  if (n <= 0) return {};
  return folder_of(std::string(program, static_cast<size_t>(n)));
}

}  // namespace gdedup::fs
