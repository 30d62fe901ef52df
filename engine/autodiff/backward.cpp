#include "engine/autodiff/backward.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "engine/autodiff/mode.h"
#include "engine/autodiff/node.h"
#include "engine/ops/elementwise.h"

namespace spire::autodiff {
namespace {

std::string why_no_grad(const Tensor& t) {
  if (t.impl()->nondiff_origin)
    return "it depends on the inputs only through '" + t.impl()->nondiff_origin->name +
           "', which is not differentiable (its output carries no gradient)";
  return "it does not require grad and has no grad_fn (set requires_grad, or compute it from "
         "tensors that require grad outside of no_grad)";
}

void check_finite_grads(const Node& node, const std::vector<Tensor>& grads) {
  for (auto& g : grads) {
    if (!g.defined() || g.device().kind != DeviceKind::CPU) continue;
    for (double v : g.to_vector())
      if (!std::isfinite(v))
        throw ValueError("anomaly: the reverse rule of '" + node.name() + "' produced " +
                         (std::isnan(v) ? "NaN" : "Inf"));
  }
}

struct Run {
  std::vector<Edge> roots;
  std::vector<Tensor> root_grads;
  bool keep_graph;
  // When capturing (grad()), gradients arriving at these (node, output) pairs are returned instead
  // of flowing on; nodes that lead to none of them are not run.
  std::vector<Edge> targets;
  bool capture = false;
};

// Executes nodes in reverse creation order: a node's consumers were all created after it, so by the
// time it runs every gradient it will receive has arrived.
std::vector<Tensor> execute(Run& run) {
  // Reachable nodes.
  std::vector<Node*> order;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  for (auto& e : run.roots)
    if (e.valid() && seen.insert(e.node.get()).second) stack.push_back(e.node.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (auto& e : n->next)
      if (e.valid() && seen.insert(e.node.get()).second) stack.push_back(e.node.get());
  }
  std::sort(order.begin(), order.end(), [](Node* a, Node* b) { return a->sequence > b->sequence; });

  // When capturing, run only nodes from which a target is reachable.
  std::unordered_set<Node*> useful;
  if (run.capture) {
    for (auto& t : run.targets) useful.insert(t.node.get());
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      for (auto& e : (*it)->next)
        if (e.valid() && useful.count(e.node.get())) {
          useful.insert(*it);
          break;
        }
  }

  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  auto deposit = [&](const Edge& e, const Tensor& g) {
    auto& buf = buffers[e.node.get()];
    if (buf.empty()) buf.resize(e.node->out_meta.size());
    Tensor& slot = buf[e.output_nr];
    slot = slot.defined() ? add(slot, g) : g;
  };
  for (size_t i = 0; i < run.roots.size(); ++i)
    if (run.roots[i].valid()) deposit(run.roots[i], run.root_grads[i]);

  std::vector<Tensor> captured(run.targets.size());
  auto is_target = [&](Node* n) {
    for (auto& t : run.targets)
      if (t.node.get() == n) return true;
    return false;
  };
  for (Node* n : order) {
    auto it = buffers.find(n);
    if (it == buffers.end()) continue;
    std::vector<Tensor> grads = std::move(it->second);
    buffers.erase(it);
    if (run.capture) {
      if (is_target(n))
        for (size_t k = 0; k < run.targets.size(); ++k)
          if (run.targets[k].node.get() == n && grads[run.targets[k].output_nr].defined()) {
            Tensor& c = captured[k];
            const Tensor& g = grads[run.targets[k].output_nr];
            c = c.defined() ? add(c, g) : g;
          }
      if (!useful.count(n) || dynamic_cast<AccumulateGrad*>(n)) continue;
    }
    bool any = false;
    for (size_t k = 0; k < grads.size(); ++k) {
      if (grads[k].defined()) {
        any = true;
        continue;
      }
      grads[k] = zeros(n->out_meta[k].shape, n->out_meta[k].dtype, n->out_meta[k].device);
    }
    if (!any) continue;
    std::vector<Tensor> out = n->apply(grads);
    if (AnomalyMode::enabled()) check_finite_grads(*n, out);
    for (size_t i = 0; i < out.size() && i < n->next.size(); ++i)
      if (out[i].defined() && n->next[i].valid()) deposit(n->next[i], out[i]);
    if (!run.keep_graph) n->release();
  }
  return captured;
}

Run make_run(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
             bool keep_graph, const char* what) {
  Run run;
  run.keep_graph = keep_graph;
  SPIRE_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), ValueError, what,
              ": got ", grad_outputs.size(), " grad_outputs for ", outputs.size(), " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& y = outputs[i];
    SPIRE_CHECK(y.requires_grad(), AutodiffError, what, ": output ", i, " cannot be differentiated: ",
                why_no_grad(y));
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      SPIRE_CHECK(y.numel() == 1, ValueError, what, ": output ", i, " has shape ",
                  shape_str(y.shape()), "; gradients can be implicitly created only for outputs "
                  "with one element, pass grad_outputs for the others");
      g = ones(y.shape(), y.dtype(), y.device());
    }
    SPIRE_CHECK(g.shape() == y.shape(), ShapeError, what, ": grad_output ", i, " has shape ",
                shape_str(g.shape()), " but the output has shape ", shape_str(y.shape()));
    run.roots.push_back(gradient_edge(y));
    run.root_grads.push_back(g);
  }
  return run;
}

}  // namespace

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph,
                         bool create_graph, bool allow_unused) {
  GradModeGuard mode(create_graph);
  Run run = make_run(outputs, grad_outputs, retain_graph || create_graph, "grad");
  run.capture = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    SPIRE_CHECK(inputs[i].requires_grad(), AutodiffError, "grad: input ", i,
                " does not require grad, so nothing can be computed for it");
    run.targets.push_back(gradient_edge(inputs[i]));
  }
  std::vector<Tensor> result = execute(run);
  for (size_t i = 0; i < result.size(); ++i)
    SPIRE_CHECK(allow_unused || result[i].defined(), AutodiffError, "grad: input ", i,
                " was not used to compute the outputs (pass allow_unused=True to get None)");
  return result;
}

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
              bool retain_graph, bool create_graph) {
  GradModeGuard mode(create_graph);
  Run run = make_run(outputs, grad_outputs, retain_graph || create_graph, "backward");
  execute(run);
}

}  // namespace spire::autodiff
