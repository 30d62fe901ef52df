// FdtdOp (fdtd_op.h): the ops "elec.fdtd_run" and "elec.fdtd_run_vjp" over a table of registered
// runs.
#include "science/elec/fdtd_op.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "engine/core/error.h"
#include "engine/core/op.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::elec {

struct FdtdOp::Entry {
  explicit Entry(DifferentiableRun r) : run(std::move(r)) {}
  DifferentiableRun run;
  std::vector<double> last_eps;  // the values of the run's latest forward pass
  bool has_forward = false;
  std::mutex mutex;              // a run holds its checkpoints: one pass at a time

  std::vector<std::vector<std::complex<double>>> forward(const std::vector<double>& eps) {
    auto out = run.forward(eps);
    last_eps = eps;
    has_forward = true;
    return out;
  }
};

namespace {

std::mutex table_mutex;
std::map<int64_t, std::weak_ptr<FdtdOp::Entry>>& table() {
  static std::map<int64_t, std::weak_ptr<FdtdOp::Entry>> runs;
  return runs;
}
int64_t next_handle = 1;

std::shared_ptr<FdtdOp::Entry> lookup(const Attrs& attrs) {
  const int64_t handle = attrs.get<int64_t>("run");
  std::lock_guard<std::mutex> lock(table_mutex);
  const auto it = table().find(handle);
  std::shared_ptr<FdtdOp::Entry> entry = it == table().end() ? nullptr : it->second.lock();
  SPIRE_CHECK(entry != nullptr, ValueError, "elec.fdtd_run: run ", handle,
              " is not registered (its FdtdOp was destroyed, or the handle is not one)");
  return entry;
}

std::vector<double> values_of(const Tensor& eps) {
  const Tensor c = contiguous(eps);
  const double* p = c.data<double>();
  return std::vector<double>(p, p + c.numel());
}

std::vector<TensorMeta> infer_run(const std::vector<Tensor>& in, const Attrs& attrs) {
  const std::shared_ptr<FdtdOp::Entry> entry = lookup(attrs);
  SPIRE_CHECK(in[0].dtype() == DType::Float64, DTypeError, "elec.fdtd_run: eps must be float64, got ",
              name(in[0].dtype()));
  SPIRE_CHECK(in[0].numel() == entry->run.design_size(), ShapeError, "elec.fdtd_run: eps has ", in[0].numel(),
              " values, the design region has ", entry->run.design_size());
  std::vector<TensorMeta> out;
  for (size_t k = 0; k < entry->run.outputs(); ++k) {
    const std::vector<int64_t> shape = entry->run.output_shape(k);
    out.push_back({spire::Shape(shape.begin(), shape.end()), DType::Complex128});
  }
  return out;
}

void run_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  const std::shared_ptr<FdtdOp::Entry> entry = lookup(attrs);
  std::lock_guard<std::mutex> lock(entry->mutex);
  const auto values = entry->forward(values_of(in[0]));
  for (size_t k = 0; k < out.size(); ++k)
    std::copy(values[k].begin(), values[k].end(), out[k].data<std::complex<double>>());
}

void vjp_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  const std::shared_ptr<FdtdOp::Entry> entry = lookup(attrs);
  std::lock_guard<std::mutex> lock(entry->mutex);
  const std::vector<double> eps = values_of(in[0]);
  if (!entry->has_forward || entry->last_eps != eps) entry->forward(eps);
  std::vector<std::vector<std::complex<double>>> cotangents;
  for (size_t k = 1; k < in.size(); ++k) {
    const Tensor g = contiguous(in[k]);
    const auto* p = g.data<std::complex<double>>();
    cotangents.emplace_back(p, p + g.numel());
  }
  const std::vector<double> grad = entry->run.gradient(cotangents);
  std::copy(grad.begin(), grad.end(), out[0].data<double>());
}

// The two ops, defined when the library loads.
const bool defined = [] {
  OpDef run;
  run.name = "elec.fdtd_run";
  run.num_inputs = 1;
  run.infer = infer_run;
  run.vjp = [](const VjpContext& c) -> std::vector<Tensor> {
    std::vector<Tensor> in{c.inputs[0]};
    for (const Tensor& g : c.grads) in.push_back(cast(g, DType::Complex128));
    return {call1(op_def("elec.fdtd_run_vjp"), in, c.attrs)};
  };
  OpRegistry::get().define(std::move(run));

  OpDef vjp;
  vjp.name = "elec.fdtd_run_vjp";
  vjp.num_inputs = -1;
  vjp.infer = [](const std::vector<Tensor>& in, const Attrs&) -> std::vector<TensorMeta> {
    return {{in[0].shape(), DType::Float64}};
  };
  vjp.vjp = [](const VjpContext&) -> std::vector<Tensor> {
    throw AutodiffError(
        "elec.fdtd_run: second derivatives of an FDTD run are not available (the reverse rule is an adjoint run "
        "with no reverse rule of its own)");
  };
  OpRegistry::get().define(std::move(vjp));
  return true;
}();

SPIRE_REGISTER_KERNEL("elec.fdtd_run", DeviceKind::CPU, run_kernel);
SPIRE_REGISTER_KERNEL("elec.fdtd_run_vjp", DeviceKind::CPU, vjp_kernel);

}  // namespace

FdtdOp::FdtdOp(DifferentiableRun run) : entry_(std::make_shared<Entry>(std::move(run))) {
  std::lock_guard<std::mutex> lock(table_mutex);
  handle_ = next_handle++;
  table()[handle_] = entry_;
}

FdtdOp::~FdtdOp() {
  std::lock_guard<std::mutex> lock(table_mutex);
  table().erase(handle_);
}

std::vector<Tensor> FdtdOp::operator()(const Tensor& eps) const {
  const Tensor x = eps.dtype() == DType::Float64 ? eps : cast(eps, DType::Float64);
  return call(op_def("elec.fdtd_run"), {x}, Attrs{{"run", handle_}});
}

const DifferentiableRun& FdtdOp::run() const { return entry_->run; }

Tensor poynting_flux(const Tensor& e_a, const Tensor& h_b, const Tensor& e_b, const Tensor& h_a, double scale) {
  Tensor total;
  auto accumulate = [&](const Tensor& e, const Tensor& h, double sign) {
    if (!e.defined() || !h.defined()) return;
    SPIRE_CHECK(e.shape() == h.shape() && e.dim() == 2, ShapeError,
                "poynting_flux: E and H must both be {nfreq, npoints}, got ", shape_str(e.shape()), " and ",
                shape_str(h.shape()));
    Tensor term = mul(sum(real(mul(conj(e), h)), {1}), Scalar(sign * scale));
    total = total.defined() ? add(total, term) : term;
  };
  accumulate(e_a, h_b, 1.0);
  accumulate(e_b, h_a, -1.0);
  SPIRE_CHECK(total.defined(), ValueError, "poynting_flux: no tangential E and H pair given");
  return total;
}

}  // namespace spire::elec
