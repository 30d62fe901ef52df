#include "engine/core/tensor.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/node.h"
#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Shape broadcast_strides(const Tensor& t, const Shape& shape, int64_t core) {
  int64_t nd = int64_t(shape.size()), tb = t.dim() - core, lead = nd - tb;
  Shape st(size_t(nd), 0);
  for (int64_t i = 0; i < tb; ++i) st[size_t(lead + i)] = t.shape()[i] == 1 ? 0 : t.strides()[i];
  return st;
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (int64_t i = int64_t(s.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= std::max<int64_t>(s[i], 1);
  }
  return st;
}

int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  SPIRE_CHECK(axis >= -n && axis < n, ShapeError, op, ": axis ", axis, " is out of range for a ",
              ndim, "-d tensor (allowed: ", -n, " to ", n - 1, ")");
  return axis < 0 ? axis + n : axis;
}

int64_t Tensor::shape(int64_t axis) const {
  return impl_->shape[normalize_axis(axis, dim(), "shape")];
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (impl_->shape[i] == 1) continue;
    if (impl_->strides[i] != expected) return false;
    expected *= impl_->shape[i];
  }
  return true;
}

void* Tensor::raw_data() const {
  SPIRE_CHECK(!impl_->batched, ValueError,
              "a tensor inside vmap has no data of its own (shape ", shape_str(shape()),
              " per batch entry); use ops on it, or return it from the mapped function");
  return static_cast<char*>(impl_->storage->data()) + impl_->offset * int64_t(itemsize());
}

namespace {
// Visits every element's offset (in elements, relative to raw_data) in row-major order.
template <class F>
void for_each_offset(const Tensor& t, F&& f) {
  int64_t n = t.numel();
  if (n == 0) return;
  int64_t d = t.dim();
  std::vector<int64_t> idx(d, 0);
  int64_t off = 0;
  for (int64_t k = 0; k < n; ++k) {
    f(off);
    for (int64_t i = d - 1; i >= 0; --i) {
      if (++idx[i] < t.shape()[i]) {
        off += t.strides()[i];
        break;
      }
      off -= t.strides()[i] * (t.shape()[i] - 1);
      idx[i] = 0;
    }
  }
}

// t's values on the CPU: t itself there, else a copy (host-synchronous, so the values are final).
// Not recorded by autodiff: reading values is not part of any computation.
Tensor on_host(const Tensor& t) {
  if (t.device().kind == DeviceKind::CPU) return t;
  static const OpDef& to_device = op_def("to_device");
  return call1(to_device, {t.detach()}, Attrs{{"device", std::string("cpu")}});
}
}  // namespace

Scalar Tensor::item() const {
  SPIRE_CHECK(numel() == 1, ValueError, "item(): the tensor has ", numel(),
              " elements; only one-element tensors can be converted to a number");
  return visit_dtype(dtype(), [&]<class T>() -> Scalar {
    T v;
    // One element from a device: a plain blocking copy of its bytes (no op, no autodiff record).
    if (device().kind == DeviceKind::CPU) v = *static_cast<const T*>(raw_data());
    else copy_bytes(raw_data(), device(), &v, kCPU, sizeof(T));
    if constexpr (is_complex_v<T>) return Scalar(std::complex<double>(v));
    else if constexpr (std::is_same_v<T, bool>) return Scalar(v);
    else if constexpr (std::is_integral_v<T>) return Scalar(int64_t(v));
    else return Scalar(double(v));
  });
}

std::vector<double> Tensor::to_vector() const {
  Tensor h = on_host(*this);
  std::vector<double> out;
  out.reserve(numel());
  visit_dtype(dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(h.raw_data());
    for_each_offset(h, [&](int64_t o) {
      if constexpr (is_complex_v<T>) out.push_back(double(p[o].real()));
      else out.push_back(double(p[o]));
    });
  });
  return out;
}

