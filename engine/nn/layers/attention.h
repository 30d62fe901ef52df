// torch.nn.MultiheadAttention and TransformerEncoderLayer.
#pragma once
#include <memory>
#include <string>

#include "engine/nn/functional/attention.h"
#include "engine/nn/layers/common.h"
#include "engine/nn/layers/linear.h"
#include "engine/nn/layers/normalization.h"
#include "engine/nn/layers/sparse.h"
#include "engine/nn/module.h"

namespace spire::nn {

// torch.nn.MultiheadAttention's options after embed_dim and num_heads, with its defaults.
struct MultiheadAttentionOptions {
  double dropout = 0.0;
  bool bias = true;
  bool add_bias_kv = false;
  bool add_zero_attn = false;
  int64_t kdim = 0, vdim = 0;  // key and value features; 0 means embed_dim
  bool batch_first = false;
  DType dtype = DType::Float32;
  Generator* gen = nullptr;  // the default generator when null
};

// Parameters as torch's, under torch's names (so torch state_dicts load): when kdim = vdim =
// embed_dim, in_proj_weight [3E, E] packs the three input projections; otherwise q_proj_weight
// [E, E], k_proj_weight [E, kdim] and v_proj_weight [E, vdim] (each xavier_uniform). in_proj_bias
// [3E] (zeros), bias_k and bias_v [1, 1, E] with add_bias_kv (xavier_normal), and out_proj, a
// Linear(E, E) whose bias starts at zero. The parameters a configuration does not have are
// registered as none (undefined), as torch registers them as None.
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, const MultiheadAttentionOptions& options);
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool batch_first = false, DType dtype = DType::Float32, Generator* gen = nullptr);
  void reset_parameters(Generator& gen);
  // Masks and flags as functional::MultiheadAttentionArgs (dropout, training, batch_first and the
  // generator are the layer's own).
  functional::AttentionOutput attend(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = Tensor(), bool need_weights = true,
                                     const Tensor& attn_mask = Tensor(), bool average_attn_weights = true,
                                     bool is_causal = false);
  // {query, key, value} -> {output, weights}; one tensor is self-attention.
  Tensors forward(const Tensors& inputs) override;
  Tensor forward(const Tensor& x) override;

  int64_t embed_dim, num_heads, kdim, vdim;
  double dropout;
  bool batch_first, add_zero_attn;
  bool qkv_same_embed_dim;  // torch's _qkv_same_embed_dim: packed in_proj_weight
  Generator* gen;
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v;
  std::shared_ptr<Linear> out_proj;
};

// Self-attention and a feed-forward block, each with a residual connection and layer norm, after
// (default) or before (norm_first) the block; activation "relu" or "gelu".
class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048, double dropout = 0.1,
                          std::string activation = "relu", double layer_norm_eps = 1e-5, bool batch_first = false,
                          bool norm_first = false, bool bias = true, DType dtype = DType::Float32,
                          Generator* gen = nullptr);
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = Tensor(),
                 bool is_causal = false);
  using Module::forward;
  Tensor forward(const Tensor& src) override { return forward(src, Tensor()); }

  std::string activation;
  bool norm_first;
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2;
  std::shared_ptr<LayerNorm> norm1, norm2;
};

}  // namespace spire::nn
