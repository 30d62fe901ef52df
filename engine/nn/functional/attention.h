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
};

struct AttentionOutput {
  Tensor output;   // shaped as query
  Tensor weights;  // undefined unless need_weights
};

// query [L, N, E] (or [N, L, E] with batch_first, or unbatched [L, E]); key and value [S, N, E].
// in_proj_weight [3E, E] packs W_q, W_k, W_v; in_proj_bias [3E]; out_proj [E, E] and [E].
AttentionOutput multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                     int64_t num_heads, const Tensor& in_proj_weight,
                                     const Tensor& in_proj_bias, const Tensor& out_proj_weight,
                                     const Tensor& out_proj_bias, const MultiheadAttentionArgs& args = {});

}  // namespace spire::nn::functional
