// spire._C._nn layers (engine/nn/layers), with torch.nn's constructor keywords and defaults plus
// `dtype` and a spire extension `generator` (a spire.random.Generator for the initial weights and,
// for dropout, the masks; the default generator when None). Functional forms go to
// _nn._functional (spire.nn.functional) and initialisers to _nn._init (spire.nn.init).
#include "common.h"
#include "engine/nn/functional/functional.h"
#include "engine/nn/init.h"
#include "engine/nn/layers/layers.h"

namespace spire::python {
namespace {

namespace F = nn::functional;
using nn::Module;

Tensor opt_tensor(py::handle h) { return h.is_none() ? Tensor() : to_tensor(h); }
py::object tensor_or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }
DType dtype_or_float32(py::handle h) { return h.is_none() ? DType::Float32 : to_dtype(h); }
std::vector<int64_t> ints(py::handle h) { return h.is_none() ? std::vector<int64_t>{} : to_axes(h); }
std::optional<int64_t> opt_int(py::handle h) {
  return h.is_none() ? std::nullopt : std::optional<int64_t>(h.cast<int64_t>());
}

// padding: numbers, or torch's strings "same" and "valid" (checked by the engine).
F::ConvArgs conv_args(py::handle stride, py::handle padding, py::handle dilation, int64_t groups,
                      const std::string& mode = "zeros") {
  if (py::isinstance<py::str>(padding))
    return F::ConvArgs{ints(stride), {}, ints(dilation), groups, mode, padding.cast<std::string>()};
  return F::ConvArgs{ints(stride), ints(padding), ints(dilation), groups, mode};
}

template <class T>
using Cls = py::class_<T, Module, std::shared_ptr<T>>;

// forward(input) of a single-tensor layer, without the GIL for large inputs.
template <class T>
void single_forward(Cls<T>& c) {
  c.def("forward", [](T& m, const Tensor& x) { return maybe_release(work_of(x), [&] { return m.forward(x); }); },
        py::arg("input"));
}

void bind_functional(py::module_& f) {
  using namespace pybind11::literals;
  auto unary = [&](const char* name, Tensor (*fn)(const Tensor&)) {
    f.def(name, [fn](const Tensor& x) { return maybe_release(work_of(x), [&] { return fn(x); }); }, "input"_a);
  };
  unary("relu", &F::relu);
  unary("silu", &F::silu);
  unary("sigmoid", &F::sigmoid);
  unary("tanh", &F::tanh);
  unary("sin", &F::sin);
  f.def("gelu", [](const Tensor& x, const std::string& a) { return F::gelu(x, a); }, "input"_a, "approximate"_a = "none");
  f.def("softplus", [](const Tensor& x, double b, double t) { return F::softplus(x, b, t); }, "input"_a, "beta"_a = 1.0,
        "threshold"_a = 20.0);
  f.def("leaky_relu", [](const Tensor& x, double s) { return F::leaky_relu(x, s); }, "input"_a,
        "negative_slope"_a = 0.01);
  f.def("elu", [](const Tensor& x, double a) { return F::elu(x, a); }, "input"_a, "alpha"_a = 1.0);
  f.def("softmax", [](const Tensor& x, int64_t d) { return F::softmax(x, d); }, "input"_a, "dim"_a = -1);
  f.def("log_softmax", [](const Tensor& x, int64_t d) { return F::log_softmax(x, d); }, "input"_a, "dim"_a = -1);
  f.def("linear", [](const Tensor& x, const Tensor& w, py::object b) {
    Tensor bias = opt_tensor(b);
    return maybe_release(work_of(x), [&] { return F::linear(x, w, bias); });
  }, "input"_a, "weight"_a, "bias"_a = py::none());
  for (int64_t n : {1, 2, 3}) {
    std::string name = "conv" + std::to_string(n) + "d";
    f.def(name.c_str(), [n](const Tensor& x, const Tensor& w, py::object b, py::handle stride, py::handle padding,
                            py::handle dilation, int64_t groups) {
      F::ConvArgs a = conv_args(stride, padding, dilation, groups);
      Tensor bias = opt_tensor(b);
      return maybe_release(work_of(x), [&] { return F::conv(x, w, bias, n, a); });
    }, "input"_a, "weight"_a, "bias"_a = py::none(), "stride"_a = 1, "padding"_a = 0, "dilation"_a = 1, "groups"_a = 1);
    name = "conv_transpose" + std::to_string(n) + "d";
    f.def(name.c_str(), [n](const Tensor& x, const Tensor& w, py::object b, py::handle stride, py::handle padding,
                            py::handle output_padding, int64_t groups, py::handle dilation) {
      F::ConvArgs a = conv_args(stride, padding, dilation, groups);
      Tensor bias = opt_tensor(b);
      auto op = ints(output_padding);
      return maybe_release(work_of(x), [&] { return F::conv_transpose(x, w, bias, n, a, op); });
    }, "input"_a, "weight"_a, "bias"_a = py::none(), "stride"_a = 1, "padding"_a = 0, "output_padding"_a = 0,
       "groups"_a = 1, "dilation"_a = 1);
  }
  f.def("spectral_conv", [](const Tensor& x, const std::vector<Tensor>& weights, py::handle modes) {
    auto m = ints(modes);
    if (m.size() == 1) m.assign(size_t(std::max<int64_t>(x.dim() - 2, 1)), m[0]);
    return maybe_release(work_of(x), [&] { return F::spectral_conv(x, weights, m); });
  }, "input"_a, "weights"_a, "modes"_a,
     "The FNO layer: weights are 2^(d-1) complex [C_in, C_out, *modes] tensors (low/high corners).");
  f.def("layer_norm", [](const Tensor& x, py::handle shape, py::object w, py::object b, double eps) {
    return F::layer_norm(x, ints(shape), opt_tensor(w), opt_tensor(b), eps);
  }, "input"_a, "normalized_shape"_a, "weight"_a = py::none(), "bias"_a = py::none(), "eps"_a = 1e-5);
  f.def("batch_norm", [](const Tensor& x, py::object rm, py::object rv, py::object w, py::object b, bool training,
                         double momentum, double eps) {
    return F::batch_norm(x, opt_tensor(rm), opt_tensor(rv), opt_tensor(w), opt_tensor(b), training, momentum, eps);
  }, "input"_a, "running_mean"_a, "running_var"_a, "weight"_a = py::none(), "bias"_a = py::none(),
     "training"_a = false, "momentum"_a = 0.1, "eps"_a = 1e-5);
  f.def("group_norm", [](const Tensor& x, int64_t g, py::object w, py::object b, double eps) {
    return F::group_norm(x, g, opt_tensor(w), opt_tensor(b), eps);
  }, "input"_a, "num_groups"_a, "weight"_a = py::none(), "bias"_a = py::none(), "eps"_a = 1e-5);
  f.def("embedding", [](py::handle idx, const Tensor& w, py::handle pad) {
    return F::embedding(to_tensor(idx), w, opt_int(pad));
  }, "input"_a, "weight"_a, "padding_idx"_a = py::none());
  f.def("dropout", [](const Tensor& x, double p, bool training, Generator* g) {
    return F::dropout(x, p, training, g);
  }, "input"_a, "p"_a = 0.5, "training"_a = true, "generator"_a = py::none());
  f.def("scaled_dot_product_attention", [](const Tensor& q, const Tensor& k, const Tensor& v, py::object mask,
                                           double p, bool causal, std::optional<double> scale, Generator* g) {
    Tensor m = opt_tensor(mask);
    return maybe_release(work_of(q, k), [&] { return F::scaled_dot_product_attention(q, k, v, m, p, causal, scale, g); });
  }, "query"_a, "key"_a, "value"_a, "attn_mask"_a = py::none(), "dropout_p"_a = 0.0, "is_causal"_a = false,
     "scale"_a = py::none(), "generator"_a = py::none());
  f.def("multi_head_attention", [](const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads, py::object ipw,
                                   py::object ipb, const Tensor& opw, py::object opb, py::object kpm, bool need_weights,
                                   py::object attn_mask, bool average, bool causal, double p, bool training,
                                   bool batch_first, Generator* g, py::object qw, py::object kw, py::object vw,
                                   py::object bias_k, py::object bias_v, bool add_zero_attn) {
    F::MultiheadAttentionArgs a{opt_tensor(kpm), opt_tensor(attn_mask), causal, need_weights, average, p, training,
                                batch_first, g};
    a.q_proj_weight = opt_tensor(qw), a.k_proj_weight = opt_tensor(kw), a.v_proj_weight = opt_tensor(vw);
    a.bias_k = opt_tensor(bias_k), a.bias_v = opt_tensor(bias_v), a.add_zero_attn = add_zero_attn;
    auto r = maybe_release(work_of(q, k), [&] {
      return F::multi_head_attention(q, k, v, heads, opt_tensor(ipw), opt_tensor(ipb), opw, opt_tensor(opb), a);
    });
    return py::make_tuple(r.output, tensor_or_none(r.weights));
  }, "query"_a, "key"_a, "value"_a, "num_heads"_a, "in_proj_weight"_a, "in_proj_bias"_a, "out_proj_weight"_a,
     "out_proj_bias"_a, "key_padding_mask"_a = py::none(), "need_weights"_a = true, "attn_mask"_a = py::none(),
     "average_attn_weights"_a = true, "is_causal"_a = false, "dropout_p"_a = 0.0, "training"_a = true,
     "batch_first"_a = false, "generator"_a = py::none(), "q_proj_weight"_a = py::none(),
     "k_proj_weight"_a = py::none(), "v_proj_weight"_a = py::none(), "bias_k"_a = py::none(),
     "bias_v"_a = py::none(), "add_zero_attn"_a = false,
     "Multi-head attention (torch's multi_head_attention_forward): the packed in_proj_weight, or separate "
     "q/k/v_proj_weight (then in_proj_weight may be None); bias_k/bias_v and add_zero_attn append key/value "
     "positions. Returns (output, weights or None).");
}

void bind_init(py::module_& i) {
  using namespace pybind11::literals;
  namespace I = nn::init;
  auto gen = [](Generator* g) -> Generator& { return g ? *g : default_generator(); };
  i.def("calculate_gain", [](const std::string& nl, std::optional<double> p) { return I::calculate_gain(nl, p); },
        "nonlinearity"_a, "param"_a = py::none());
  i.def("uniform_", [gen](Tensor t, double a, double b, Generator* g) { return I::uniform_(t, a, b, gen(g)); },
        "tensor"_a, "a"_a = 0.0, "b"_a = 1.0, "generator"_a = py::none());
  i.def("normal_", [gen](Tensor t, double m, double s, Generator* g) { return I::normal_(t, m, s, gen(g)); },
        "tensor"_a, "mean"_a = 0.0, "std"_a = 1.0, "generator"_a = py::none());
  i.def("constant_", [](Tensor t, double v) { return I::constant_(t, v); }, "tensor"_a, "val"_a);
  i.def("zeros_", [](Tensor t) { return I::zeros_(t); }, "tensor"_a);
  i.def("ones_", [](Tensor t) { return I::ones_(t); }, "tensor"_a);
  i.def("eye_", [](Tensor t) { return I::eye_(t); }, "tensor"_a);
  i.def("xavier_uniform_", [gen](Tensor t, double gain, Generator* g) { return I::xavier_uniform_(t, gain, gen(g)); },
        "tensor"_a, "gain"_a = 1.0, "generator"_a = py::none());
  i.def("xavier_normal_", [gen](Tensor t, double gain, Generator* g) { return I::xavier_normal_(t, gain, gen(g)); },
        "tensor"_a, "gain"_a = 1.0, "generator"_a = py::none());
  i.def("kaiming_uniform_", [gen](Tensor t, double a, const std::string& mode, const std::string& nl, Generator* g) {
    return I::kaiming_uniform_(t, a, mode, nl, gen(g));
  }, "tensor"_a, "a"_a = 0.0, "mode"_a = "fan_in", "nonlinearity"_a = "leaky_relu", "generator"_a = py::none());
  i.def("kaiming_normal_", [gen](Tensor t, double a, const std::string& mode, const std::string& nl, Generator* g) {
    return I::kaiming_normal_(t, a, mode, nl, gen(g));
  }, "tensor"_a, "a"_a = 0.0, "mode"_a = "fan_in", "nonlinearity"_a = "leaky_relu", "generator"_a = py::none());
  i.def("orthogonal_", [gen](Tensor t, double gain, Generator* g) { return I::orthogonal_(t, gain, gen(g)); },
        "tensor"_a, "gain"_a = 1.0, "generator"_a = py::none());
  i.def("siren_uniform_", [gen](Tensor t, bool first, double w0, Generator* g) {
    return I::siren_uniform_(t, first, w0, gen(g));
  }, "tensor"_a, "is_first"_a, "omega_0"_a = 30.0, "generator"_a = py::none(),
     "SIREN: U(+-1/fan_in) for the first layer, U(+-sqrt(6/fan_in)/omega_0) for the others.");
}

void bind_layers(py::module_& nnm) {
  using namespace pybind11::literals;
  auto da = py::dynamic_attr();

  Cls<nn::Linear> lin(nnm, "Linear", da, "y = x W^T + b (torch.nn.Linear).");
  lin.def(py::init([](int64_t in, int64_t out, bool bias, py::handle dtype, Generator* g) {
    return std::make_shared<nn::Linear>(in, out, bias, dtype_or_float32(dtype), g);
  }), "in_features"_a, "out_features"_a, "bias"_a = true, "dtype"_a = py::none(), "generator"_a = py::none())
      .def_readonly("in_features", &nn::Linear::in_features)
      .def_readonly("out_features", &nn::Linear::out_features)
      .def("reset_parameters", [](nn::Linear& m, Generator* g) { m.reset_parameters(g ? *g : default_generator()); },
           "generator"_a = py::none());
  single_forward(lin);

  for (int64_t n : {1, 2, 3}) {
    for (bool t : {false, true}) {
      std::string name = std::string(t ? "ConvTranspose" : "Conv") + std::to_string(n) + "d";
      auto make = [n, t](int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
                         py::handle output_padding, int64_t groups, bool bias, py::handle dilation,
                         const std::string& mode, py::handle dtype, Generator* g) -> std::shared_ptr<nn::ConvNd> {
        nn::ConvLayerOptions o;
        if (py::isinstance<py::str>(padding)) o.padding_rule = padding.cast<std::string>();
        else o.padding = ints(padding);
        o.stride = ints(stride), o.dilation = ints(dilation);
        o.output_padding = ints(output_padding);
        o.groups = groups, o.bias = bias, o.padding_mode = mode, o.dtype = dtype_or_float32(dtype), o.gen = g;
        auto ks = ints(k);
        switch (n * 2 + t) {
          case 2: return std::make_shared<nn::Conv1d>(in, out, ks, o);
          case 3: return std::make_shared<nn::ConvTranspose1d>(in, out, ks, o);
          case 4: return std::make_shared<nn::Conv2d>(in, out, ks, o);
          case 5: return std::make_shared<nn::ConvTranspose2d>(in, out, ks, o);
          case 6: return std::make_shared<nn::Conv3d>(in, out, ks, o);
          default: return std::make_shared<nn::ConvTranspose3d>(in, out, ks, o);
        }
      };
      auto bind = [&](auto cls) {
        using C = typename decltype(cls)::type;
        if (t) {
          cls.def(py::init([make](int64_t in, int64_t out, py::handle k, py::handle s, py::handle p, py::handle op,
                                  int64_t g, bool b, py::handle d, const std::string& mode, py::handle dt, Generator* gen) {
                return std::static_pointer_cast<C>(make(in, out, k, s, p, op, g, b, d, mode, dt, gen));
              }), "in_channels"_a, "out_channels"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = 0,
              "output_padding"_a = 0, "groups"_a = 1, "bias"_a = true, "dilation"_a = 1, "padding_mode"_a = "zeros",
              "dtype"_a = py::none(), "generator"_a = py::none());
          cls.def("forward", [](C& m, const Tensor& x, py::object output_size) {
            auto op = m.output_padding;
            if (!output_size.is_none()) {
              // The output_padding giving output_size (PyTorch's _output_padding).
              auto os = ints(output_size);
              if (int64_t(os.size()) > m.spatial) os.erase(os.begin(), os.end() - m.spatial);
              if (int64_t(os.size()) != m.spatial)
                throw py::value_error("output_size must have " + std::to_string(m.spatial) + " spatial sizes");
              for (int64_t i = 0; i < m.spatial; ++i) {
                int64_t in = x.shape(x.dim() - m.spatial + i);
                int64_t min = (in - 1) * m.stride[i] - 2 * m.padding[i] + m.dilation[i] * (m.kernel_size[i] - 1) + 1;
                op[i] = os[i] - min;
                if (op[i] < 0 || op[i] >= std::max(m.stride[i], m.dilation[i]))
                  throw py::value_error("output_size " + std::to_string(os[i]) + " is not reachable on spatial axis " +
                                        std::to_string(i) + " (from " + std::to_string(min) + " to " +
                                        std::to_string(min + std::max(m.stride[i], m.dilation[i]) - 1) + ")");
              }
            }
            return maybe_release(work_of(x), [&] { return m.forward(x, op); });
          }, "input"_a, "output_size"_a = py::none());
        } else {
          cls.def(py::init([make](int64_t in, int64_t out, py::handle k, py::handle s, py::handle p, py::handle d,
                                  int64_t g, bool b, const std::string& mode, py::handle dt, Generator* gen) {
                return std::static_pointer_cast<C>(make(in, out, k, s, p, py::int_(0), g, b, d, mode, dt, gen));
              }), "in_channels"_a, "out_channels"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = 0,
              "dilation"_a = 1, "groups"_a = 1, "bias"_a = true, "padding_mode"_a = "zeros", "dtype"_a = py::none(),
              "generator"_a = py::none());
          single_forward(cls);
        }
        cls.def_property_readonly("in_channels", [](const C& m) { return m.in_channels; })
            .def_property_readonly("out_channels", [](const C& m) { return m.out_channels; })
            .def_property_readonly("kernel_size", [](const C& m) { return py::tuple(py::cast(m.kernel_size)); })
            .def_property_readonly("stride", [](const C& m) { return py::tuple(py::cast(m.stride)); })
            .def_property_readonly("padding", [](const C& m) -> py::object {
              if (!m.padding_rule.empty()) return py::str(m.padding_rule);  // as torch keeps 'same' / 'valid'
              return py::tuple(py::cast(m.padding));
            })
            .def_property_readonly("dilation", [](const C& m) { return py::tuple(py::cast(m.dilation)); })
            .def_property_readonly("groups", [](const C& m) { return m.groups; })
            .def_property_readonly("padding_mode", [](const C& m) { return m.padding_mode; });
      };
      const char* doc = "Convolution (torch.nn.ConvNd / ConvTransposeNd), channels first.";
      switch (n * 2 + t) {
        case 2: bind(Cls<nn::Conv1d>(nnm, name.c_str(), da, doc)); break;
        case 3: bind(Cls<nn::ConvTranspose1d>(nnm, name.c_str(), da, doc)); break;
        case 4: bind(Cls<nn::Conv2d>(nnm, name.c_str(), da, doc)); break;
        case 5: bind(Cls<nn::ConvTranspose2d>(nnm, name.c_str(), da, doc)); break;
        case 6: bind(Cls<nn::Conv3d>(nnm, name.c_str(), da, doc)); break;
        default: bind(Cls<nn::ConvTranspose3d>(nnm, name.c_str(), da, doc)); break;
      }
    }
  }

  auto spectral = [&](auto cls, int64_t n) {
    using C = typename decltype(cls)::type;
    cls.def(py::init([n](int64_t in, int64_t out, py::handle modes, py::handle dtype, Generator* g) {
          return std::make_shared<C>(in, out, ints(modes), dtype_or_float32(dtype), g);
        }), "in_channels"_a, "out_channels"_a, "modes"_a, "dtype"_a = py::none(), "generator"_a = py::none())
        .def_property_readonly("modes", [](const C& m) { return py::tuple(py::cast(m.modes)); })
        .def_property_readonly("in_channels", [](const C& m) { return m.in_channels; })
        .def_property_readonly("out_channels", [](const C& m) { return m.out_channels; });
    (void)n;
    single_forward(cls);
  };
  const char* sdoc = "The Fourier layer of the FNO: keeps `modes` frequencies per axis; weights1.. complex.";
  spectral(Cls<nn::SpectralConv1d>(nnm, "SpectralConv1d", da, sdoc), 1);
  spectral(Cls<nn::SpectralConv2d>(nnm, "SpectralConv2d", da, sdoc), 2);
  spectral(Cls<nn::SpectralConv3d>(nnm, "SpectralConv3d", da, sdoc), 3);

  Cls<nn::LayerNorm> ln(nnm, "LayerNorm", da, "torch.nn.LayerNorm over the last normalized_shape axes.");
  ln.def(py::init([](py::handle shape, double eps, bool affine, bool bias, py::handle dtype) {
    return std::make_shared<nn::LayerNorm>(ints(shape), eps, affine, bias, dtype_or_float32(dtype));
  }), "normalized_shape"_a, "eps"_a = 1e-5, "elementwise_affine"_a = true, "bias"_a = true, "dtype"_a = py::none())
      .def_property_readonly("normalized_shape", [](const nn::LayerNorm& m) { return py::tuple(py::cast(m.normalized_shape)); })
      .def_readonly("eps", &nn::LayerNorm::eps);
  single_forward(ln);

  auto batchnorm = [&](auto cls) {
    using C = typename decltype(cls)::type;
    cls.def(py::init([](int64_t c, double eps, std::optional<double> momentum, bool affine, bool track, py::handle dtype) {
          return std::make_shared<C>(c, eps, momentum, affine, track, dtype_or_float32(dtype));
        }), "num_features"_a, "eps"_a = 1e-5, "momentum"_a = 0.1, "affine"_a = true, "track_running_stats"_a = true,
        "dtype"_a = py::none())
        .def_property_readonly("num_features", [](const C& m) { return m.num_features; })
        .def_property_readonly("eps", [](const C& m) { return m.eps; })
        .def_property_readonly("momentum", [](const C& m) { return m.momentum; })
        .def("reset_running_stats", &C::reset_running_stats)
        .def("reset_parameters", &C::reset_parameters);
    single_forward(cls);
  };
  batchnorm(Cls<nn::BatchNorm1d>(nnm, "BatchNorm1d", da, "torch.nn.BatchNorm1d: [N, C] or [N, C, L]."));
  batchnorm(Cls<nn::BatchNorm2d>(nnm, "BatchNorm2d", da, "torch.nn.BatchNorm2d: [N, C, H, W]."));
  batchnorm(Cls<nn::BatchNorm3d>(nnm, "BatchNorm3d", da, "torch.nn.BatchNorm3d: [N, C, D, H, W]."));

  Cls<nn::GroupNorm> gn(nnm, "GroupNorm", da, "torch.nn.GroupNorm.");
  gn.def(py::init([](int64_t g, int64_t c, double eps, bool affine, py::handle dtype) {
    return std::make_shared<nn::GroupNorm>(g, c, eps, affine, dtype_or_float32(dtype));
  }), "num_groups"_a, "num_channels"_a, "eps"_a = 1e-5, "affine"_a = true, "dtype"_a = py::none())
      .def_readonly("num_groups", &nn::GroupNorm::num_groups)
      .def_readonly("num_channels", &nn::GroupNorm::num_channels);
  single_forward(gn);

  Cls<nn::Embedding> emb(nnm, "Embedding", da, "torch.nn.Embedding: rows of weight at integer indices.");
  emb.def(py::init([](int64_t n, int64_t d, py::handle pad, py::handle dtype, Generator* g) {
    return std::make_shared<nn::Embedding>(n, d, opt_int(pad), dtype_or_float32(dtype), g);
  }), "num_embeddings"_a, "embedding_dim"_a, "padding_idx"_a = py::none(), "dtype"_a = py::none(),
      "generator"_a = py::none())
      .def_readonly("num_embeddings", &nn::Embedding::num_embeddings)
      .def_readonly("embedding_dim", &nn::Embedding::embedding_dim)
      .def_readonly("padding_idx", &nn::Embedding::padding_idx)
      .def("forward", [](nn::Embedding& m, py::handle idx) { return m.forward(to_tensor(idx)); }, "input"_a);

  Cls<nn::Dropout> dr(nnm, "Dropout", da, "Inverted dropout in training mode; the identity in eval mode.");
  dr.def(py::init([](double p, bool inplace, Generator* g) {
    if (inplace) throw py::value_error("Dropout: inplace=True is not supported");
    return std::make_shared<nn::Dropout>(p, g);
  }), "p"_a = 0.5, "inplace"_a = false, "generator"_a = py::none(), py::keep_alive<1, 4>())
      .def_readonly("p", &nn::Dropout::p);
  single_forward(dr);

  Cls<nn::Flatten> fl(nnm, "Flatten", da, "torch.nn.Flatten: axes start_dim..end_dim merged into one.");
  fl.def(py::init([](int64_t start, int64_t end) { return std::make_shared<nn::Flatten>(start, end); }),
         "start_dim"_a = 1, "end_dim"_a = -1)
      .def_readonly("start_dim", &nn::Flatten::start_dim)
      .def_readonly("end_dim", &nn::Flatten::end_dim);
  single_forward(fl);

  // Activations.
  auto act = [&](auto cls) { single_forward(cls); return cls; };
  act(Cls<nn::ReLU>(nnm, "ReLU", da)).def(py::init([](bool) { return std::make_shared<nn::ReLU>(); }), "inplace"_a = false);
  act(Cls<nn::GELU>(nnm, "GELU", da)).def(py::init<std::string>(), "approximate"_a = "none")
      .def_readonly("approximate", &nn::GELU::approximate);
  act(Cls<nn::SiLU>(nnm, "SiLU", da)).def(py::init([](bool) { return std::make_shared<nn::SiLU>(); }), "inplace"_a = false);
  act(Cls<nn::Tanh>(nnm, "Tanh", da)).def(py::init<>());
  act(Cls<nn::Sigmoid>(nnm, "Sigmoid", da)).def(py::init<>());
  act(Cls<nn::Sin>(nnm, "Sin", da, "sin(omega_0 x) (SIREN's activation; omega_0 = 1 by default)."))
      .def(py::init<double>(), "omega_0"_a = 1.0).def_readonly("omega_0", &nn::Sin::omega_0);
  act(Cls<nn::Softplus>(nnm, "Softplus", da)).def(py::init<double, double>(), "beta"_a = 1.0, "threshold"_a = 20.0)
      .def_readonly("beta", &nn::Softplus::beta).def_readonly("threshold", &nn::Softplus::threshold);
  act(Cls<nn::LeakyReLU>(nnm, "LeakyReLU", da))
      .def(py::init([](double s, bool) { return std::make_shared<nn::LeakyReLU>(s); }), "negative_slope"_a = 0.01,
           "inplace"_a = false)
      .def_readonly("negative_slope", &nn::LeakyReLU::negative_slope);
  act(Cls<nn::ELU>(nnm, "ELU", da))
      .def(py::init([](double a, bool) { return std::make_shared<nn::ELU>(a); }), "alpha"_a = 1.0, "inplace"_a = false)
      .def_readonly("alpha", &nn::ELU::alpha);

  Cls<nn::MultiheadAttention> mha(nnm, "MultiheadAttention", da,
      "torch.nn.MultiheadAttention: packed in_proj_weight when kdim = vdim = embed_dim, else q_proj_weight, "
      "k_proj_weight and v_proj_weight (torch's names, so torch state_dicts load).");
  mha.def(py::init([](int64_t e, int64_t h, double p, bool bias, bool add_bias_kv, bool add_zero_attn,
                      py::handle kdim, py::handle vdim, bool batch_first, py::handle dtype, Generator* g) {
    nn::MultiheadAttentionOptions o;
    o.dropout = p, o.bias = bias, o.add_bias_kv = add_bias_kv, o.add_zero_attn = add_zero_attn;
    auto dim = [](py::handle d, const char* name) {
      if (d.is_none()) return int64_t(0);
      int64_t v = d.cast<int64_t>();
      if (v <= 0) throw py::value_error(std::string("MultiheadAttention: ") + name + " must be positive, got " +
                                        std::to_string(v));
      return v;
    };
    o.kdim = dim(kdim, "kdim"), o.vdim = dim(vdim, "vdim");
    o.batch_first = batch_first, o.dtype = dtype_or_float32(dtype), o.gen = g;
    return std::make_shared<nn::MultiheadAttention>(e, h, o);
  }), "embed_dim"_a, "num_heads"_a, "dropout"_a = 0.0, "bias"_a = true, "add_bias_kv"_a = false,
      "add_zero_attn"_a = false, "kdim"_a = py::none(), "vdim"_a = py::none(), "batch_first"_a = false,
      "dtype"_a = py::none(), "generator"_a = py::none(), py::keep_alive<1, 12>())
      .def_readonly("embed_dim", &nn::MultiheadAttention::embed_dim)
      .def_readonly("num_heads", &nn::MultiheadAttention::num_heads)
      .def_readonly("dropout", &nn::MultiheadAttention::dropout)
      .def_readonly("batch_first", &nn::MultiheadAttention::batch_first)
      .def_readonly("kdim", &nn::MultiheadAttention::kdim)
      .def_readonly("vdim", &nn::MultiheadAttention::vdim)
      .def_readonly("add_zero_attn", &nn::MultiheadAttention::add_zero_attn)
      .def_readonly("_qkv_same_embed_dim", &nn::MultiheadAttention::qkv_same_embed_dim)
      .def_property_readonly("head_dim", [](const nn::MultiheadAttention& m) { return m.embed_dim / m.num_heads; })
      .def("forward", [](nn::MultiheadAttention& m, const Tensor& q, const Tensor& k, const Tensor& v, py::object kpm,
                         bool need_weights, py::object attn_mask, bool average, bool causal) {
        Tensor kp = opt_tensor(kpm), am = opt_tensor(attn_mask);
        auto r = maybe_release(work_of(q, k), [&] { return m.attend(q, k, v, kp, need_weights, am, average, causal); });
        return py::make_tuple(r.output, tensor_or_none(r.weights));
      }, "query"_a, "key"_a, "value"_a, "key_padding_mask"_a = py::none(), "need_weights"_a = true,
         "attn_mask"_a = py::none(), "average_attn_weights"_a = true, "is_causal"_a = false,
         "Returns (output, attention weights or None).");

  Cls<nn::TransformerEncoderLayer> tel(nnm, "TransformerEncoderLayer", da, "torch.nn.TransformerEncoderLayer.");
  tel.def(py::init([](int64_t d, int64_t h, int64_t ff, double p, py::object activation, double eps, bool bf, bool nf,
                      bool bias, py::handle dtype, Generator* g) {
    std::string a;
    if (py::isinstance<py::str>(activation)) a = activation.cast<std::string>();
    else if (py::isinstance<nn::ReLU>(activation)) a = "relu";
    else if (py::isinstance<nn::GELU>(activation) && activation.cast<nn::GELU&>().approximate == "none") a = "gelu";
    else throw py::value_error("TransformerEncoderLayer: activation must be \"relu\", \"gelu\", ReLU() or GELU()");
    return std::make_shared<nn::TransformerEncoderLayer>(d, h, ff, p, a, eps, bf, nf, bias, dtype_or_float32(dtype), g);
  }), "d_model"_a, "nhead"_a, "dim_feedforward"_a = 2048, "dropout"_a = 0.1, "activation"_a = "relu",
      "layer_norm_eps"_a = 1e-5, "batch_first"_a = false, "norm_first"_a = false, "bias"_a = true,
      "dtype"_a = py::none(), "generator"_a = py::none(), py::keep_alive<1, 12>())
      .def_readonly("norm_first", &nn::TransformerEncoderLayer::norm_first)
      .def_readonly("activation", &nn::TransformerEncoderLayer::activation)
      .def("forward", [](nn::TransformerEncoderLayer& m, const Tensor& src, py::object mask, py::object kpm, bool causal) {
        Tensor am = opt_tensor(mask), kp = opt_tensor(kpm);
        return maybe_release(work_of(src), [&] { return m.forward(src, am, kp, causal); });
      }, "src"_a, "src_mask"_a = py::none(), "src_key_padding_mask"_a = py::none(), "is_causal"_a = false);
}

}  // namespace

void bind_nn_layers(py::module_& m) {
  py::module_ nnm = m.attr("_nn");
  bind_layers(nnm);
  py::module_ f = nnm.def_submodule("_functional", "Functional forms (use spire.nn.functional).");
  bind_functional(f);
  py::module_ i = nnm.def_submodule("_init", "Initialisers (use spire.nn.init).");
  bind_init(i);
}

}  // namespace spire::python
