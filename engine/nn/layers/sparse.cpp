#include "engine/nn/layers/sparse.h"

#include "engine/autodiff/mode.h"
#include "engine/nn/functional/sparse.h"
#include "engine/nn/init.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"
#include "engine/ops/device.h"

namespace spire::nn {

Embedding::Embedding(int64_t n, int64_t d, std::optional<int64_t> pad, DType dtype, Generator* gen)
    : Module("Embedding"), num_embeddings(n), embedding_dim(d) {
  check_layer_dtype(dtype, "Embedding");
  SPIRE_CHECK(n >= 1 && d >= 1, ValueError, "Embedding: num_embeddings and embedding_dim must be >= 1, got ", n,
              " and ", d);
  if (pad) {
    SPIRE_CHECK(*pad >= -n && *pad < n, ValueError, "Embedding: padding_idx must be within num_embeddings (",
                -n, " to ", n - 1, "), got ", *pad);
    padding_idx = *pad < 0 ? *pad + n : *pad;
  }
  weight = register_parameter("weight", empty({n, d}, dtype));
  reset_parameters(generator_or_default(gen));
}

void Embedding::reset_parameters(Generator& gen) {
  init::normal_(weight, 0.0, 1.0, gen);
  if (padding_idx) {
    NoGradGuard no_grad;
    Tensor keep = ne(reshape(spire::to(arange(0, double(num_embeddings)), weight.device()), {num_embeddings, 1}), Scalar(*padding_idx));
    weight.set_data(contiguous(where(keep, weight, 0.0)));
  }
}

Tensor Embedding::forward(const Tensor& indices) { return functional::embedding(indices, weight, padding_idx); }

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
  return s;
}

Dropout::Dropout(double prob, Generator* g) : Module("Dropout"), p(prob), gen(g) {
  SPIRE_CHECK(p >= 0.0 && p <= 1.0, ValueError, "Dropout: p must be in [0, 1], got ", p);
}

Tensor Dropout::forward(const Tensor& x) { return functional::dropout(x, p, is_training(), gen); }

std::string Dropout::extra_repr() const { return "p=" + py_float(p) + ", inplace=False"; }

}  // namespace spire::nn
