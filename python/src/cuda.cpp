// spire._C.cuda: the CUDA backend seen from Python. Devices (availability, names, the current
// one), memory statistics of the caching allocator, streams and events. The Tensor methods that
// move data (to, cuda, cpu, pin_memory) are bound with the Tensor in tensor.cpp.
#include "common.h"
#include "engine/core/allocator.h"
#include "engine/core/matmul_precision.h"
#include "engine/core/stream.h"
#include "engine/core/transfer.h"

namespace spire::python {
namespace {

int current_cuda_index() {
  if (!backend_loaded(DeviceKind::CUDA)) return 0;
  const BackendHooks& h = backend_hooks(DeviceKind::CUDA, "current_device");
  return h.current_device ? h.current_device() : 0;
}

// None (the current device), an index, "cuda:1" or a Device; always a CUDA device.
Device cuda_device(py::handle h, const char* what) {
  if (h.is_none()) return Device{DeviceKind::CUDA, current_cuda_index()};
  if (PyLong_Check(h.ptr())) return Device{DeviceKind::CUDA, h.cast<int>()};
  Device d = py::isinstance<Device>(h) ? h.cast<Device>() : Device::parse(h.cast<std::string>());
  SPIRE_CHECK(d.kind == DeviceKind::CUDA, DeviceError, what, ": expected a cuda device, got ", d.str());
  return d;
}

// The caching allocator's numbers for one device; zeros where the backend is absent or the
// device was never used.
AllocatorStats stats_of(const Device& d) {
  if (!backend_loaded(DeviceKind::CUDA)) return {};
  return allocator_for(d).device_stats(d.index);
}

}  // namespace

void bind_cuda(py::module_& m) {
  // Engine-wide, read by the GPU's matrix products; at the top level as in PyTorch.
  m.def("set_float32_matmul_precision", &set_float32_matmul_precision, py::arg("precision"),
        "'highest' (default): float32 matrix products in full float32; 'high': a GPU may use TF32 "
        "tensor cores for them (faster, about 1e-3 relative accuracy). The CPU always uses float32.");
  m.def("get_float32_matmul_precision", &get_float32_matmul_precision);
  py::module_ cuda = m.def_submodule("cuda", "The CUDA backend, when this build has one and a GPU is present.");
  cuda.def("is_available", &cuda_available);
  cuda.def("device_count", &cuda_device_count);
  cuda.def("unavailable_reason", [] { return unavailable_reason(DeviceKind::CUDA); },
           "Why no CUDA device is usable ('' when one is): backend not built, no driver, no device.");
  cuda.def("current_device", &current_cuda_index, "Index of this thread's current CUDA device.");
  cuda.def("set_device", [](py::handle d) {
    Device dev = cuda_device(d, "set_device");
    require_device(dev, "set_device");
    backend_hooks(DeviceKind::CUDA, "set_device").set_device(dev.index);
  }, py::arg("device"));
  cuda.def("synchronize", [](py::handle d) {
    Device dev = cuda_device(d, "synchronize");
    py::gil_scoped_release release;
    synchronize(dev);
  }, py::arg("device") = py::none(), "Waits until all work queued on the device is done.");
  cuda.def("get_device_name", [](py::handle d) {
    Device dev = cuda_device(d, "get_device_name");
    require_device(dev, "get_device_name");
    const BackendHooks& h = backend_hooks(DeviceKind::CUDA, "get_device_name");
    return h.device_name(dev.index);
  }, py::arg("device") = py::none());
  cuda.def("get_device_description", [](py::handle d) { return device_description(cuda_device(d, "get_device_description")); },
           py::arg("device") = py::none(), "'cuda:0 (NVIDIA H100 80GB HBM3)'");

  // ---- memory
  cuda.def("memory_allocated", [](py::handle d) { return stats_of(cuda_device(d, "memory_allocated")).allocated; },
           py::arg("device") = py::none(), "Bytes held by tensors on the device.");
  cuda.def("memory_reserved", [](py::handle d) { return stats_of(cuda_device(d, "memory_reserved")).reserved; },
           py::arg("device") = py::none(), "Bytes the caching allocator holds from the device (in use + cached).");
  cuda.def("memory_cached", [](py::handle d) { return stats_of(cuda_device(d, "memory_cached")).cached; },
           py::arg("device") = py::none(), "Bytes reserved but not held by tensors, ready for reuse.");
  cuda.def("max_memory_allocated", [](py::handle d) { return stats_of(cuda_device(d, "max_memory_allocated")).peak; },
           py::arg("device") = py::none(), "Peak of memory_allocated since start or the last reset.");
  cuda.def("reset_peak_memory_stats", [](py::handle d) {
    Device dev = cuda_device(d, "reset_peak_memory_stats");
    if (backend_loaded(DeviceKind::CUDA)) allocator_for(dev).reset_peak_stats(dev.index);
  }, py::arg("device") = py::none());
  cuda.def("memory_stats", [](py::handle d) {
    AllocatorStats s = stats_of(cuda_device(d, "memory_stats"));
    py::dict out;
    out["allocated_bytes"] = s.allocated;
    out["reserved_bytes"] = s.reserved;
    out["cached_bytes"] = s.cached;
    out["peak_allocated_bytes"] = s.peak;
    out["num_alloc_hits"] = s.hits;
    out["num_alloc_misses"] = s.misses;
    return out;
  }, py::arg("device") = py::none(),
     "The caching allocator's statistics: bytes allocated, reserved, cached, peak; allocations that "
     "reused cached memory (hits) and that grew the pool (misses).");
  cuda.def("empty_cache", [] {
    if (!backend_loaded(DeviceKind::CUDA)) return;
    py::gil_scoped_release release;
    allocator_for(Device{DeviceKind::CUDA, 0}).empty_cache();
  }, "Waits for the devices and returns cached memory (device and page-locked host) to the system.");

  // ---- streams and events
  py::class_<Stream>(cuda, "Stream",
                     "A queue of work on one GPU: kernels and copies run in its order, and work on "
                     "different streams may overlap. Make it current with `with spire.cuda.stream(s):`.")
      .def(py::init([](py::handle d, int priority) { return Stream::create(cuda_device(d, "Stream"), priority); }),
           py::arg("device") = py::none(), py::arg("priority") = 0,
           "A stream on `device` (the current one by default); lower priorities run first (CUDA's "
           "convention: 0 is normal, negative is higher), clamped to what the device offers.")
      .def_property_readonly("device", &Stream::device)
      .def_property_readonly("priority", &Stream::priority)
      .def_property_readonly("cuda_stream", [](const Stream& s) { return reinterpret_cast<uintptr_t>(s.handle()); },
                             "The cudaStream_t as an integer (0: the legacy default stream).")
      .def("synchronize", [](const Stream& s) {
        py::gil_scoped_release release;
        s.synchronize();
      })
      .def("query", &Stream::query, "Whether all work queued on it so far is done.")
      .def("wait_event", [](const Stream& s, const Event& e) { s.wait(e); }, py::arg("event"))
      .def("wait_stream", [](const Stream& s, const Stream& o) { s.wait(o); }, py::arg("stream"))
      .def("record_event", [](const Stream& s, std::shared_ptr<Event> e) {
        if (!e) e = std::make_shared<Event>();
        e->record(s);
        return e;
      }, py::arg("event") = nullptr)
      .def("__eq__", [](const Stream& a, py::handle b) { return py::isinstance<Stream>(b) && a == b.cast<Stream>(); })
      .def("__hash__", [](const Stream& s) { return py::hash(py::int_(reinterpret_cast<uintptr_t>(s.handle()))); })
      .def("__repr__", [](const Stream& s) {
        return detail::cat("spire.cuda.Stream(device='", s.device().str(), "', cuda_stream=0x", std::hex,
                           reinterpret_cast<uintptr_t>(s.handle()), ")");
      });

  py::class_<Event, std::shared_ptr<Event>>(cuda, "Event",
                                            "A marker recorded on a stream: other streams can wait for it, "
                                            "the host can wait for it, and two of them time the work between.")
      .def(py::init([](bool timing) { return std::make_shared<Event>(timing); }), py::arg("enable_timing") = false)
      .def("record", [](Event& e, std::optional<Stream> s) {
        e.record(s ? *s : Stream::current(Device{DeviceKind::CUDA, current_cuda_index()}));
      }, py::arg("stream") = py::none(), "Records on `stream` (the current stream by default).")
      .def("synchronize", [](const Event& e) {
        py::gil_scoped_release release;
        e.synchronize();
      })
      .def("query", &Event::query)
      .def("wait", [](const Event& e, std::optional<Stream> s) {
        (s ? *s : Stream::current(Device{DeviceKind::CUDA, current_cuda_index()})).wait(e);
      }, py::arg("stream") = py::none(), "Makes `stream` (the current one by default) wait for this event.")
      .def("elapsed_time", &Event::elapsed_time, py::arg("end_event"),
           "Milliseconds from this event to `end_event` (both recorded with enable_timing=True and done).")
      .def_property_readonly("enable_timing", &Event::timing)
      .def_property_readonly("recorded", &Event::recorded);

  cuda.def("current_stream", [](py::handle d) { return Stream::current(cuda_device(d, "current_stream")); },
           py::arg("device") = py::none(), "This thread's current stream on the device.");
  cuda.def("default_stream", [](py::handle d) { return Stream::default_stream(cuda_device(d, "default_stream")); },
           py::arg("device") = py::none());
  cuda.def("set_stream", &Stream::set_current, py::arg("stream"),
           "Makes `stream` current on its device for this thread (prefer `with spire.cuda.stream(s):`).");
}

}  // namespace spire::python
