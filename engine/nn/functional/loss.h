// Loss functions, as torch.nn.functional: the same formulas, defaults and reductions. Each reduces
// with Reduction::Mean (the default), Sum or None (elementwise, or per sample where the loss is a
// per-sample quantity). All are compositions of differentiable engine ops, so they take part in
// every transform (grad, vmap, jvp, Taylor).
#pragma once
#include <optional>
#include <string>

#include "engine/core/tensor.h"

namespace spire::nn::functional {

enum class Reduction { None, Mean, Sum };
// "none", "mean" or "sum"; anything else is a ValueError naming the choices.
Reduction parse_reduction(const std::string& name, const char* loss);

// (input - target)^2. input and target must have the same shape.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
// |input - target|.
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
// With d = input - target: d^2 / 2 where |d| < delta, else delta (|d| - delta / 2).
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                  double delta = 1.0);

// The neural-operator loss (LpLoss.rel of the FNO reference code): per sample n (the first axis),
// ||pred_n - target_n||_p / ||target_n||_p over all other axes; Mean averages over the batch, Sum
// adds, None returns the [N] per-sample ratios. p may be any p > 0 (default 2).
Tensor relative_l2_loss(const Tensor& pred, const Tensor& target, Reduction reduction = Reduction::Mean,
                        double p = 2.0);

struct CrossEntropyOptions {
  Tensor weight;              // [C] per-class weights (optional)
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::Mean;
  double label_smoothing = 0;
};

// Cross-entropy of logits, as torch.nn.functional.cross_entropy. input is [N, C, d1, ...] (or [C]);
// target is either class indices (an integer tensor [N, d1, ...], or a 0-d one for [C] input) or
// class probabilities (a floating tensor of input's shape). With indices, loss_n = -w[y_n]
// log_softmax(x_n)[y_n], targets equal to ignore_index contribute nothing, and Mean divides by the
// total weight of the targets not ignored. label_smoothing = e mixes in the uniform distribution:
// (1 - e) times that loss plus e / C times the (weighted) sum of -log_softmax over the classes.
// With probabilities, loss_n = -sum_c w_c q_nc log_softmax(x_n)_c and Mean divides by N d1 ...
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& options = {});

// -w (y log x + (1 - y) log(1 - x)) for probabilities x, each log clamped at -100 as PyTorch does.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                            Reduction reduction = Reduction::Mean);
// The same for logits x, stable for every x: -w (p y log sigmoid(x) + (1 - y) log(1 - sigmoid(x)))
// = w ((1 - y) x + (1 + (p - 1) y) softplus(-x)), with p = pos_weight (broadcast over the classes,
// the last axis) or 1.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                                        const Tensor& pos_weight = Tensor(), Reduction reduction = Reduction::Mean);

}  // namespace spire::nn::functional
