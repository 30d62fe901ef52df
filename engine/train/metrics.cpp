#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/train/loss.h"

namespace spire::train {

double accuracy(const Tensor& output, const Tensor& target) {
  SPIRE_CHECK(output.defined() && target.defined(), ValueError, "accuracy: undefined output or target");
  NoGradGuard no_grad;
  Tensor out = output.detach(), tgt = target.detach();
  Tensor correct;
  if (out.dim() >= 2 && out.shape(-1) > 1) {
    Tensor pred = argmax(out, -1);
    if (tgt.shape() == out.shape()) {
      tgt = argmax(tgt, -1);
    } else {
      SPIRE_CHECK(tgt.numel() == pred.numel(), ShapeError, "accuracy: class scores ", shape_str(out.shape()),
                  " need one label per row (", pred.numel(), "), or a target of the same shape; got target ",
                  shape_str(tgt.shape()));
      tgt = reshape(cast(tgt, DType::Int64), pred.shape());
    }
    correct = eq(pred, tgt);
  } else {
    SPIRE_CHECK(tgt.numel() == out.numel(), ShapeError, "accuracy: binary scores ", shape_str(out.shape()),
                " need one target per score, got target ", shape_str(tgt.shape()));
    Tensor pred = gt(reshape(cast(out, DType::Float64), {-1}), Scalar(0.0));
    correct = eq(pred, gt(reshape(cast(tgt, DType::Float64), {-1}), Scalar(0.5)));
  }
  return mean(cast(correct, DType::Float64)).item<double>();
}

Metric metric(const std::string& name) {
  if (name == "accuracy" || name == "acc")
    return {"accuracy", [](const Tensor& out, const Tensor& y) { return accuracy(out, y); }};
  throw ValueError("fit: unknown metric '" + name + "'; known: accuracy (or acc), or a function "
                   "(outputs, target) -> double");
}

}  // namespace spire::train
