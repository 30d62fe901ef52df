// The reverse-mode record. Each recorded op call becomes a Node holding what its reverse rule needs;
// `backward`/`grad` walk the nodes from outputs to inputs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/op.h"
#include "engine/core/tensor.h"

namespace spire {

struct Node;
// Where a gradient goes: output `output_nr` of `node` (the node that made an input).
struct Edge {
  std::shared_ptr<Node> node;
  int output_nr = 0;
  bool valid() const { return node != nullptr; }
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node() = default;
  // Gradients with respect to this node's outputs in, gradients for `next` out.
  virtual std::vector<Tensor> apply(const std::vector<Tensor>& grads) = 0;
  virtual std::string name() const = 0;
  // Drops saved tensors after a backward pass that did not ask to retain the graph.
  virtual void release() {}

  uint64_t sequence;  // creation order; later nodes run first
  std::vector<Edge> next;             // one per input
  std::vector<TensorMeta> out_meta;   // shapes, dtypes and devices of outputs, to make zero gradients
};

// A recorded primitive op.
struct OpNode final : Node {
  OpNode(const OpDef& op, Attrs attrs, std::vector<Tensor> inputs, const std::vector<Tensor>& outputs);
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override;
  std::string name() const override { return op->name; }
  void release() override;

  const OpDef* op;
  Attrs attrs;
  std::vector<Tensor> inputs;
  // Outputs are saved without their autodiff record (saving them whole would make a cycle);
  // `apply` reconnects them to this node when a higher derivative is being recorded.
  std::vector<Tensor> outputs;
  bool released = false;
};

// The sink of a leaf tensor: accumulates into leaf.grad().
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(const std::shared_ptr<TensorImpl>& leaf);
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  std::weak_ptr<TensorImpl> leaf;
};

// The edge a gradient for `t` flows into: its grad_fn, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);

}  // namespace spire
