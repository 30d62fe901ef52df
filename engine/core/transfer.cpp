#include "engine/core/transfer.h"

#include <array>
#include <cstring>
#include <mutex>

#include "engine/core/error.h"

namespace spire {
namespace {

// Registration happens during static initialisation of backend libraries, lookups later; the
// mutex covers a backend loaded with dlopen while other threads run ops.
std::mutex& table_mutex() {
  static auto* m = new std::mutex();
  return *m;
}

using CopyTable = std::array<std::array<CopyFn, kNumDeviceKinds>, kNumDeviceKinds>;

CopyTable& copy_table() {
  static auto* t = [] {
    auto* table = new CopyTable();
    (*table)[int(DeviceKind::CPU)][int(DeviceKind::CPU)] = [](const void* src, Device, void* dst,
                                                              Device, size_t bytes, bool) {
      if (bytes) std::memcpy(dst, src, bytes);
    };
    return table;
  }();
  return *t;
}

std::array<BackendHooks, kNumDeviceKinds>& backends() {
  static auto* b = new std::array<BackendHooks, kNumDeviceKinds>();
  return *b;
}

const char* kind_name(DeviceKind k) { return k == DeviceKind::CPU ? "cpu" : "cuda"; }

const BackendHooks* hooks_for(DeviceKind k) {
  std::lock_guard lock(table_mutex());
  const BackendHooks& h = backends()[int(k)];
  return h.device_count ? &h : nullptr;
}

}  // namespace

void register_copy(DeviceKind from, DeviceKind to, CopyFn fn) {
  std::lock_guard lock(table_mutex());
  copy_table()[int(from)][int(to)] = std::move(fn);
}

bool has_copy(DeviceKind from, DeviceKind to) {
  std::lock_guard lock(table_mutex());
  return bool(copy_table()[int(from)][int(to)]);
}

void copy_bytes(const void* src, Device from, void* dst, Device to, size_t bytes, bool non_blocking) {
  CopyFn fn;
  {
    std::lock_guard lock(table_mutex());
    fn = copy_table()[int(from.kind)][int(to.kind)];
  }
  SPIRE_CHECK(fn, DeviceError, "no copy from ", from.str(), " to ", to.str(),
              ": this build has no backend for it (the CUDA backend needs SPIRE_CUDA=ON and "
              "libspire_cuda loaded)");
  fn(src, from, dst, to, bytes, non_blocking);
}

void register_backend(DeviceKind kind, BackendHooks hooks) {
  std::lock_guard lock(table_mutex());
  backends()[int(kind)] = std::move(hooks);
}

const BackendHooks& backend_hooks(DeviceKind kind, const char* what) {
  const BackendHooks* h = hooks_for(kind);
  SPIRE_CHECK(h, DeviceError, what, ": this build has no ", kind_name(kind),
              " backend (build with SPIRE_CUDA=ON and link libspire_cuda)");
  return *h;
}

bool backend_loaded(DeviceKind kind) { return kind == DeviceKind::CPU || hooks_for(kind) != nullptr; }

int device_count(DeviceKind kind) {
  if (kind == DeviceKind::CPU) return 1;
  const BackendHooks* h = hooks_for(kind);
  return h ? h->device_count() : 0;
}

bool device_available(Device d) { return d.index >= 0 && d.index < device_count(d.kind); }

std::string unavailable_reason(DeviceKind kind) {
  if (device_count(kind) > 0) return "";
  const BackendHooks* h = hooks_for(kind);
  if (!h) return detail::cat("this build has no ", kind_name(kind), " backend (SPIRE_CUDA=OFF)");
  std::string why = h->unavailable_reason ? h->unavailable_reason() : std::string();
  return "no " + h->name + " device: " + (why.empty() ? "none found" : why);
}

void require_device(Device d, const char* what) {
  if (device_available(d)) return;
  const BackendHooks* h = hooks_for(d.kind);
  SPIRE_CHECK(h, DeviceError, what, ": device ", d.str(), " is not available: this build has no ",
              kind_name(d.kind), " backend (build with SPIRE_CUDA=ON and link libspire_cuda)");
  int n = h->device_count();
  SPIRE_CHECK(n > 0, DeviceError, what, ": device ", d.str(), " is not available: ",
              unavailable_reason(d.kind));
  throw DeviceError(detail::cat(what, ": device ", d.str(), " is out of range: this machine has ", n,
                                " ", h->name, " device", n == 1 ? "" : "s", " (", h->name, ":0 to ",
                                h->name, ":", n - 1, ")"));
}

void synchronize(Device d) {
  if (d.kind == DeviceKind::CPU) return;
  require_device(d, "synchronize");
  const BackendHooks* h = hooks_for(d.kind);
  if (h->synchronize) h->synchronize(d.index);
}

std::string device_description(Device d) {
  if (d.kind == DeviceKind::CPU) return "cpu";
  const BackendHooks* h = hooks_for(d.kind);
  if (!h || !device_available(d) || !h->device_name) return d.str();
  return d.str() + " (" + h->device_name(d.index) + ")";
}

bool cuda_available() { return device_count(DeviceKind::CUDA) > 0; }
int cuda_device_count() { return device_count(DeviceKind::CUDA); }

DeviceGuard::DeviceGuard(Device d) : device_(d) {
  if (d.kind == DeviceKind::CPU) return;
  const BackendHooks* h = hooks_for(d.kind);
  if (!h || !h->current_device || !h->set_device) return;
  previous_ = h->current_device();
  if (previous_ != d.index) h->set_device(d.index);
}

DeviceGuard::~DeviceGuard() {
  if (previous_ < 0 || previous_ == device_.index) return;
  if (const BackendHooks* h = hooks_for(device_.kind)) h->set_device(previous_);
}

}  // namespace spire