Tensor& Tensor::set_requires_grad(bool on) {
  SPIRE_CHECK(!on || is_inexact(dtype()), DTypeError, "requires_grad: only floating point and complex "
              "tensors can require gradients, got ", name(dtype()));
  SPIRE_CHECK(is_leaf(), AutodiffError, "requires_grad can only be set on leaf tensors; this one was "
              "computed by '", grad_fn()->name(), "' (use detach() to make a new leaf)");
  SPIRE_CHECK(!on || !is_batched(), AutodiffError,
              "grad inside vmap is not supported yet: take the gradient of the mapped function's "
              "sum (outside vmap), or use jacrev / jacfwd");
  impl_->meta().requires_grad = on;
  return *this;
}

const std::shared_ptr<Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<Node> none;
  return impl_->autograd ? impl_->autograd->grad_fn : none;
}

Tensor Tensor::grad() const {
  if (!impl_->autograd || !impl_->autograd->grad) return Tensor();
  return *impl_->autograd->grad;
}

void Tensor::set_grad(const Tensor& g) {
  impl_->meta().grad = g.defined() ? std::make_shared<Tensor>(g) : nullptr;
}

void Tensor::backward(const Tensor& grad_output, bool retain_graph, bool create_graph) const {
  autodiff::backward({*this}, {grad_output}, retain_graph, create_graph);
}

void Tensor::set_data(const Tensor& value) {
  SPIRE_CHECK(is_leaf(), AutodiffError, "set_data: only leaf tensors can be rebound; this one was computed by '",
              grad_fn()->name(), "'");
  SPIRE_CHECK(value.shape() == shape() && value.dtype() == dtype() && value.device() == device(), ValueError,
              "set_data: new value is ", name(value.dtype()), shape_str(value.shape()), " on ",
              value.device().str(), "; this tensor is ", name(dtype()), shape_str(shape()), " on ", device().str());
  SPIRE_CHECK(!is_batched() && !value.is_batched(), ValueError, "set_data: not allowed inside vmap");
  impl_->storage = value.impl()->storage;
  impl_->strides = value.impl()->strides;
  impl_->offset = value.impl()->offset;
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = impl_->storage;
  impl->shape = impl_->shape;
  impl->strides = impl_->strides;
  impl->offset = impl_->offset;
  impl->dtype = impl_->dtype;
  if (impl_->batched)
    impl->batched = std::make_shared<BatchedValue>(
        BatchedValue{impl_->batched->level, Tensor(impl_->batched->physical).detach().impl_ptr()});
  return Tensor(std::move(impl));
}

namespace {
template <class T>
std::string format_value(T v, int precision) {
  std::ostringstream s;
  if constexpr (std::is_same_v<T, bool>) s << (v ? "True" : "False");
  else if constexpr (std::is_integral_v<T>) s << v;
  else if constexpr (is_complex_v<T>)
    s << std::setprecision(precision) << v.real() << (v.imag() < 0 ? "-" : "+")
      << std::abs(v.imag()) << "j";
  else {
    if (std::isfinite(double(v)) && double(v) == std::floor(double(v)) && std::abs(double(v)) < 1e15)
      s << std::fixed << std::setprecision(0) << v << ".";
    else
      s << std::setprecision(precision) << v;
  }
  return s.str();
}
}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  if (is_batched())
    return "batched(level=" + std::to_string(impl_->batched->level) + ", shape per entry=" +
           shape_str(shape()) + ", " + Tensor(impl_->batched->physical).str() + ")";
  Tensor h = on_host(*this);
  std::vector<std::string> items;
  visit_dtype(dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(h.raw_data());
    for_each_offset(h, [&](int64_t o) { items.push_back(format_value(p[o], 6)); });
  });
  size_t width = 0;
  for (auto& s : items) width = std::max(width, s.size());
  const int64_t edge = 3;
  bool summarize = numel() > 1000;
  std::ostringstream out;
  out << "tensor(";
  int64_t d = dim();
  // Recursive printing over axes; `base` is the flat index of the first element of the sub-block.
  std::function<void(int64_t, int64_t, int64_t)> rec = [&](int64_t axis, int64_t base, int64_t indent) {
    if (axis == d) {
      std::string s = items[base];
      out << std::string(width - s.size(), ' ') << s;
      return;
    }
    int64_t n = shape()[axis];
    int64_t block = 1;
    for (int64_t i = axis + 1; i < d; ++i) block *= shape()[i];
    out << "[";
    for (int64_t i = 0; i < n; ++i) {
      if (summarize && n > 2 * edge && i == edge) {
        out << "...";
        i = n - edge - 1;
        out << (axis + 1 == d ? ", " : ",\n" + std::string(indent + 1, ' '));
        continue;
      }
      rec(axis + 1, base + i * block, indent + 1);
      if (i + 1 < n)
        out << (axis + 1 == d ? ", " : "," + std::string(d - axis - 1, '\n') + std::string(indent + 1, ' '));
    }
    out << "]";
  };
  rec(0, 0, 7);
  if (dtype() != DType::Float32 && dtype() != DType::Int64 && dtype() != DType::Bool)
    out << ", dtype=" << name(dtype());
  if (device().kind != DeviceKind::CPU) out << ", device='" << device().str() << "'";
  if (requires_grad()) out << (grad_fn() ? ", grad_fn=<" + grad_fn()->name() + ">" : ", requires_grad=True");
  out << ")";
  return out.str();
}

