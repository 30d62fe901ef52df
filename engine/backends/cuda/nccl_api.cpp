#include "engine/backends/cuda/nccl_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "engine/core/error.h"

namespace spire::cuda {
namespace {

template <class F>
void bind(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  SPIRE_CHECK(out, DeviceError, "nccl: ", name, " is missing from the loaded libnccl.so.2 (NCCL ",
              NCCL_MAJOR, ".", NCCL_MINOR, " or later is needed)");
}

NcclApi load() {
  void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw DeviceError(std::string("nccl: cannot load libnccl.so.2 (") + (why ? why : "unknown reason") +
                      "); collectives on CUDA tensors need NCCL: install libnccl2, or put its folder on "
                      "LD_LIBRARY_PATH");
  }
  NcclApi a{};
  bind(lib, "ncclGetUniqueId", a.GetUniqueId);
  bind(lib, "ncclCommInitRank", a.CommInitRank);
  bind(lib, "ncclCommDestroy", a.CommDestroy);
  bind(lib, "ncclCommAbort", a.CommAbort);
  bind(lib, "ncclCommGetAsyncError", a.CommGetAsyncError);
  bind(lib, "ncclGetLastError", a.GetLastError);
  bind(lib, "ncclGetErrorString", a.GetErrorString);
  bind(lib, "ncclCommSplit", a.CommSplit);
  bind(lib, "ncclCommUserRank", a.CommUserRank);
  bind(lib, "ncclCommCount", a.CommCount);
  bind(lib, "ncclAllReduce", a.AllReduce);
  bind(lib, "ncclReduceScatter", a.ReduceScatter);
  bind(lib, "ncclAllGather", a.AllGather);
  bind(lib, "ncclBroadcast", a.Broadcast);
  bind(lib, "ncclSend", a.Send);
  bind(lib, "ncclRecv", a.Recv);
  bind(lib, "ncclGroupStart", a.GroupStart);
  bind(lib, "ncclGroupEnd", a.GroupEnd);
  return a;  // the library stays loaded for the process's life
}

}  // namespace

const NcclApi& nccl() {
  static std::mutex m;
  static NcclApi api{};
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(m);
  if (!loaded) {
    api = load();  // throws and leaves `loaded` false: the next call says why again
    loaded = true;
  }
  return api;
}

}  // namespace spire::cuda
