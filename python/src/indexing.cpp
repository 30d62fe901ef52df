// NumPy indexing for Tensor.__getitem__: ints, slices (any step), None, Ellipsis, bools, boolean
// masks and integer arrays (lists, ndarrays, tensors), with NumPy's rules for where the axes of
// advanced indices go. Basic indices give views; advanced ones gather (take / masked_select), so
// gradients flow through every form.
#include <numeric>

#include "common.h"
#include "engine/core/error.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::python {
namespace {

enum class Kind { Int, Slice, None, Ellipsis, Bool, IntArray, Mask };

struct Item {
  Kind kind;
  int64_t value = 0;  // Int; Bool (0/1)
  py::handle slice;
  Tensor array;       // IntArray: int64 contiguous CPU; Mask: bool contiguous CPU
};

[[noreturn]] void index_error(const std::string& msg) { throw py::index_error(msg); }

int64_t checked_index(int64_t i, int64_t size, int64_t axis) {
  if (i < -size || i >= size)
    index_error("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                " with size " + std::to_string(size));
  return i < 0 ? i + size : i;
}

Tensor cpu_contiguous(const Tensor& t, DType dtype) {
  SPIRE_CHECK(t.device().kind == DeviceKind::CPU, DeviceError,
              "indexing: index arrays must be on the CPU, got one on ", t.device().str());
  return contiguous(cast(t.detach(), dtype));
}

Item classify(py::handle h) {
  PyObject* o = h.ptr();
  if (o == Py_None) return {Kind::None};
  if (o == Py_Ellipsis) return {Kind::Ellipsis};
  if (PyBool_Check(o)) return {Kind::Bool, o == Py_True ? 1 : 0};
  if (PyLong_Check(o)) return {Kind::Int, PyLong_AsLongLong(o)};
  if (PySlice_Check(o)) return {Kind::Slice, 0, h};
  // Flat lists of ints (x[[0, 2]]), the common case, skip NumPy.
  if (PyList_Check(o) && PyList_GET_SIZE(o) > 0) {
    Py_ssize_t n = PyList_GET_SIZE(o);
    bool ints = true;
    for (Py_ssize_t i = 0; i < n && ints; ++i) {
      PyObject* e = PyList_GET_ITEM(o, i);
      ints = PyLong_Check(e) && !PyBool_Check(e);
    }
    if (ints) {
      Tensor idx = empty({int64_t(n)}, DType::Int64);
      int64_t* p = idx.data<int64_t>();
      for (Py_ssize_t i = 0; i < n; ++i) p[i] = PyLong_AsLongLong(PyList_GET_ITEM(o, i));
      if (PyErr_Occurred()) throw py::error_already_set();
      return {Kind::IntArray, 0, {}, idx};
    }
  }
  Tensor t;
  if (const Tensor* p = tensor_ptr(h)) {
    t = *p;
  } else if (py::isinstance<py::array>(h) || PyList_Check(o) || PyTuple_Check(o)) {
    py::array a = py::array::ensure(h);
    if (!a) throw py::error_already_set();
    if (a.size() == 0 && a.dtype().kind() == 'f') a = a.attr("astype")("int64");  // x[[]]
    t = tensor_from_numpy(a, /*share=*/false);
  } else if (py::hasattr(h, "__index__")) {
    return {Kind::Int, py::cast<int64_t>(py::int_(py::reinterpret_borrow<py::object>(h)))};
  } else {
    throw py::index_error("only integers, slices (:), ellipsis (...), None, and integer or boolean "
                          "arrays are valid indices; got " +
                          std::string(py::str(py::type::of(h).attr("__name__"))));
  }
  if (t.dtype() == DType::Bool) return {Kind::Mask, 0, {}, cpu_contiguous(t, DType::Bool)};
  if (!is_integral(t.dtype()))
    index_error(std::string("arrays used as indices must be of integer or boolean type, got ") + name(t.dtype()));
  if (t.dim() == 0) return {Kind::Int, t.item().to_int()};
  return {Kind::IntArray, 0, {}, cpu_contiguous(t, DType::Int64)};
}

// Applies a Python slice to `axis` of y; negative steps select, then flip.
Tensor apply_slice(const Tensor& y, int64_t axis, py::handle s) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(s.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
  int64_t n = y.shape(axis);
  Py_ssize_t len = PySlice_AdjustIndices(n, &start, &stop, step);
  if (step > 0) {
    if (start == 0 && stop == n && step == 1) return y;
    return slice(y, axis, start, stop, step);
  }
  if (len == 0) return slice(y, axis, 0, 0, 1);
  int64_t lowest = start + (len - 1) * step;  // step < 0
  return flip(slice(y, axis, lowest, start + 1, -step), {axis});
}

// NumPy raises IndexError for an out-of-range index (the engine's take raises ValueError).
void check_bounds(const Tensor& index, int64_t size, int64_t axis) {
  const int64_t* p = static_cast<const int64_t*>(index.raw_data());
  for (int64_t i = 0, n = index.numel(); i < n; ++i) checked_index(p[i], size, axis);
}

// Gathers y at the advanced indices `arrays` (int64 CPU, one per axis in `axes`, ascending) with
// NumPy's placement: adjacent index axes are replaced in place by the broadcast index shape,
// separated ones put it first.
Tensor gather_advanced(const Tensor& y, const std::vector<int64_t>& axes, std::vector<Tensor> arrays) {
  for (size_t j = 0; j < arrays.size(); ++j) {
    check_bounds(arrays[j], y.shape(axes[j]), axes[j]);
    arrays[j] = to(arrays[j], y.device());
  }
  bool adjacent = axes.back() - axes.front() == int64_t(axes.size()) - 1;
  if (adjacent) return take(y, arrays, axes.front());
  std::vector<int64_t> order(axes.begin(), axes.end());
  for (int64_t i = 0; i < y.dim(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) order.push_back(i);
  return take(permute(y, order), arrays, 0);
}

// Indices of the true elements of a contiguous bool mask: one int64 array per mask axis.
std::vector<Tensor> mask_indices(const Tensor& mask) {
  const bool* p = static_cast<const bool*>(mask.raw_data());
  int64_t n = mask.numel(), count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  int64_t k = std::max<int64_t>(mask.dim(), 1);
  std::vector<Tensor> out;
  std::vector<int64_t*> dst;
  for (int64_t d = 0; d < k; ++d) {
    out.push_back(empty({count}, DType::Int64));
    dst.push_back(out.back().data<int64_t>());
  }
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!p[i]) continue;
    int64_t r = i;
    for (int64_t d = k - 1; d >= 0; --d) {
      int64_t size = mask.dim() ? mask.shape(d) : 1;
      dst[d][j] = r % size;
      r /= size;
    }
    ++j;
  }
  return out;
}

}  // namespace

