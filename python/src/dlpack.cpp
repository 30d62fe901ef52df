// DLPack exchange: Tensor.__dlpack__ / __dlpack_device__ (both the versioned 1.x capsule and the
// legacy one) and spire._C._from_dlpack_capsule (spire.from_dlpack in Python picks the protocol).
// Memory is shared both ways; the capsule keeps the producer alive until the consumer's deleter runs.
#include "common.h"
#include "dlpack_abi.h"
#include "engine/core/error.h"
#include "engine/ops/shape.h"

namespace spire::python {
namespace {

constexpr const char* kVersioned = "dltensor_versioned";
constexpr const char* kUsedVersioned = "used_dltensor_versioned";
constexpr const char* kLegacy = "dltensor";
constexpr const char* kUsedLegacy = "used_dltensor";

DLDataType to_dl(DType t) {
  switch (t) {
    case DType::Bool: return {kDLBool, 8, 1};
    case DType::Int32: return {kDLInt, 32, 1};
    case DType::Int64: return {kDLInt, 64, 1};
    case DType::Float32: return {kDLFloat, 32, 1};
    case DType::Float64: return {kDLFloat, 64, 1};
    case DType::Complex64: return {kDLComplex, 64, 1};
    case DType::Complex128: return {kDLComplex, 128, 1};
  }
  return {kDLFloat, 32, 1};
}

DType from_dl(DLDataType d) {
  SPIRE_CHECK(d.lanes == 1, DTypeError, "from_dlpack: vector types (lanes=", d.lanes, ") are not supported");
  if (d.code == kDLBool && d.bits == 8) return DType::Bool;
  if (d.code == kDLInt && d.bits == 32) return DType::Int32;
  if (d.code == kDLInt && d.bits == 64) return DType::Int64;
  if (d.code == kDLFloat && d.bits == 32) return DType::Float32;
  if (d.code == kDLFloat && d.bits == 64) return DType::Float64;
  if (d.code == kDLComplex && d.bits == 64) return DType::Complex64;
  if (d.code == kDLComplex && d.bits == 128) return DType::Complex128;
  throw DTypeError("from_dlpack: DLPack dtype (code " + std::to_string(d.code) + ", " + std::to_string(d.bits) +
                   " bits) has no spire equivalent; allowed: bool, int32, int64, float32, float64, complex64, "
                   "complex128");
}

DLDevice to_dl(Device d) {
  if (d.kind == DeviceKind::CUDA) return {kDLCUDA, d.index};
  return {kDLCPU, 0};
}

// What an exported capsule owns: the tensor (keeping its storage alive) and the shape arrays.
struct Export {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensorVersioned versioned{};
  DLManagedTensor legacy{};
};

void fill(DLTensor& dl, Export* e) {
  const Tensor& t = e->tensor;
  dl.data = t.raw_data();
  dl.device = to_dl(t.device());
  dl.ndim = int32_t(t.dim());
  dl.dtype = to_dl(t.dtype());
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;
}

py::capsule export_capsule(const Tensor& t, bool versioned) {
  auto* e = new Export{t.detach(), t.shape(), t.strides()};
  if (versioned) {
    e->versioned.version = {SPIRE_DLPACK_MAJOR_VERSION, SPIRE_DLPACK_MINOR_VERSION};
    e->versioned.manager_ctx = e;
    e->versioned.deleter = [](DLManagedTensorVersioned* self) { delete static_cast<Export*>(self->manager_ctx); };
    e->versioned.flags = 0;
    fill(e->versioned.dl_tensor, e);
    PyObject* cap = PyCapsule_New(&e->versioned, kVersioned, [](PyObject* c) {
      if (PyCapsule_IsValid(c, kVersioned)) {  // never consumed
        auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, kVersioned));
        if (m && m->deleter) m->deleter(m);
      } else {
        PyErr_Clear();
      }
    });
    if (!cap) throw py::error_already_set();
    return py::reinterpret_steal<py::capsule>(cap);
  }
  e->legacy.manager_ctx = e;
  e->legacy.deleter = [](DLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); };
  fill(e->legacy.dl_tensor, e);
  PyObject* cap = PyCapsule_New(&e->legacy, kLegacy, [](PyObject* c) {
    if (PyCapsule_IsValid(c, kLegacy)) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, kLegacy));
      if (m && m->deleter) m->deleter(m);
    } else {
      PyErr_Clear();
    }
  });
  if (!cap) throw py::error_already_set();
  return py::reinterpret_steal<py::capsule>(cap);
}

