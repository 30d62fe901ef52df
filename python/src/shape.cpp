// Shape and indexing ops: module functions and Tensor methods.
#include <numeric>

#include "common.h"
#include "engine/core/error.h"
#include "engine/ops/shape.h"

namespace spire::python {
namespace {

// x.reshape(2, 3) and x.reshape((2, 3)) both work, as in NumPy.
Shape shape_from_args(const py::args& args) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return to_shape(args[0]);
  Shape s;
  for (auto a : args) s.push_back(py::cast<int64_t>(a));
  return s;
}

std::vector<int64_t> reversed_axes(int64_t n) {
  std::vector<int64_t> p(n);
  std::iota(p.rbegin(), p.rend(), 0);
  return p;
}

// transpose(): reverse all axes; transpose(a, b): swap two; transpose((p0, p1, ...)): permute.
Tensor transpose_args(const Tensor& x, const py::args& args) {
  if (args.size() == 0) return permute(x, reversed_axes(x.dim()));
  if (args.size() == 1) return permute(x, to_axes(args[0]));
  if (args.size() == 2) return transpose(x, py::cast<int64_t>(args[0]), py::cast<int64_t>(args[1]));
  return permute(x, shape_from_args(args));
}

Tensor moveaxis_py(const Tensor& x, py::handle source, py::handle destination) {
  return moveaxis(x, to_axes(source), to_axes(destination));
}

Tensor flip_py(const Tensor& x, py::handle axis) {
  auto axes = to_axes(axis);
  if (axis.is_none()) {
    axes.resize(x.dim());
    std::iota(axes.begin(), axes.end(), 0);
  }
  return maybe_release(x.numel(), [&] { return flip(x, axes); });
}

// roll with axis=None rolls the flattened tensor, as NumPy.
Tensor roll_py(const Tensor& x, py::handle shift, py::handle axis) {
  return maybe_release(x.numel(), [&] {
    if (axis.is_none()) return reshape(roll(reshape(x, {-1}), py::cast<int64_t>(shift), 0), x.shape());
    auto shifts = to_axes(shift);
    auto axes = to_axes(axis);
    SPIRE_CHECK(shifts.size() == axes.size() || shifts.size() == 1, ShapeError, "roll: ", shifts.size(),
                " shifts for ", axes.size(), " axes");
    Tensor y = x;
    for (size_t i = 0; i < axes.size(); ++i) y = roll(y, shifts.size() == 1 ? shifts[0] : shifts[i], axes[i]);
    return y;
  });
}

// pad_width: an int (every axis, both sides), a (before, after) pair (every axis), or one pair per
// trailing axis, first axis first.
Tensor pad_py(const Tensor& x, py::handle pad_width, const std::string& mode, Scalar value) {
  std::vector<std::pair<int64_t, int64_t>> pads;
  if (PyLong_Check(pad_width.ptr())) {
    int64_t p = py::cast<int64_t>(pad_width);
    pads.assign(x.dim(), {p, p});
  } else {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(pad_width);
    bool flat_pair = seq.size() == 2 && PyLong_Check(py::object(seq[0]).ptr());
    if (flat_pair) {
      pads.assign(x.dim(), {py::cast<int64_t>(seq[0]), py::cast<int64_t>(seq[1])});
    } else {
      for (auto item : seq) {
        auto pr = to_axes(item);
        SPIRE_CHECK(pr.size() == 2, ShapeError, "pad: each entry of pad_width must be (before, after)");
        pads.emplace_back(pr[0], pr[1]);
      }
    }
  }
  PadMode pm;
  if (mode == "constant") pm = PadMode::Constant;
  else if (mode == "circular" || mode == "wrap") pm = PadMode::Circular;
  else if (mode == "reflect") pm = PadMode::Reflect;
  else throw ValueError("pad: unknown mode '" + mode + "'; allowed: constant, circular (wrap), reflect");
  return maybe_release(x.numel(), [&] { return pad(x, pads, pm, value); });
}

// split(x, 3) makes pieces of 3 along axis (the last may be shorter); split(x, [2, 5]) uses sizes.
std::vector<Tensor> split_py(const Tensor& x, py::handle sizes, int64_t axis) {
  if (PyLong_Check(sizes.ptr())) {
    int64_t size = py::cast<int64_t>(sizes);
    SPIRE_CHECK(size > 0, ValueError, "split: the piece size must be positive, got ", size);
    int64_t n = x.shape(axis);
    std::vector<int64_t> s;
    for (int64_t done = 0; done < n; done += size) s.push_back(std::min(size, n - done));
    return split(x, s, axis);
  }
  return split(x, to_axes(sizes), axis);
}

std::optional<int64_t> opt_int(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return py::cast<int64_t>(h);
}

}  // namespace