Tensor getitem(const Tensor& x, py::handle key) {
  // Fast paths: one int, one slice.
  PyObject* k = key.ptr();
  if (PyLong_Check(k) && !PyBool_Check(k)) {
    if (x.dim() == 0) index_error("too many indices for tensor: tensor is 0-dimensional, but 1 were indexed");
    return select(x, 0, checked_index(PyLong_AsLongLong(k), x.shape(0), 0));
  }
  if (PySlice_Check(k)) {
    if (x.dim() == 0) index_error("too many indices for tensor: tensor is 0-dimensional, but 1 were indexed");
    return apply_slice(x, 0, key);
  }

  std::vector<Item> items;
  if (PyTuple_Check(k))
    for (auto h : key) items.push_back(classify(h));
  else
    items.push_back(classify(key));

  int64_t consumed = 0, ellipses = 0;
  for (auto& it : items) {
    if (it.kind == Kind::Int || it.kind == Kind::Slice || it.kind == Kind::IntArray) consumed += 1;
    else if (it.kind == Kind::Mask) consumed += it.array.dim();
    else if (it.kind == Kind::Ellipsis) ++ellipses;
  }
  if (ellipses > 1) index_error("an index can only have a single ellipsis ('...')");
  if (consumed > x.dim())
    index_error("too many indices for tensor: tensor is " + std::to_string(x.dim()) + "-dimensional, but " +
                std::to_string(consumed) + " were indexed");

  // With any array index present, integers count as (0-d) array indices too: that decides where
  // the indexed axes land (NumPy: x[1, None, [0, 1]] has shape (2, 1, ...)).
  bool has_arrays = false;
  for (auto& it : items) has_arrays |= it.kind == Kind::IntArray || (it.kind == Kind::Mask && it.array.dim() > 0);

  // Pass 1: basic indices, recording where the advanced ones apply.
  Tensor y = x;
  int64_t ax = 0;
  std::vector<int64_t> adv_axes;
  std::vector<Tensor> adv_arrays;
  const Tensor* whole_mask = nullptr;
  for (auto& it : items) {
    switch (it.kind) {
      case Kind::None: y = unsqueeze(y, ax++); break;
      case Kind::Bool:  // x[True] adds an axis of length 1, x[False] one of length 0
        y = unsqueeze(y, ax);
        if (!it.value) y = slice(y, ax, 0, 0, 1);
        ++ax;
        break;
      case Kind::Int:
        if (has_arrays) {
          adv_axes.push_back(ax++);
          adv_arrays.push_back(scalar_tensor(Scalar(it.value), DType::Int64));
        } else {
          y = select(y, ax, checked_index(it.value, y.shape(ax), ax));
        }
        break;
      case Kind::Slice: y = apply_slice(y, ax, it.slice); ++ax; break;
      case Kind::Ellipsis: ax += x.dim() - consumed; break;
      case Kind::IntArray:
        adv_axes.push_back(ax++);
        adv_arrays.push_back(it.array);
        break;
      case Kind::Mask: {
        for (int64_t d = 0; d < it.array.dim(); ++d)
          if (it.array.shape(d) != y.shape(ax + d))
            index_error("boolean index did not match indexed tensor along axis " + std::to_string(ax + d) +
                        "; size of axis is " + std::to_string(y.shape(ax + d)) +
                        " but size of corresponding boolean axis is " + std::to_string(it.array.shape(d)));
        if (items.size() == 1 && it.array.dim() == x.dim() && x.dim() > 0) whole_mask = &it.array;
        if (it.array.dim() == 0) {  // a 0-d mask acts as a Python bool
          y = unsqueeze(y, ax);
          if (!*static_cast<const bool*>(it.array.raw_data())) y = slice(y, ax, 0, 0, 1);
          ++ax;
          break;
        }
        for (auto& idx : mask_indices(it.array)) {
          adv_axes.push_back(ax++);
          adv_arrays.push_back(idx);
        }
        break;
      }
    }
  }
  if (adv_axes.empty()) return y;
  if (whole_mask) return masked_select(x, to(*whole_mask, x.device()));
  return maybe_release(y.numel(), [&] { return gather_advanced(y, adv_axes, adv_arrays); });
}

void bind_indexing(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__getitem__", &getitem, py::arg("key"));
}

}  // namespace spire::python
