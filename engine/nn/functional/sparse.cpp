#include "engine/nn/functional/sparse.h"

#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::nn::functional {

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx) {
  SPIRE_CHECK(weight.dim() == 2, ShapeError, "embedding: weight must be [num_embeddings, embedding_dim], got ",
              shape_str(weight.shape()));
  SPIRE_CHECK(input.dtype() == DType::Int64 || input.dtype() == DType::Int32, DTypeError,
              "embedding: indices must be int32 or int64, got ", name(input.dtype()));
  Tensor rows = index_select(weight, 0, input);
  if (!padding_idx) return rows;
  int64_t pad = *padding_idx < 0 ? *padding_idx + weight.shape(0) : *padding_idx;
  SPIRE_CHECK(pad >= 0 && pad < weight.shape(0), ValueError, "embedding: padding_idx ", *padding_idx,
              " out of range for ", weight.shape(0), " embeddings");
  // Same values; the padding rows' copies carry no history, so their gradient is dropped.
  return where(unsqueeze(ne(input, Scalar(pad)), -1), rows, rows.detach());
}

Tensor dropout(const Tensor& x, double p, bool training, Generator* gen) {
  SPIRE_CHECK(p >= 0.0 && p <= 1.0, ValueError, "dropout: p must be in [0, 1], got ", p);
  if (!training || p == 0.0) return x;
  if (p == 1.0) return x * 0.0;
  Tensor keep = bernoulli(x.shape(), 1.0 - p, gen ? *gen : default_generator());
  return where(keep, x * (1.0 / (1.0 - p)), 0.0);
}

}  // namespace spire::nn::functional
