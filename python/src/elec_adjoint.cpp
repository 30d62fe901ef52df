// spire.elec's differentiable runs (science/elec/fdtd_op.h): _elec.FdtdRun maps a Tensor of design
// permittivities to complex128 Tensors of DFT outputs, recorded by autodiff, whose reverse rule is
// the adjoint run; flux_points and poynting_flux assemble a flux objective from them
// (spire.elec.DifferentiableRun builds on these).
#include "elec_common.h"
#include "science/elec/fdtd_op.h"

namespace spire::python::elec_py {
namespace {

using spire::elec::DesignRegion;
using spire::elec::DftOutput;
using spire::elec::FdtdOp;
using spire::elec::Problem;

std::array<std::vector<double>, 3> to_positions(py::handle h, const std::string& who) {
  const std::vector<py::object> axes = list_items(h, who);
  SPIRE_CHECK(axes.size() == 3, ValueError, who, ": give three lists of positions (x, y, z), got ", axes.size());
  std::array<std::vector<double>, 3> out;
  for (size_t a = 0; a < 3; ++a)
    for (py::handle v : list_items(axes[a], indexed(who, a))) out[a].push_back(to_double(v, indexed(who, a)));
  return out;
}

// An output: (component, positions, frequencies), positions as three lists of coordinates.
DftOutput to_output(py::handle h, const std::string& who) {
  const std::vector<py::object> parts = list_items(h, who);
  SPIRE_CHECK(parts.size() == 3, ValueError, who, ": an output is (component, (xs, ys, zs), frequencies), got ",
              parts.size(), " items");
  return DftOutput{to_component(parts[0], who + "[0]"), to_positions(parts[1], who + "[1]"),
                   to_frequencies(parts[2], who + "[2]")};
}

Tensor optional_tensor(py::handle h) { return h.is_none() ? Tensor() : to_tensor(h); }

}  // namespace

void bind_elec_adjoint(py::module_& m) {
  py::class_<FdtdOp>(m, "FdtdRun",
                     "A differentiable FDTD run (science/elec/adjoint.h): design permittivities in, DFT outputs out.")
      .def(py::init([](const Problem& problem, py::handle center, py::handle size, std::array<int64_t, 3> shape,
                       py::handle outputs, double until, int64_t checkpoint_every) {
             const std::string who = "DifferentiableRun";
             DesignRegion region(to_vec3(center, who + ": design center"), to_vec3(size, who + ": design size"),
                                 shape);
             std::vector<DftOutput> outs;
             const std::vector<py::object> items = list_items(outputs, who + ": outputs");
             for (size_t i = 0; i < items.size(); ++i) outs.push_back(to_output(items[i], indexed(who + ": outputs", i)));
             spire::elec::AdjointOptions options;
             options.checkpoint_every = checkpoint_every;
             py::gil_scoped_release release;
             return std::make_unique<FdtdOp>(
                 spire::elec::DifferentiableRun(problem, std::move(region), std::move(outs), until, options));
           }),
           py::arg("problem"), py::arg("design_center"), py::arg("design_size"), py::arg("design_shape"),
           py::arg("outputs"), py::arg("until"), py::arg("checkpoint_every") = 0)
      .def(
          "__call__",
          [](const FdtdOp& op, py::handle eps) {
            const Tensor x = to_tensor(eps);
            std::vector<Tensor> out;
            {
              py::gil_scoped_release release;
              out = op(x);
            }
            py::list result;
            for (const Tensor& t : out) result.append(py::cast(t));
            return result;
          },
          py::arg("eps"), "The DFT outputs (complex128 Tensors {nfreq, npoints}) for design values eps.")
      .def_property_readonly("design_size", [](const FdtdOp& op) { return op.run().design_size(); })
      .def_property_readonly("steps", [](const FdtdOp& op) { return op.run().steps(); })
      .def_property_readonly("checkpoint_every", [](const FdtdOp& op) { return op.run().checkpoint_every(); })
      .def_property_readonly("dt", [](const FdtdOp& op) { return op.run().dt(); })
      .def_property_readonly("peak_stored_states", [](const FdtdOp& op) { return op.run().peak_stored_states(); })
      .def_property_readonly("output_shapes", [](const FdtdOp& op) {
        py::list shapes;
        for (size_t k = 0; k < op.run().outputs(); ++k) {
          const std::vector<int64_t> s = op.run().output_shape(k);
          shapes.append(py::make_tuple(s[0], s[1]));
        }
        return shapes;
      });
  m.def(
      "flux_points",
      [](const Problem& problem, py::handle region) {
        const spire::elec::YeeLattice lattice(problem.dimensions, problem.cell_size, problem.resolution);
        const spire::elec::FluxRegion r = to_flux_region(region, "flux_points: region");
        const spire::elec::SurfaceDft surface(lattice, r, {1.0}, 1.0);
        py::list positions;
        for (const std::vector<double>& axis : spire::elec::flux_points(lattice, r)) positions.append(doubles_array(axis));
        py::list carried;
        for (Component c : lattice.components()) carried.append(spire::elec::to_string(c));
        return py::make_tuple(positions, surface.normal_axis(), r.weight * surface.point_measure(), carried);
      },
      py::arg("problem"), py::arg("region"),
      "The common points of a flux region as (xs, ys, zs), its normal axis, weight x the measure of a point, and "
      "the components the problem carries.");
  m.def(
      "poynting_flux",
      [](py::handle e_a, py::handle h_b, py::handle e_b, py::handle h_a, double scale) {
        return spire::elec::poynting_flux(optional_tensor(e_a), optional_tensor(h_b), optional_tensor(e_b),
                                          optional_tensor(h_a), scale);
      },
      py::arg("e_a"), py::arg("h_b"), py::arg("e_b"), py::arg("h_a"), py::arg("scale"),
      "scale * sum over points of Re(conj(E_a) H_b - conj(E_b) H_a), per frequency (science/elec/fdtd_op.h).");
}

}  // namespace spire::python::elec_py