Tensor empty(const Shape& shape, DType dtype, Device device) {
  for (int64_t d : shape)
    SPIRE_CHECK(d >= 0, ShapeError, "empty: negative dimension in shape ", shape_str(shape));
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(size_t(numel_of(shape)) * itemsize(dtype), device);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor full(const Shape& shape, Scalar value, DType dtype, Device device) {
  static const OpDef& fill = op_def("full");
  if (device.kind == DeviceKind::CPU) {
    // Constants are made on every weak-typed scalar op: skip the dispatcher's attribute record.
    Tensor t = empty(shape, dtype);
    cpu::fill_value(t, value);
    return t;
  }
  return call1(fill, {}, Attrs{{"shape", shape}, {"value", value}, {"dtype", dtype},
                               {"device", device.str()}});
}
Tensor zeros(const Shape& shape, DType dtype, Device device) { return full(shape, Scalar(0.0), dtype, device); }
Tensor ones(const Shape& shape, DType dtype, Device device) { return full(shape, Scalar(1.0), dtype, device); }
Tensor scalar_tensor(Scalar value, DType dtype, Device device) { return full({}, value, dtype, device); }

Tensor arange(double start, double stop, double step, DType dtype) {
  SPIRE_CHECK(step != 0, ValueError, "arange: step must be nonzero");
  int64_t n = std::max<int64_t>(0, int64_t(std::ceil((stop - start) / step)));
  Tensor t = empty({n}, dtype);
  visit_dtype(dtype, [&]<class T>() {
    T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = T(start + double(i) * step);
  });
  return t;
}

Tensor linspace(double start, double stop, int64_t n, DType dtype) {
  SPIRE_CHECK(n >= 0, ValueError, "linspace: n must be >= 0, got ", n);
  Tensor t = empty({n}, dtype);
  visit_dtype(dtype, [&]<class T>() {
    T* p = t.data<T>();
    double h = n > 1 ? (stop - start) / double(n - 1) : 0.0;
    for (int64_t i = 0; i < n; ++i) p[i] = T(i + 1 == n && n > 1 ? stop : start + double(i) * h);
  });
  return t;
}

Tensor eye(int64_t n, DType dtype) {
  Tensor t = zeros({n, n}, dtype);
  visit_dtype(dtype, [&]<class T>() {
    T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i * n + i] = T(1);
  });
  return t;
}

Tensor from_blob(void* data, const Shape& shape, const Shape& strides, DType dtype, Device device,
                 std::shared_ptr<void> owner) {
  auto impl = std::make_shared<TensorImpl>();
  int64_t extent = 1;
  for (size_t i = 0; i < shape.size(); ++i) extent += (shape[i] - 1) * std::abs(strides[i]);
  impl->storage = std::make_shared<Storage>(data, size_t(extent) * itemsize(dtype), device, std::move(owner));
  impl->shape = shape;
  impl->strides = strides;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& base, const Shape& shape, const Shape& strides, int64_t offset) {
  return make_view(base, shape, strides, offset, base.dtype());
}

Tensor make_view(const Tensor& base, const Shape& shape, const Shape& strides, int64_t offset,
                 DType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->shape = shape;
  impl->strides = strides;
  impl->offset = offset;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

}  // namespace spire
