// Loading plugins: dlopen with the registry in load mode (core/registry.cpp), so that a refused
// definition is reported here, after the loader has returned, rather than thrown inside it.
#include "engine/custom/library.h"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "engine/core/error.h"
#include "engine/core/op.h"

namespace spire {
namespace {

// Libraries loaded so far, by handle (dlopen hands out the same one for the same file).
std::map<void*, std::vector<std::string>>& loaded() {
  static auto* m = new std::map<void*, std::vector<std::string>>();
  return *m;
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

}  // namespace

std::vector<std::string> load_library(const std::string& path) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::error_code ec;
  SPIRE_CHECK(std::filesystem::is_regular_file(path, ec), IOError, "load_library: no such file '", path,
              "'");
  // Already loaded: dlopen only counts a reference, without running the initialisers again.
  if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    auto it = loaded().find(h);
    if (it != loaded().end()) {
      dlclose(h);
      return it->second;
    }
    dlclose(h);
  }
  OpRegistry& reg = OpRegistry::get();
  reg.begin_load();
  // RTLD_NOW: a missing symbol fails here, with the loader naming it, not at the first call.
  // RTLD_LOCAL: two plugins may use the same names for their own helpers.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto [errors, names] = reg.end_load(/*keep=*/handle != nullptr);
  if (!handle) throw IOError("load_library: cannot load '" + path + "': " + dl_error());
  if (!errors.empty()) {
    dlclose(handle);  // the registry dropped everything that pointed into it
    std::string msg = "load_library: '" + path + "' was not loaded:";
    for (auto& e : errors) msg += " " + e + ";";
    msg.pop_back();
    throw ValueError(msg);
  }
  loaded()[handle] = names;
  return names;
}

}  // namespace spire
