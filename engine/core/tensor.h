// The tensor: a strided view of shared storage, plus the autodiff record of how it was made.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/allocator.h"
#include "engine/core/dtype.h"
#include "engine/core/error.h"
#include "engine/core/scalar.h"

namespace spire {

using Shape = std::vector<int64_t>;
std::string shape_str(const Shape& s);
int64_t numel_of(const Shape& s);
Shape contiguous_strides(const Shape& s);
// Turns a possibly negative axis into [0, ndim), or throws naming the op and the allowed range.
int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op);

struct Node;
struct OpDef;
struct TensorImpl;
class Tensor;

// What autodiff knows about a tensor; allocated only for tensors that take part in autodiff.
struct AutogradMeta {
  bool requires_grad = false;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  int output_nr = 0;
  std::shared_ptr<Tensor> grad;   // accumulated by backward() on leaves (and retained non-leaves)
  std::weak_ptr<Node> grad_accumulator;  // the leaf's sink node, made on first use
  // Run by backward() after it accumulates into a leaf's grad (autodiff/hooks.h), in order.
  std::vector<std::pair<int64_t, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  // Forward-mode tangents, one per active forward level (see autodiff/forward.h).
  std::vector<std::pair<int, std::shared_ptr<Tensor>>> tangents;
  // Taylor coefficients x1..xK, one series per active taylor level (see autodiff/taylor.h).
  std::vector<std::pair<int, std::shared_ptr<std::vector<Tensor>>>> jets;
};

// What a tensor inside vmap is: a logical view of `physical`, whose dim 0 is the axis mapped by vmap
// level `level`. Such a tensor has no data of its own; every op sees through it (autodiff/vmap.h).
struct BatchedValue {
  int level;
  std::shared_ptr<TensorImpl> physical;
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape, strides;  // strides in elements
  int64_t offset = 0;    // in elements
  DType dtype = DType::Float32;
  std::unique_ptr<AutogradMeta> autograd;
  // Set on outputs of a non-differentiable op whose inputs required grad, so that asking for a
  // gradient through them can say which op stopped it.
  const struct OpDef* nondiff_origin = nullptr;
  std::shared_ptr<const BatchedValue> batched;  // set only inside vmap

  AutogradMeta& meta() {
    if (!autograd) autograd = std::make_unique<AutogradMeta>();
    return *autograd;
  }
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool same(const Tensor& o) const { return impl_ == o.impl_; }
  bool is_batched() const { return impl_->batched != nullptr; }

  const Shape& shape() const { return impl_->shape; }
  int64_t shape(int64_t axis) const;
  const Shape& strides() const { return impl_->strides; }
  int64_t dim() const { return int64_t(impl_->shape.size()); }
  int64_t numel() const { return numel_of(impl_->shape); }
  int64_t offset() const { return impl_->offset; }
  DType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->storage->device(); }
  size_t itemsize() const { return spire::itemsize(impl_->dtype); }
  size_t nbytes() const { return size_t(numel()) * itemsize(); }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }

  // Raw pointer to element [0,...,0] (offset applied).
  void* raw_data() const;
  template <class T>
  T* data() const {
    SPIRE_CHECK(dtype_of<T>::value == dtype(), DTypeError, "data<", name(dtype_of<T>::value),
                ">() on a tensor of dtype ", name(dtype()));
    return static_cast<T*>(raw_data());
  }
  // The single element of a one-element tensor.
  Scalar item() const;
  template <class T>
  T item() const { return item().to<T>(); }
  std::vector<double> to_vector() const;  // values as doubles (real part), row-major

  // Autodiff.
  bool requires_grad() const { return impl_->autograd && impl_->autograd->requires_grad; }
  Tensor& set_requires_grad(bool on = true);
  bool is_leaf() const { return !impl_->autograd || !impl_->autograd->grad_fn; }
  const std::shared_ptr<Node>& grad_fn() const;
  Tensor grad() const;  // undefined until backward() reaches this leaf
  void set_grad(const Tensor& g);
  void backward(const Tensor& grad_output = Tensor(), bool retain_graph = false,
                bool create_graph = false) const;
  // Rebinds this leaf to the values of `value` (same shape, dtype and device) without a copy and
  // without history: how optimizers update parameters (PyTorch's `p.data = ...`). Every holder of
  // this tensor sees the new values; a graph recorded earlier keeps referring to this tensor, so
  // update only between steps.
  void set_data(const Tensor& value);
  // Same data, no history: gradients stop here.
  Tensor detach() const;
  // The same as detach(); the name used where the intent is a metadata-only copy.
  Tensor alias() const { return detach(); }

  std::string str() const;  // like NumPy's repr, with dtype and device

 private:
  std::shared_ptr<TensorImpl> impl_;
};

using Tensors = std::vector<Tensor>;

// Factories. `empty` leaves memory uninitialised.
Tensor empty(const Shape& shape, DType dtype = DType::Float32, Device device = kCPU);
Tensor zeros(const Shape& shape, DType dtype = DType::Float32, Device device = kCPU);
Tensor ones(const Shape& shape, DType dtype = DType::Float32, Device device = kCPU);
Tensor full(const Shape& shape, Scalar value, DType dtype = DType::Float32, Device device = kCPU);
Tensor scalar_tensor(Scalar value, DType dtype, Device device = kCPU);
Tensor arange(double start, double stop, double step = 1.0, DType dtype = DType::Int64);
Tensor linspace(double start, double stop, int64_t n, DType dtype = DType::Float32);
Tensor eye(int64_t n, DType dtype = DType::Float32);
template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape) {
  Tensor t = empty(shape, dtype_of<T>::value);
  SPIRE_CHECK(int64_t(values.size()) == t.numel(), ShapeError, "from_vector: ", values.size(),
              " values for shape ", shape_str(shape));
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}
// Wraps memory owned elsewhere (NumPy, DLPack); `owner` is kept alive by the storage.
Tensor from_blob(void* data, const Shape& shape, const Shape& strides, DType dtype, Device device,
                 std::shared_ptr<void> owner);
// A view with new metadata over the same storage (no autodiff record).
Tensor make_view(const Tensor& base, const Shape& shape, const Shape& strides, int64_t offset);
// Element strides of t's leading axes (all but its last `core`) broadcast to `shape`: t's axes
// right-aligned with shape's, stride 0 along the axes t lacks or has of size 1. Kernels of every
// backend address broadcast operands with these.
Shape broadcast_strides(const Tensor& t, const Shape& shape, int64_t core = 0);
Tensor make_view(const Tensor& base, const Shape& shape, const Shape& strides, int64_t offset,
                 DType dtype);

}  // namespace spire
