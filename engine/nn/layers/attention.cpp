#include "engine/nn/layers/attention.h"

#include "engine/nn/functional/activation.h"
#include "engine/nn/init.h"
#include "engine/ops/elementwise.h"

namespace spire::nn {

MultiheadAttention::MultiheadAttention(int64_t e, int64_t h, const MultiheadAttentionOptions& o)
    : Module("MultiheadAttention"), embed_dim(e), num_heads(h), kdim(o.kdim > 0 ? o.kdim : e),
      vdim(o.vdim > 0 ? o.vdim : e), dropout(o.dropout), batch_first(o.batch_first), add_zero_attn(o.add_zero_attn),
      qkv_same_embed_dim(kdim == e && vdim == e), gen(o.gen) {
  check_layer_dtype(o.dtype, "MultiheadAttention");
  SPIRE_CHECK(e >= 1 && h >= 1 && e % h == 0, ValueError, "MultiheadAttention: embed_dim (", e,
              ") must be divisible by num_heads (", h, ")");
  SPIRE_CHECK(o.kdim >= 0 && o.vdim >= 0, ValueError, "MultiheadAttention: kdim and vdim must be positive, got ",
              o.kdim, " and ", o.vdim);
  SPIRE_CHECK(o.dropout >= 0.0 && o.dropout <= 1.0, ValueError, "MultiheadAttention: dropout must be in [0, 1], got ",
              o.dropout);
  Generator& gg = generator_or_default(o.gen);
  // torch's registration order (state_dict keys follow it).
  if (qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}, o.dtype));
    register_parameter("q_proj_weight", Tensor());
    register_parameter("k_proj_weight", Tensor());
    register_parameter("v_proj_weight", Tensor());
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({e, e}, o.dtype));
    k_proj_weight = register_parameter("k_proj_weight", empty({e, kdim}, o.dtype));
    v_proj_weight = register_parameter("v_proj_weight", empty({e, vdim}, o.dtype));
    register_parameter("in_proj_weight", Tensor());
  }
  in_proj_bias = register_parameter("in_proj_bias", o.bias ? empty({3 * e}, o.dtype) : Tensor());
  out_proj = register_module("out_proj", std::make_shared<Linear>(e, e, o.bias, o.dtype, &gg));
  bias_k = register_parameter("bias_k", o.add_bias_kv ? empty({1, 1, e}, o.dtype) : Tensor());
  bias_v = register_parameter("bias_v", o.add_bias_kv ? empty({1, 1, e}, o.dtype) : Tensor());
  // out_proj drew its Linear initialisation above; the rest is torch's _reset_parameters.
  if (qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight, 1.0, gg);
  } else {
    init::xavier_uniform_(q_proj_weight, 1.0, gg);
    init::xavier_uniform_(k_proj_weight, 1.0, gg);
    init::xavier_uniform_(v_proj_weight, 1.0, gg);
  }
  if (in_proj_bias.defined()) init::zeros_(in_proj_bias);
  if (out_proj->bias.defined()) init::zeros_(out_proj->bias);
  if (bias_k.defined()) init::xavier_normal_(bias_k, 1.0, gg);
  if (bias_v.defined()) init::xavier_normal_(bias_v, 1.0, gg);
}

MultiheadAttention::MultiheadAttention(int64_t e, int64_t h, double p, bool has_bias, bool bf, DType dtype,
                                       Generator* g)
    : MultiheadAttention(e, h, [&] {
        MultiheadAttentionOptions o;
        o.dropout = p, o.bias = has_bias, o.batch_first = bf, o.dtype = dtype, o.gen = g;
        return o;
      }()) {}

void MultiheadAttention::reset_parameters(Generator& g) {
  if (qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight, 1.0, g);
  } else {
    init::xavier_uniform_(q_proj_weight, 1.0, g);
    init::xavier_uniform_(k_proj_weight, 1.0, g);
    init::xavier_uniform_(v_proj_weight, 1.0, g);
  }
  if (in_proj_bias.defined()) init::zeros_(in_proj_bias);
  out_proj->reset_parameters(g);
  if (out_proj->bias.defined()) init::zeros_(out_proj->bias);
  if (bias_k.defined()) init::xavier_normal_(bias_k, 1.0, g);
  if (bias_v.defined()) init::xavier_normal_(bias_v, 1.0, g);
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
  if (!qkv_same_embed_dim) {
    a.q_proj_weight = q_proj_weight;
    a.k_proj_weight = k_proj_weight;
    a.v_proj_weight = v_proj_weight;
  }
  a.bias_k = bias_k;
  a.bias_v = bias_v;
  a.add_zero_attn = add_zero_attn;
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
    return (*dropout1)(self_attn->attend(x, x, x, kpm, false, mask, true, is_causal).output);
  };
  auto ffn = [&](const Tensor& x) {
    Tensor h = (*linear1)(x);
    h = activation == "relu" ? functional::relu(h) : functional::gelu(h);
    return (*dropout2)((*linear2)((*dropout)(h)));
  };
  Tensor x = src;
  if (norm_first) {
    x = x + sa((*norm1)(x));
    x = x + ffn((*norm2)(x));
  } else {
    x = (*norm1)(x + sa(x));
    x = (*norm2)(x + ffn(x));
  }
  return x;
}

}  // namespace spire::nn
