// The one path every op call takes, for every backend.
#include <algorithm>
#include <cmath>

#include "engine/autodiff/forward.h"
#include "engine/autodiff/mode.h"
#include "engine/autodiff/node.h"
#include "engine/autodiff/taylor.h"
#include "engine/autodiff/vmap.h"
#include "engine/core/observer.h"
#include "engine/core/op.h"

namespace spire {
namespace {

bool takes_part_in_grad(const OpDef& op, size_t i) {
  return std::find(op.nondiff_inputs.begin(), op.nondiff_inputs.end(), int(i)) ==
         op.nondiff_inputs.end();
}

std::string describe_inputs(const std::vector<Tensor>& inputs) {
  std::string s;
  for (auto& t : inputs)
    s += (s.empty() ? "" : ", ") + std::string(name(t.dtype())) + shape_str(t.shape());
  return s;
}

void check_finite(const OpDef& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outs) {
  for (auto& o : outs) {
    if (!is_inexact(o.dtype()) || o.device().kind != DeviceKind::CPU) continue;
    for (double v : o.to_vector())
      if (!std::isfinite(v))
        throw ValueError("anomaly: op '" + op.name + "' produced " + (std::isnan(v) ? "NaN" : "Inf") +
                         " from inputs (" + describe_inputs(inputs) + ")");
  }
}

// Forward mode: for each live level some input has a tangent at, run the op's forward rule with
// that level switched off, and attach the result to the outputs.
void propagate_tangents(const OpDef& op, const Attrs& attrs, const std::vector<Tensor>& inputs,
                        std::vector<Tensor>& outputs) {
  std::vector<int> levels;
  for (auto& t : inputs)
    if (t.impl()->autograd)
      for (auto& [l, _] : t.impl()->autograd->tangents)
        if (forward_ad::level_enabled(l) &&
            std::find(levels.begin(), levels.end(), l) == levels.end())
          levels.push_back(l);
  for (int level : levels) {
    std::vector<Tensor> tangents(inputs.size());
    bool any = false;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (takes_part_in_grad(op, i)) {
        tangents[i] = forward_ad::tangent(inputs[i], level);
        any |= tangents[i].defined();
      }
    if (!any) continue;
    if (!op.differentiable) continue;
    SPIRE_CHECK(op.jvp, AutodiffError, "op '", op.name, "' has no forward rule");
    std::vector<Tensor> out_t;
    {
      forward_ad::DisableLevel off(level);
      out_t = op.jvp(JvpContext{op, attrs, inputs, outputs, tangents});
    }
    for (size_t k = 0; k < outputs.size() && k < out_t.size(); ++k) {
      if (!out_t[k].defined() || !is_inexact(outputs[k].dtype())) continue;
      SPIRE_CHECK(out_t[k].shape() == outputs[k].shape(), ShapeError, "forward rule of '", op.name,
                  "' gave a tangent of shape ", shape_str(out_t[k].shape()), " for an output of shape ",
                  shape_str(outputs[k].shape()));
      outputs[k].impl()->meta().tangents.emplace_back(level, std::make_shared<Tensor>(out_t[k]));
      forward_ad::note_carrier(outputs[k], level);
    }
  }
}

}  // namespace

std::vector<Tensor> call(const OpDef& op, std::vector<Tensor> inputs, const Attrs& attrs) {
  SPIRE_CHECK(op.num_inputs < 0 || int(inputs.size()) == op.num_inputs, ValueError, op.name,
              ": expected ", op.num_inputs, " inputs, got ", inputs.size());
  // Ops without tensor inputs (factories, random draws) say where to run in their attributes.
  Device device = inputs.empty() ? Device::parse(attrs.get_or<std::string>("device", "cpu")) : kCPU;
  for (size_t i = 0; i < inputs.size(); ++i) {
    SPIRE_CHECK(inputs[i].defined(), ValueError, op.name, ": input ", i, " is an undefined tensor");
    if (i == 0) device = inputs[0].device();
    SPIRE_CHECK(inputs[i].device() == device, DeviceError, op.name, ": inputs on different devices (",
                device.str(), " and ", inputs[i].device().str(), "); move them with .to()");
  }

  std::vector<Tensor> outputs;
  // Inside vmap: the op runs on the physical tensors by its batching rule, which records autodiff.
  if (batching::any_level_active() && batching::dispatch(op, inputs, attrs, outputs)) {
    // Tangents and jets attached inside the mapped function (vmap of jvp, of laplacian) sit on the
    // logical tensors: their rules run on logical tensors as well, and are batched in turn.
    if (forward_ad::any_level_active()) {
      propagate_tangents(op, attrs, inputs, outputs);
      taylor::propagate(op, attrs, inputs, outputs);
    }
    return outputs;
  }
  if (op.view) {
    outputs.push_back(op.view(inputs, attrs));
  } else {
    std::vector<TensorMeta> metas = op.infer(inputs, attrs);
    const KernelFn& kernel = op.kernels[int(device.kind)];
    SPIRE_CHECK(kernel, DeviceError, op.name, ": no kernel for device ", device.str());
    outputs.reserve(metas.size());
    for (auto& m : metas) outputs.push_back(empty(m.shape, m.dtype, device));
    kernel(inputs, outputs, attrs);
  }
  if (AnomalyMode::enabled()) check_finite(op, inputs, outputs);
  if (observers::active()) observers::notify(op, inputs, outputs, attrs);

  std::shared_ptr<OpNode> node;
  if (GradMode::enabled()) {
    bool any_requires = false;
    const OpDef* stopped_by = nullptr;  // a non-differentiable op upstream, for error messages
    for (size_t i = 0; i < inputs.size(); ++i) {
      any_requires |= inputs[i].requires_grad() && takes_part_in_grad(op, i);
      if (!stopped_by) stopped_by = inputs[i].impl()->nondiff_origin;
    }
    if (!any_requires && stopped_by) {
      for (auto& o : outputs) o.impl()->nondiff_origin = stopped_by;
    } else if (any_requires) {
      if (op.differentiable) {
        node = std::make_shared<OpNode>(op, attrs, inputs, outputs);
        for (size_t k = 0; k < outputs.size(); ++k) {
          if (!is_inexact(outputs[k].dtype())) continue;
          auto& m = outputs[k].impl()->meta();
          m.requires_grad = true;
          m.grad_fn = node;
          m.output_nr = int(k);
        }
      } else {
        for (auto& o : outputs) o.impl()->nondiff_origin = &op;
      }
    }
  }
  // After the reverse node is attached: forward and Taylor rules that use the outputs then record
  // their dependence on the inputs, so reverse mode over forward or Taylor mode is exact. The node's
  // saved outputs get the tangents and jets afterwards, for forward or Taylor mode over its reverse
  // rule (a gradient taken inside jvp or laplacian).
  if (forward_ad::any_level_active()) {
    propagate_tangents(op, attrs, inputs, outputs);
    taylor::propagate(op, attrs, inputs, outputs);
    if (node)
      for (size_t k = 0; k < outputs.size(); ++k) {
        const auto& from = outputs[k].impl()->autograd;
        if (!from || (from->tangents.empty() && from->jets.empty())) continue;
        auto& to = node->outputs[k].impl()->meta();
        to.tangents = from->tangents;
        to.jets = from->jets;
        for (auto& [level, _] : from->tangents) forward_ad::note_carrier(node->outputs[k], level);
        for (auto& [level, _] : from->jets) forward_ad::note_carrier(node->outputs[k], level);
      }
  }
  return outputs;
}

Tensor call1(const OpDef& op, std::vector<Tensor> inputs, const Attrs& attrs) {
  auto outs = call(op, std::move(inputs), attrs);
  return std::move(outs[0]);
}

}  // namespace spire