Tensor wrap(const DLTensor& dl, std::shared_ptr<void> owner) {
  DType dtype = from_dl(dl.dtype);
  Device device;
  switch (dl.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost: device = kCPU; break;
    case kDLCUDA:
    case kDLCUDAManaged: device = Device{DeviceKind::CUDA, dl.device.device_id}; break;
    default:
      throw DeviceError("from_dlpack: DLPack device type " + std::to_string(int(dl.device.device_type)) +
                        " is not supported; allowed: CPU (1) and CUDA (2)");
  }
  Shape shape(dl.shape, dl.shape + dl.ndim);
  Shape strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(shape);
  if (numel_of(shape) == 0) return empty(shape, dtype, device);
  for (int64_t s : strides)
    SPIRE_CHECK(s >= 0, ValueError, "from_dlpack: negative strides ", shape_str(strides),
                " cannot be shared; make a contiguous copy in the producer first");
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  return from_blob(data, shape, strides, dtype, device, std::move(owner));
}

Tensor from_capsule(py::capsule cap) {
  PyObject* c = cap.ptr();
  if (PyCapsule_IsValid(c, kVersioned)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, kVersioned));
    SPIRE_CHECK(m->version.major == SPIRE_DLPACK_MAJOR_VERSION, ValueError, "from_dlpack: DLPack version ",
                m->version.major, ".", m->version.minor, " is not supported (spire reads 1.x)");
    std::shared_ptr<void> owner(m, [](void* p) {
      auto* mt = static_cast<DLManagedTensorVersioned*>(p);
      if (mt->deleter) mt->deleter(mt);
    });
    PyCapsule_SetName(c, kUsedVersioned);  // consumed: from here on `owner` alone frees it
    return wrap(m->dl_tensor, std::move(owner));
  }
  if (PyCapsule_IsValid(c, kLegacy)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, kLegacy));
    std::shared_ptr<void> owner(m, [](void* p) {
      auto* mt = static_cast<DLManagedTensor*>(p);
      if (mt->deleter) mt->deleter(mt);
    });
    PyCapsule_SetName(c, kUsedLegacy);  // consumed: from here on `owner` alone frees it
    return wrap(m->dl_tensor, std::move(owner));
  }
  PyErr_Clear();
  throw ValueError("from_dlpack: expected an unconsumed DLPack capsule ('dltensor' or 'dltensor_versioned')");
}

}  // namespace

void bind_dlpack(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__dlpack__", [](const Tensor& t, py::handle stream, py::handle max_version, py::handle dl_device,
                           py::handle copy_) {
        if (!dl_device.is_none()) {
          auto dev = dl_device.cast<std::pair<int, int>>();
          DLDevice mine = to_dl(t.device());
          SPIRE_CHECK(dev.first == int(mine.device_type) && dev.second == mine.device_id, DeviceError,
                      "__dlpack__: the tensor is on ", t.device().str(), "; copying to DLPack device (",
                      dev.first, ", ", dev.second, ") is not available");
        }
        bool versioned = false;
        if (!max_version.is_none()) versioned = max_version.cast<std::pair<int, int>>().first >= 1;
        Tensor src = t;
        if (!copy_.is_none() && copy_.cast<bool>()) src = copy(t.detach());
        return export_capsule(src, versioned);
      },
      py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
      py::arg("dl_device") = py::none(), py::arg("copy") = py::none());
  cls.def("__dlpack_device__", [](const Tensor& t) {
    DLDevice d = to_dl(t.device());
    return py::make_tuple(int(d.device_type), d.device_id);
  });
  m.def("_from_dlpack_capsule", &from_capsule, py::arg("capsule"));
}

}  // namespace spire::python
