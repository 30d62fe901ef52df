// spire._C._distributions: Categorical and Normal (engine/distributions) for Python, with
// torch.distributions' constructors and names; spire/distributions.py is the public module.
#include "common.h"
#include "engine/distributions/categorical.h"
#include "engine/distributions/normal.h"
#include "engine/ops/random.h"

namespace spire::python {
namespace {

using distributions::Categorical;
using distributions::Normal;

Generator& gen_or_default(Generator* g) { return g ? *g : default_generator(); }
py::tuple shape_tuple(const Shape& s) { return py::tuple(py::cast(s)); }

// torch.distributions.Categorical(probs=None, logits=None): exactly one of them.
Categorical make_categorical(py::handle probs, py::handle logits) {
  SPIRE_CHECK(probs.is_none() != logits.is_none(), ValueError,
              "Categorical: give exactly one of probs and logits");
  return probs.is_none() ? Categorical::from_logits(to_tensor(logits)) : Categorical::from_probs(to_tensor(probs));
}

// loc and scale as tensors of one dtype: a number next to a tensor takes its dtype, two numbers
// give float32 (as torch's broadcast_all). Numbers are read as floats first, so Normal(0, 1) is
// not an integer distribution.
py::object as_float_if_number(py::handle h) {
  if (is_py_number(h) && !PyComplex_Check(h.ptr())) return py::float_(py::reinterpret_borrow<py::object>(h));
  return py::reinterpret_borrow<py::object>(h);
}
Normal make_normal(py::handle loc, py::handle scale) {
  auto [l, s] = binary_operands(as_float_if_number(loc), as_float_if_number(scale));
  return Normal(l, s);
}

}  // namespace

void bind_distributions(py::module_& m) {
  py::module_ d = m.def_submodule("_distributions", "Raw distribution bindings (use spire.distributions).");

  py::class_<Categorical>(d, "Categorical",
                          "Categorical over {0, ..., K-1} along the last axis of probs or logits (as "
                          "torch.distributions.Categorical).")
      .def(py::init(&make_categorical), py::arg("probs") = py::none(), py::arg("logits") = py::none())
      .def_property_readonly("logits", &Categorical::logits, "Normalised: logits - logsumexp(logits).")
      .def_property_readonly("probs", &Categorical::probs)
      .def_property_readonly("batch_shape", [](const Categorical& c) { return shape_tuple(c.batch_shape()); })
      .def_property_readonly("event_shape", [](const Categorical&) { return py::tuple(); })
      .def_property_readonly("num_categories", &Categorical::num_categories)
      .def_property_readonly("mode", &Categorical::mode)
      .def("sample", [](const Categorical& c, py::handle shape, Generator* g) {
        return c.sample(to_shape(shape), gen_or_default(g));
      }, py::arg("sample_shape") = py::tuple(), py::arg("generator") = nullptr,
         "int64 draws of shape sample_shape + batch_shape (Gumbel-max), without history.")
      .def("log_prob", [](const Categorical& c, py::handle value) { return c.log_prob(to_tensor(value)); },
           py::arg("value"))
      .def("entropy", &Categorical::entropy)
      .def("__repr__", [](const Categorical& c) {
        return "Categorical(batch_shape=" + shape_str(c.batch_shape()) + ", num_categories=" +
               std::to_string(c.num_categories()) + ")";
      });

  py::class_<Normal>(d, "Normal", "Normal(loc, scale), broadcast together (as torch.distributions.Normal).")
      .def(py::init(&make_normal), py::arg("loc"), py::arg("scale"))
      .def_property_readonly("loc", &Normal::loc)
      .def_property_readonly("scale", &Normal::scale)
      .def_property_readonly("mean", &Normal::mean)
      .def_property_readonly("mode", &Normal::mode)
      .def_property_readonly("stddev", &Normal::stddev)
      .def_property_readonly("variance", &Normal::variance)
      .def_property_readonly("batch_shape", [](const Normal& n) { return shape_tuple(n.batch_shape()); })
      .def_property_readonly("event_shape", [](const Normal&) { return py::tuple(); })
      .def("sample", [](const Normal& n, py::handle shape, Generator* g) {
        return n.sample(to_shape(shape), gen_or_default(g));
      }, py::arg("sample_shape") = py::tuple(), py::arg("generator") = nullptr,
         "Draws of shape sample_shape + batch_shape, without history.")
      .def("rsample", [](const Normal& n, py::handle shape, Generator* g) {
        return n.rsample(to_shape(shape), gen_or_default(g));
      }, py::arg("sample_shape") = py::tuple(), py::arg("generator") = nullptr,
         "loc + scale * eps: differentiable in loc and scale (the reparameterisation trick).")
      .def("log_prob", [](const Normal& n, py::handle v) { return n.log_prob(operand_like(v, n.loc())); },
           py::arg("value"))
      .def("cdf", [](const Normal& n, py::handle v) { return n.cdf(operand_like(v, n.loc())); }, py::arg("value"))
      .def("entropy", &Normal::entropy)
      .def("__repr__", [](const Normal& n) { return "Normal(batch_shape=" + shape_str(n.batch_shape()) + ")"; });
}

}  // namespace spire::python
