#include "engine/autodiff/node.h"

#include <atomic>

#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"

namespace spire {
namespace {
std::atomic<uint64_t> next_sequence{1};  // 0 is reserved for leaf accumulators, which run last

// A saved output reconnected to the node that made it, so that a reverse rule using it is
// differentiable again; forward-mode tangents and Taylor coefficients saved with it stay attached.
Tensor reconnect(const Tensor& saved, const std::shared_ptr<Node>& node, int output_nr) {
  Tensor t = saved.alias();
  if (saved.impl()->autograd) {
    t.impl()->meta().tangents = saved.impl()->autograd->tangents;
    t.impl()->meta().jets = saved.impl()->autograd->jets;
  }
  auto& m = t.impl()->meta();
  m.requires_grad = true;
  m.grad_fn = node;
  m.output_nr = output_nr;
  return t;
}
}  // namespace

Node::Node() : sequence(next_sequence++) {}

OpNode::OpNode(const OpDef& op_, Attrs attrs_, std::vector<Tensor> inputs_,
               const std::vector<Tensor>& outs)
    : op(&op_), attrs(std::move(attrs_)), inputs(std::move(inputs_)) {
  next.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool nondiff = std::find(op->nondiff_inputs.begin(), op->nondiff_inputs.end(), int(i)) !=
                   op->nondiff_inputs.end();
    next.push_back(!nondiff && inputs[i].requires_grad() ? gradient_edge(inputs[i]) : Edge{});
  }
  for (auto& o : outs) {
    out_meta.push_back({o.shape(), o.dtype(), o.device()});
    Tensor saved = o.alias();
    if (o.impl()->autograd) saved.impl()->meta().tangents = o.impl()->autograd->tangents;
    outputs.push_back(saved);
  }
}

std::vector<Tensor> OpNode::apply(const std::vector<Tensor>& grads) {
  SPIRE_CHECK(!released, AutodiffError, "trying to differentiate through the graph of '", op->name,
              "' a second time, but its saved tensors were freed after the first pass; pass "
              "retain_graph=True to the first backward()/grad() if you need to go through it again");
  SPIRE_CHECK(op->vjp, AutodiffError, "op '", op->name, "' has no reverse rule");
  std::vector<Tensor> outs = outputs;
  if (GradMode::enabled())
    for (size_t k = 0; k < outs.size(); ++k) outs[k] = reconnect(outputs[k], shared_from_this(), int(k));
  std::vector<bool> needs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) needs[i] = next[i].valid();
  std::vector<Tensor> gi = op->vjp(VjpContext{*op, attrs, inputs, outs, grads, needs});
  SPIRE_CHECK(gi.size() == inputs.size(), AutodiffError, "reverse rule of '", op->name, "' returned ",
              gi.size(), " gradients for ", inputs.size(), " inputs");
  for (size_t i = 0; i < gi.size(); ++i) {
    if (!gi[i].defined() || !needs[i]) continue;
    SPIRE_CHECK(gi[i].shape() == inputs[i].shape(), ShapeError, "reverse rule of '", op->name,
                "' gave a gradient of shape ", shape_str(gi[i].shape()), " for input ", i,
                " of shape ", shape_str(inputs[i].shape()));
    if (gi[i].dtype() != inputs[i].dtype()) gi[i] = cast(gi[i], inputs[i].dtype());
  }
  return gi;
}

void OpNode::release() {
  inputs.clear();
  outputs.clear();
  released = true;
}

AccumulateGrad::AccumulateGrad(const std::shared_ptr<TensorImpl>& leaf_) : leaf(leaf_) {
  // Made lazily, possibly after the ops that consume the leaf; it must still run after them.
  sequence = 0;
  out_meta.push_back({leaf_->shape, leaf_->dtype, leaf_->storage->device()});
}

std::vector<Tensor> AccumulateGrad::apply(const std::vector<Tensor>& grads) {
  auto impl = leaf.lock();
  if (!impl) return {};
  Tensor t(impl);
  Tensor g = grads[0];
  if (!GradMode::enabled()) g = g.detach();
  Tensor old = t.grad();
  t.set_grad(old.defined() ? add(old, g) : g);
  if (!impl->autograd->post_accumulate_hooks.empty()) {
    auto hooks = impl->autograd->post_accumulate_hooks;  // a copy: a hook may add or remove hooks
    for (auto& [id, hook] : hooks) hook(t);
  }
  return {};
}

Edge gradient_edge(const Tensor& t) {
  auto& m = t.impl()->meta();
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  auto acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    m.grad_accumulator = acc;
  }
  return {acc, 0};
}

}  // namespace spire
