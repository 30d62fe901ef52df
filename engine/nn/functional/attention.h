// Attention: scaled dot-product attention (torch.nn.functional.scaled_dot_product_attention) and
// multi-head attention with PyTorch's packed input projection (nn.MultiheadAttention).
#pragma once
#include <optional>

#include "engine/core/tensor.h"
#include "engine/ops/random.h"

namespace spire::nn::functional {

// softmax(q k^T scale + mask) v over q [..., L, E], k [..., S, E], v [..., S, Ev]; scale defaults to
// 1 / sqrt(E). attn_mask broadcasts to [..., L, S]: boolean (true = may attend, as PyTorch's
// scaled_dot_product_attention) or added to the scores. is_causal masks keys after the query
// position. Dropout (probability dropout_p, from gen) acts on the attention weights.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                    bool is_causal = false, std::optional<double> scale = std::nullopt,
                                    Generator* gen = nullptr);

struct MultiheadAttentionArgs {
  // [N, S] (unbatched: [S]); boolean true = ignore that key (PyTorch's convention), or additive.
  Tensor key_padding_mask;
  // [L, S] or [N * num_heads, L, S]; boolean true = may NOT attend (nn.MultiheadAttention's
  // convention, the opposite of scaled_dot_product_attention's), or additive.
  Tensor attn_mask;
  bool is_causal = false;       // masks later keys (added to attn_mask)
  bool need_weights = true;     // also return the attention weights
  bool average_attn_weights = true;  // over heads: [N, L, S]; otherwise [N, H, L, S]
  double dropout_p = 0.0;
  bool training = true;
  bool batch_first = false;     // [N, L, E] instead of [L, N, E]
  Generator* gen = nullptr;
  // Separate input projections (torch's use_separate_proj_weight, what nn.MultiheadAttention uses
  // when kdim or vdim differ from embed_dim): q_proj_weight [E, E], k_proj_weight [E, kdim],
  // v_proj_weight [E, vdim]. When q_proj_weight is defined, in_proj_weight is ignored (it may be
  // undefined); in_proj_bias [3E] still holds the three biases.
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;
  // add_bias_kv: bias_k and bias_v [1, 1, E] are appended to the projected keys and values as one
  // more source position (both or neither).
  Tensor bias_k, bias_v;
  // Appends a position of zeros to every head's keys and values.
  bool add_zero_attn = false;
};

struct AttentionOutput {
  Tensor output;   // shaped as query
  Tensor weights;  // undefined unless need_weights
};

// query [L, N, E] (or [N, L, E] with batch_first, or unbatched [L, E]); key [S, N, kdim] and
// value [S, N, vdim] (kdim = vdim = E unless separate projection weights are given).
// in_proj_weight [3E, E] packs W_q, W_k, W_v; in_proj_bias [3E]; out_proj [E, E] and [E].
// Masks are checked against S; positions added by bias_k/bias_v and add_zero_attn are never masked.
AttentionOutput multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                     int64_t num_heads, const Tensor& in_proj_weight,
                                     const Tensor& in_proj_bias, const Tensor& out_proj_weight,
                                     const Tensor& out_proj_bias, const MultiheadAttentionArgs& args = {});

}  // namespace spire::nn::functional
