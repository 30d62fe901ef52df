// Pooling and upsampling for spire._C._nn (engine/nn/layers/pooling.h) and _nn._functional
// (engine/nn/functional/pooling.h), with torch's keyword names, order and defaults. Options keep the
// form they were given in (an int or a tuple), as torch's modules show them.
#include "common.h"
#include "engine/nn/functional/pooling.h"
#include "engine/nn/layers/pooling.h"

namespace spire::python {
namespace {

namespace F = nn::functional;
using nn::Module;
using Ints = std::vector<int64_t>;

template <class T>
using Cls = py::class_<T, Module, std::shared_ptr<T>>;

Ints ints(py::handle h) { return h.is_none() ? Ints{} : to_axes(h); }

// An int option back in Python form: an int for one value, else a tuple (AvgPool1d keeps 1-tuples).
py::object as_given(const Ints& v, bool tuple = false) {
  if (v.size() == 1 && !tuple) return py::int_(v[0]);
  return py::tuple(py::cast(v));
}

// output_size: an int, None, or a sequence of ints and Nones.
F::OutputSize output_size(py::handle h) {
  F::OutputSize out;
  auto one = [](py::handle e) { return e.is_none() ? std::nullopt : std::optional<int64_t>(e.cast<int64_t>()); };
  if (h.is_none() || py::isinstance<py::int_>(h)) return {one(h)};
  for (auto e : py::iter(h)) out.push_back(one(e));
  return out;
}
py::object output_size_py(const F::OutputSize& o) {
  auto one = [](const std::optional<int64_t>& e) -> py::object { return e ? py::object(py::int_(*e)) : py::none(); };
  if (o.size() == 1) return one(o[0]);
  py::tuple t(o.size());
  for (size_t i = 0; i < o.size(); ++i) t[i] = one(o[i]);
  return t;
}

std::vector<double> floats(py::handle h) {
  if (h.is_none()) return {};
  if (is_py_number(h)) return {h.cast<double>()};
  std::vector<double> v;
  for (auto e : py::iter(h)) v.push_back(e.cast<double>());
  return v;
}

std::optional<int64_t> opt_int(py::handle h) {
  return h.is_none() ? std::nullopt : std::optional<int64_t>(h.cast<int64_t>());
}
std::optional<bool> opt_bool(py::handle h) {
  return h.is_none() ? std::nullopt : std::optional<bool>(h.cast<bool>());
}

py::object pair_or_values(const std::pair<Tensor, Tensor>& r, bool with_indices) {
  if (with_indices) return py::make_tuple(r.first, r.second);
  return py::cast(r.first);
}

F::InterpolateArgs interpolate_args(py::handle size, py::handle scale, const std::string& mode, py::handle align,
                                    py::handle recompute, bool antialias) {
  F::InterpolateArgs a;
  a.size = ints(size);
  a.scale_factor = floats(scale);
  a.mode = mode;
  a.align_corners = opt_bool(align);
  a.recompute_scale_factor = opt_bool(recompute);
  a.antialias = antialias;
  return a;
}

void bind_functional(py::module_& f) {
  using namespace pybind11::literals;
  for (int64_t n : {1, 2, 3}) {
    std::string d = std::to_string(n) + "d";
    auto max_pool = [n](const Tensor& x, py::handle k, py::handle stride, py::handle padding, py::handle dilation,
                        bool ceil_mode) {
      F::MaxPoolArgs a{ints(stride), ints(padding), ints(dilation), ceil_mode};
      auto ks = ints(k);
      return maybe_release(work_of(x), [&] { return F::max_pool_with_indices(x, n, ks, a); });
    };
    f.def(("max_pool" + d).c_str(), [max_pool](const Tensor& x, py::handle k, py::handle s, py::handle p, py::handle dl,
                                              bool ceil_mode, bool return_indices) {
      return pair_or_values(max_pool(x, k, s, p, dl, ceil_mode), return_indices);
    }, "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "dilation"_a = 1, "ceil_mode"_a = false,
       "return_indices"_a = false);
    f.def(("max_pool" + d + "_with_indices").c_str(), [max_pool](const Tensor& x, py::handle k, py::handle s,
                                                                 py::handle p, py::handle dl, bool ceil_mode, bool) {
      return pair_or_values(max_pool(x, k, s, p, dl, ceil_mode), true);
    }, "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "dilation"_a = 1, "ceil_mode"_a = false,
       "return_indices"_a = false);
    auto avg = [n](const Tensor& x, py::handle k, py::handle stride, py::handle padding, bool ceil_mode,
                   bool count_include_pad, py::handle divisor) {
      F::AvgPoolArgs a{ints(stride), ints(padding), ceil_mode, count_include_pad, opt_int(divisor)};
      auto ks = ints(k);
      return maybe_release(work_of(x), [&] { return F::avg_pool(x, n, ks, a); });
    };
    if (n == 1)  // torch's avg_pool1d has no divisor_override
      f.def("avg_pool1d", [avg](const Tensor& x, py::handle k, py::handle s, py::handle p, bool c, bool cip) {
        return avg(x, k, s, p, c, cip, py::none());
      }, "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "ceil_mode"_a = false,
         "count_include_pad"_a = true);
    else
      f.def(("avg_pool" + d).c_str(), avg, "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0,
            "ceil_mode"_a = false, "count_include_pad"_a = true, "divisor_override"_a = py::none());
    f.def(("max_unpool" + d).c_str(), [n](const Tensor& x, py::handle indices, py::handle k, py::handle stride,
                                          py::handle padding, py::handle output_size) {
      F::MaxUnpoolArgs a{ints(stride), ints(padding), ints(output_size)};
      Tensor idx = to_tensor(indices);
      auto ks = ints(k);
      return maybe_release(work_of(x), [&] { return F::max_unpool(x, idx, n, ks, a); });
    }, "input"_a, "indices"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "output_size"_a = py::none());
    f.def(("adaptive_avg_pool" + d).c_str(), [n](const Tensor& x, py::handle o) {
      auto os = output_size(o);
      return maybe_release(work_of(x), [&] { return F::adaptive_avg_pool(x, n, os); });
    }, "input"_a, "output_size"_a);
    auto amax = [n](const Tensor& x, py::handle o) {
      auto os = output_size(o);
      return maybe_release(work_of(x), [&] { return F::adaptive_max_pool_with_indices(x, n, os); });
    };
    f.def(("adaptive_max_pool" + d).c_str(), [amax](const Tensor& x, py::handle o, bool return_indices) {
      return pair_or_values(amax(x, o), return_indices);
    }, "input"_a, "output_size"_a, "return_indices"_a = false);
    f.def(("adaptive_max_pool" + d + "_with_indices").c_str(), [amax](const Tensor& x, py::handle o, bool) {
      return pair_or_values(amax(x, o), true);
    }, "input"_a, "output_size"_a, "return_indices"_a = false);
  }
  f.def("interpolate", [](const Tensor& x, py::handle size, py::handle scale, const std::string& mode,
                          py::handle align, py::handle recompute, bool antialias) {
    F::InterpolateArgs a = interpolate_args(size, scale, mode, align, recompute, antialias);
    return maybe_release(work_of(x), [&] { return F::interpolate(x, a); });
  }, "input"_a, "size"_a = py::none(), "scale_factor"_a = py::none(), "mode"_a = "nearest",
     "align_corners"_a = py::none(), "recompute_scale_factor"_a = py::none(), "antialias"_a = false,
     "Resamples [N, C, *spatial] to size or by scale_factor (torch.nn.functional.interpolate); modes nearest, "
     "nearest-exact, linear, bilinear, trilinear, area.");
}

// forward(input) returning the values, or (values, indices) when the layer has return_indices.
template <class T>
void indices_forward(Cls<T>& c) {
  c.def("forward", [](T& m, const Tensor& x) {
    auto r = maybe_release(work_of(x), [&] { return m.forward_with_indices(x); });
    return pair_or_values(r, m.return_indices);
  }, py::arg("input"));
}

template <class T>
void single_forward(Cls<T>& c) {
  c.def("forward", [](T& m, const Tensor& x) { return maybe_release(work_of(x), [&] { return m.forward(x); }); },
        py::arg("input"));
}

void bind_layers(py::module_& nnm) {
  using namespace pybind11::literals;
  auto da = py::dynamic_attr();

  auto max_pool = [&](auto cls) {
    using C = typename decltype(cls)::type;
    cls.def(py::init([](py::handle k, py::handle s, py::handle p, py::handle d, bool ri, bool ceil) {
          return std::make_shared<C>(ints(k), nn::MaxPoolOptions{ints(s), ints(p), ints(d), ri, ceil});
        }), "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "dilation"_a = 1, "return_indices"_a = false,
        "ceil_mode"_a = false)
        .def_property_readonly("kernel_size", [](const C& m) { return as_given(m.kernel_size); })
        .def_property_readonly("stride", [](const C& m) { return as_given(m.stride); })
        .def_property_readonly("padding", [](const C& m) { return as_given(m.padding); })
        .def_property_readonly("dilation", [](const C& m) { return as_given(m.dilation); })
        .def_readonly("return_indices", &C::return_indices)
        .def_readonly("ceil_mode", &C::ceil_mode);
    indices_forward(cls);
  };
  const char* mdoc = "Max pooling (torch.nn.MaxPoolNd); the gradient goes to the first maximum of each window.";
  max_pool(Cls<nn::MaxPool1d>(nnm, "MaxPool1d", da, mdoc));
  max_pool(Cls<nn::MaxPool2d>(nnm, "MaxPool2d", da, mdoc));
  max_pool(Cls<nn::MaxPool3d>(nnm, "MaxPool3d", da, mdoc));

  auto avg_pool = [&](auto cls, bool one_d) {
    using C = typename decltype(cls)::type;
    if (one_d)
      cls.def(py::init([](py::handle k, py::handle s, py::handle p, bool ceil, bool cip) {
            return std::make_shared<C>(ints(k), nn::AvgPoolOptions{ints(s), ints(p), ceil, cip, std::nullopt});
          }), "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "ceil_mode"_a = false,
          "count_include_pad"_a = true);
    else
      cls.def(py::init([](py::handle k, py::handle s, py::handle p, bool ceil, bool cip, py::handle div) {
            return std::make_shared<C>(ints(k), nn::AvgPoolOptions{ints(s), ints(p), ceil, cip, opt_int(div)});
          }), "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "ceil_mode"_a = false,
          "count_include_pad"_a = true, "divisor_override"_a = py::none())
          .def_property_readonly("divisor_override", [](const C& m) { return m.divisor_override; });
    cls.def_property_readonly("kernel_size", [one_d](const C& m) { return as_given(m.kernel_size, one_d); })
        .def_property_readonly("stride", [one_d](const C& m) { return as_given(m.stride, one_d); })
        .def_property_readonly("padding", [one_d](const C& m) { return as_given(m.padding, one_d); })
        .def_readonly("ceil_mode", &C::ceil_mode)
        .def_readonly("count_include_pad", &C::count_include_pad);
    single_forward(cls);
  };
  const char* adoc = "Average pooling (torch.nn.AvgPoolNd).";
  avg_pool(Cls<nn::AvgPool1d>(nnm, "AvgPool1d", da, adoc), true);
  avg_pool(Cls<nn::AvgPool2d>(nnm, "AvgPool2d", da, adoc), false);
  avg_pool(Cls<nn::AvgPool3d>(nnm, "AvgPool3d", da, adoc), false);

  auto adaptive_avg = [&](auto cls) {
    using C = typename decltype(cls)::type;
    cls.def(py::init([](py::handle o) { return std::make_shared<C>(output_size(o)); }), "output_size"_a)
        .def_property_readonly("output_size", [](const C& m) { return output_size_py(m.output_size); });
    single_forward(cls);
  };
  const char* aadoc = "Adaptive average pooling to output_size (None keeps a size); torch's windows.";
  adaptive_avg(Cls<nn::AdaptiveAvgPool1d>(nnm, "AdaptiveAvgPool1d", da, aadoc));
  adaptive_avg(Cls<nn::AdaptiveAvgPool2d>(nnm, "AdaptiveAvgPool2d", da, aadoc));
  adaptive_avg(Cls<nn::AdaptiveAvgPool3d>(nnm, "AdaptiveAvgPool3d", da, aadoc));

  auto adaptive_max = [&](auto cls) {
    using C = typename decltype(cls)::type;
    cls.def(py::init([](py::handle o, bool ri) { return std::make_shared<C>(output_size(o), ri); }), "output_size"_a,
            "return_indices"_a = false)
        .def_property_readonly("output_size", [](const C& m) { return output_size_py(m.output_size); })
        .def_readonly("return_indices", &C::return_indices);
    indices_forward(cls);
  };
  const char* amdoc = "Adaptive max pooling to output_size (None keeps a size); torch's windows.";
  adaptive_max(Cls<nn::AdaptiveMaxPool1d>(nnm, "AdaptiveMaxPool1d", da, amdoc));
  adaptive_max(Cls<nn::AdaptiveMaxPool2d>(nnm, "AdaptiveMaxPool2d", da, amdoc));
  adaptive_max(Cls<nn::AdaptiveMaxPool3d>(nnm, "AdaptiveMaxPool3d", da, amdoc));

  auto unpool = [&](auto cls) {
    using C = typename decltype(cls)::type;
    cls.def(py::init([](py::handle k, py::handle s, py::handle p) {
          return std::make_shared<C>(ints(k), ints(s), ints(p));
        }), "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0)
        .def_property_readonly("kernel_size", [](const C& m) { return as_given(m.kernel_size, true); })
        .def_property_readonly("stride", [](const C& m) { return as_given(m.stride, true); })
        .def_property_readonly("padding", [](const C& m) { return as_given(m.padding, true); })
        .def("forward", [](C& m, const Tensor& x, py::handle indices, py::handle output_size) {
          Tensor idx = to_tensor(indices);
          auto os = ints(output_size);
          return maybe_release(work_of(x), [&] { return m.forward(x, idx, os); });
        }, "input"_a, "indices"_a, "output_size"_a = py::none());
  };
  const char* udoc = "torch.nn.MaxUnpoolNd: max pooling's values written back at their indices, zeros elsewhere.";
  unpool(Cls<nn::MaxUnpool1d>(nnm, "MaxUnpool1d", da, udoc));
  unpool(Cls<nn::MaxUnpool2d>(nnm, "MaxUnpool2d", da, udoc));
  unpool(Cls<nn::MaxUnpool3d>(nnm, "MaxUnpool3d", da, udoc));

  Cls<nn::Upsample> up(nnm, "Upsample", da, "torch.nn.Upsample: F.interpolate with fixed options.");
  up.def(py::init([](py::handle size, py::handle scale, const std::string& mode, py::handle align, py::handle rec) {
    return std::make_shared<nn::Upsample>(interpolate_args(size, scale, mode, align, rec, false));
  }), "size"_a = py::none(), "scale_factor"_a = py::none(), "mode"_a = "nearest", "align_corners"_a = py::none(),
     "recompute_scale_factor"_a = py::none())
      .def_property_readonly("size", [](const nn::Upsample& m) -> py::object {
        return m.args.size.empty() ? py::none() : as_given(m.args.size);
      })
      .def_property_readonly("scale_factor", [](const nn::Upsample& m) -> py::object {
        const auto& s = m.args.scale_factor;
        if (s.empty()) return py::none();
        if (s.size() == 1) return py::float_(s[0]);
        return py::tuple(py::cast(s));
      })
      .def_property_readonly("mode", [](const nn::Upsample& m) { return m.args.mode; })
      .def_property_readonly("align_corners", [](const nn::Upsample& m) { return m.args.align_corners; })
      .def_property_readonly("recompute_scale_factor", [](const nn::Upsample& m) { return m.args.recompute_scale_factor; });
  single_forward(up);
}

}  // namespace

void bind_nn_pooling(py::module_& m) {
  py::module_ nnm = m.attr("_nn");
  bind_layers(nnm);
  py::module_ f = nnm.attr("_functional");
  bind_functional(f);
}

}  // namespace spire::python
