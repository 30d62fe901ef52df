#include "engine/nn/layers/attention.h"

#include "engine/nn/functional/activation.h"
#include "engine/nn/init.h"
#include "engine/ops/elementwise.h"

namespace spire::nn {

MultiheadAttention::MultiheadAttention(int64_t e, int64_t h, double p, bool has_bias, bool bf, DType dtype,
                                       Generator* g)
    : Module("MultiheadAttention"), embed_dim(e), num_heads(h), dropout(p), batch_first(bf), gen(g) {
  check_layer_dtype(dtype, "MultiheadAttention");
  SPIRE_CHECK(h >= 1 && e % h == 0, ValueError, "MultiheadAttention: embed_dim (", e,
              ") must be divisible by num_heads (", h, ")");
  SPIRE_CHECK(p >= 0.0 && p <= 1.0, ValueError, "MultiheadAttention: dropout must be in [0, 1], got ", p);
  Generator& gg = generator_or_default(g);
  in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}, dtype));
  in_proj_bias = register_parameter("in_proj_bias", has_bias ? empty({3 * e}, dtype) : Tensor());
  out_proj = register_module("out_proj", std::make_shared<Linear>(e, e, has_bias, dtype, &gg));
  init::xavier_uniform_(in_proj_weight, 1.0, gg);
  if (in_proj_bias.defined()) init::zeros_(in_proj_bias);
  if (out_proj->bias.defined()) init::zeros_(out_proj->bias);
}

void MultiheadAttention::reset_parameters(Generator& g) {
  init::xavier_uniform_(in_proj_weight, 1.0, g);
  if (in_proj_bias.defined()) init::zeros_(in_proj_bias);
  out_proj->reset_parameters(g);
  if (out_proj->bias.defined()) init::zeros_(out_proj->bias);
}

functional::AttentionOutput MultiheadAttention::attend(const Tensor& q, const Tensor& k, const Tensor& v,
                                                       const Tensor& key_padding_mask, bool need_weights,
                                                       const Tensor& attn_mask, bool average_attn_weights,
                                                       bool is_causal) {
  functional::MultiheadAttentionArgs a;
  a.key_padding_mask = key_padding_mask;
  a.attn_mask = attn_mask;
  a.is_causal = is_causal;
  a.need_weights = need_weights;
  a.average_attn_weights = average_attn_weights;
  a.dropout_p = dropout;
  a.training = is_training();
  a.batch_first = batch_first;
  a.gen = gen;
  return functional::multi_head_attention(q, k, v, num_heads, in_proj_weight, in_proj_bias, out_proj->weight,
                                          out_proj->bias, a);
}

Tensors MultiheadAttention::forward(const Tensors& in) {
  SPIRE_CHECK(in.size() == 1 || in.size() == 3, ValueError,
              "MultiheadAttention: forward takes {query, key, value} or one tensor (self-attention), got ",
              in.size(), " tensors");
  auto r = in.size() == 1 ? attend(in[0], in[0], in[0]) : attend(in[0], in[1], in[2]);
  return {r.output, r.weights};
}

Tensor MultiheadAttention::forward(const Tensor& x) { return attend(x, x, x, Tensor(), false).output; }

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d, int64_t nhead, int64_t ff, double p, std::string act,
                                                 double eps, bool batch_first, bool nf, bool bias, DType dtype,
                                                 Generator* g)
    : Module("TransformerEncoderLayer"), activation(std::move(act)), norm_first(nf) {
  SPIRE_CHECK(activation == "relu" || activation == "gelu", ValueError,
              "TransformerEncoderLayer: activation must be \"relu\" or \"gelu\", got \"", activation, "\"");
  Generator& gg = generator_or_default(g);
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(d, nhead, p, bias, batch_first, dtype, g));
  linear1 = register_module("linear1", std::make_shared<Linear>(d, ff, bias, dtype, &gg));
  dropout = register_module("dropout", std::make_shared<Dropout>(p, g));
  linear2 = register_module("linear2", std::make_shared<Linear>(ff, d, bias, dtype, &gg));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(std::vector<int64_t>{d}, eps, true, bias, dtype));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(std::vector<int64_t>{d}, eps, true, bias, dtype));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(p, g));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(p, g));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& mask, const Tensor& kpm, bool is_causal) {
  auto sa = [&](const Tensor& x) {
    return dropout1->forward(self_attn->attend(x, x, x, kpm, false, mask, true, is_causal).output);
  };
  auto ffn = [&](const Tensor& x) {
    Tensor h = linear1->forward(x);
    h = activation == "relu" ? functional::relu(h) : functional::gelu(h);
    return dropout2->forward(linear2->forward(dropout->forward(h)));
  };
  Tensor x = src;
  if (norm_first) {
    x = x + sa(norm1->forward(x));
    x = x + ffn(norm2->forward(x));
  } else {
    x = norm1->forward(x + sa(x));
    x = norm2->forward(x + ffn(x));
  }
  return x;
}

}  // namespace spire::nn