void bind_shape(py::module_& m, py::class_<Tensor>& cls) {
  m.def("reshape", [](const Tensor& x, py::handle shape) { return reshape(x, to_shape(shape)); },
        py::arg("x"), py::arg("shape"));
  cls.def("reshape", [](const Tensor& x, py::args shape) { return reshape(x, shape_from_args(shape)); });
  cls.def("view", [](const Tensor& x, py::args shape) { return reshape(x, shape_from_args(shape)); },
          "reshape; spire picks a view when the layout allows.");
  m.def("flatten", &flatten, py::arg("x"), py::arg("start_axis") = 0, py::arg("end_axis") = -1);
  cls.def("flatten", &flatten, py::arg("start_axis") = 0, py::arg("end_axis") = -1);
  m.def("ravel", [](const Tensor& x) { return reshape(x, {-1}); }, py::arg("x"));
  cls.def("ravel", [](const Tensor& x) { return reshape(x, {-1}); });
  m.def("permute", [](const Tensor& x, py::handle axes) { return permute(x, to_axes(axes)); },
        py::arg("x"), py::arg("axes"));
  cls.def("permute", [](const Tensor& x, py::args axes) { return permute(x, shape_from_args(axes)); });
  m.def("transpose", [](const Tensor& x, py::args axes) { return transpose_args(x, axes); }, py::arg("x"));
  cls.def("transpose", &transpose_args);
  m.def("swapaxes", &transpose, py::arg("x"), py::arg("axis1"), py::arg("axis2"));
  cls.def("swapaxes", &transpose, py::arg("axis1"), py::arg("axis2"));
  m.def("moveaxis", &moveaxis_py, py::arg("x"), py::arg("source"), py::arg("destination"));
  cls.def("moveaxis", &moveaxis_py, py::arg("source"), py::arg("destination"));
  cls.def_property_readonly("T", [](const Tensor& x) { return permute(x, reversed_axes(x.dim())); });
  cls.def_property_readonly("mT", &mT);
  m.def("mT", &mT, py::arg("x"));
  m.def("matrix_transpose", &mT, py::arg("x"));
  m.def("expand", [](const Tensor& x, py::handle shape) { return expand(x, to_shape(shape)); },
        py::arg("x"), py::arg("shape"));
  cls.def("expand", [](const Tensor& x, py::args shape) { return expand(x, shape_from_args(shape)); });
  m.def("broadcast_to", [](const Tensor& x, py::handle shape) { return broadcast_to(x, to_shape(shape)); },
        py::arg("x"), py::arg("shape"));
  cls.def("broadcast_to", [](const Tensor& x, py::handle shape) { return broadcast_to(x, to_shape(shape)); },
          py::arg("shape"));
  auto squeeze_py = [](const Tensor& x, py::handle axis) { return squeeze(x, to_axes(axis)); };
  m.def("squeeze", squeeze_py, py::arg("x"), py::arg("axis") = py::none());
  cls.def("squeeze", squeeze_py, py::arg("axis") = py::none());
  for (const char* n : {"unsqueeze", "expand_dims"}) {
    m.def(n, &unsqueeze, py::arg("x"), py::arg("axis"));
    cls.def(n, &unsqueeze, py::arg("axis"));
  }
  m.def("slice", [](const Tensor& x, int64_t axis, py::handle start, py::handle stop, int64_t step) {
    return slice(x, axis, opt_int(start), opt_int(stop), step);
  }, py::arg("x"), py::arg("axis"), py::arg("start") = py::none(), py::arg("stop") = py::none(), py::arg("step") = 1);
  m.def("select", &select, py::arg("x"), py::arg("axis"), py::arg("index"));
  cls.def("select", &select, py::arg("axis"), py::arg("index"));

  auto contiguous_py = [](const Tensor& x) { return maybe_release(x.numel(), [&] { return contiguous(x); }); };
  auto copy_py = [](const Tensor& x) { return maybe_release(x.numel(), [&] { return copy(x); }); };
  m.def("contiguous", contiguous_py, py::arg("x"));
  m.def("ascontiguousarray", contiguous_py, py::arg("x"));
  cls.def("contiguous", contiguous_py);
  m.def("copy", copy_py, py::arg("x"));
  cls.def("copy", copy_py);
  cls.def("clone", copy_py);
  m.def("alias", &alias, py::arg("x"));

  m.def("flip", &flip_py, py::arg("x"), py::arg("axis") = py::none());
  cls.def("flip", &flip_py, py::arg("axis") = py::none());
  m.def("roll", &roll_py, py::arg("x"), py::arg("shift"), py::arg("axis") = py::none());
  cls.def("roll", &roll_py, py::arg("shift"), py::arg("axis") = py::none());
  m.def("diagonal", &diagonal, py::arg("x"), py::arg("offset") = 0, py::arg("axis1") = -2, py::arg("axis2") = -1);
  cls.def("diagonal", &diagonal, py::arg("offset") = 0, py::arg("axis1") = -2, py::arg("axis2") = -1);
  m.def("tril", &tril, py::arg("x"), py::arg("k") = 0);
  cls.def("tril", &tril, py::arg("k") = 0);
  m.def("triu", &triu, py::arg("x"), py::arg("k") = 0);
  cls.def("triu", &triu, py::arg("k") = 0);
  m.def("pad", &pad_py, py::arg("x"), py::arg("pad_width"), py::arg("mode") = "constant",
        py::arg("value") = Scalar(0.0));

  auto concat_py = [](const std::vector<Tensor>& xs, int64_t axis) {
    return maybe_release(work_of(xs), [&] { return concat(xs, axis); });
  };
  m.def("concat", concat_py, py::arg("tensors"), py::arg("axis") = 0);
  m.def("concatenate", concat_py, py::arg("tensors"), py::arg("axis") = 0);
  m.def("stack", [](const std::vector<Tensor>& xs, int64_t axis) {
    return maybe_release(work_of(xs), [&] { return stack(xs, axis); });
  }, py::arg("tensors"), py::arg("axis") = 0);
  m.def("split", &split_py, py::arg("x"), py::arg("sizes"), py::arg("axis") = 0);
  cls.def("split", &split_py, py::arg("sizes"), py::arg("axis") = 0);
  m.def("chunk", &chunk, py::arg("x"), py::arg("chunks"), py::arg("axis") = 0);
  cls.def("chunk", &chunk, py::arg("chunks"), py::arg("axis") = 0);
  m.def("unbind", [](const Tensor& x, int64_t axis) {
    std::vector<Tensor> out;
    for (int64_t i = 0; i < x.shape(axis); ++i) out.push_back(select(x, axis, i));
    return out;
  }, py::arg("x"), py::arg("axis") = 0);

  m.def("index_select", &index_select, py::arg("x"), py::arg("axis"), py::arg("index"));
  cls.def("index_select", &index_select, py::arg("axis"), py::arg("index"));
  m.def("take", [](const Tensor& x, py::handle indices, int64_t axis) {
    std::vector<Tensor> idx;
    if (PyTuple_Check(indices.ptr()))
      for (auto i : indices) idx.push_back(to_tensor(i));
    else
      idx.push_back(to_tensor(indices));
    return maybe_release(x.numel(), [&] { return take(x, idx, axis); });
  }, py::arg("x"), py::arg("indices"), py::arg("axis") = 0,
     "np.take along axis for one index array; a tuple of k arrays indexes axes axis..axis+k-1 together "
     "(NumPy advanced indexing).");
  m.def("take_add", &take_add, py::arg("x"), py::arg("indices"), py::arg("source"), py::arg("axis") = 0,
        "The adjoint of take: x with source added at the indices (np.add.at).");
  m.def("take_along_axis", &take_along_axis, py::arg("x"), py::arg("indices"), py::arg("axis"));
  cls.def("take_along_axis", &take_along_axis, py::arg("indices"), py::arg("axis"));
  m.def("gather", &gather, py::arg("x"), py::arg("axis"), py::arg("index"));
  cls.def("gather", &gather, py::arg("axis"), py::arg("index"));
  m.def("index_add", &index_add, py::arg("x"), py::arg("axis"), py::arg("index"), py::arg("source"));
  cls.def("index_add", &index_add, py::arg("axis"), py::arg("index"), py::arg("source"));
  m.def("scatter_add", &scatter_add, py::arg("x"), py::arg("axis"), py::arg("index"), py::arg("source"));
  cls.def("scatter_add", &scatter_add, py::arg("axis"), py::arg("index"), py::arg("source"));
  m.def("one_hot", &one_hot, py::arg("index"), py::arg("num_classes"), py::arg("dtype") = DType::Float32);
  m.def("masked_select", &masked_select, py::arg("x"), py::arg("mask"));
  cls.def("masked_select", &masked_select, py::arg("mask"));
  m.def("nonzero", &nonzero, py::arg("x"));
  cls.def("nonzero", &nonzero);
}

}  // namespace spire::python
