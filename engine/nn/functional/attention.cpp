#include "engine/nn/functional/attention.h"

#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/nn/functional/activation.h"
#include "engine/nn/functional/linear.h"
#include "engine/nn/functional/sparse.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/ops/device.h"

namespace spire::nn::functional {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// [L, S] boolean on `device`, true where key j <= query i.
Tensor causal_allowed(int64_t L, int64_t S, Device device) {
  Tensor i = reshape(arange(0, double(L)), {L, 1}), j = arange(0, double(S));
  return to(ge(i, j), device);
}

// An additive float mask of `like`'s dtype; boolean masks give -inf where `blocked_when` holds.
Tensor additive(const Tensor& mask, bool blocked_when, const Tensor& like) {
  if (mask.dtype() == DType::Bool) {
    Tensor blocked = blocked_when ? mask : logical_not(mask);
    return where(blocked, full({}, -kInf, like.dtype(), like.device()), zeros({}, like.dtype(), like.device()));
  }
  return cast(mask, like.dtype());
}

Tensor attend(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double scale, double dropout_p,
              Generator* gen, Tensor* weights_out) {
  Tensor s = matmul(q * scale, mT(k));
  if (mask.defined()) s = s + mask;
  Tensor a = softmax(s, -1);
  if (weights_out) *weights_out = a;
  if (dropout_p > 0.0) a = dropout(a, dropout_p, true, gen);
  return matmul(a, v);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& attn_mask,
                                    double dropout_p, bool is_causal, std::optional<double> scale, Generator* gen) {
  SPIRE_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2 && q.shape(-1) == k.shape(-1) &&
                  k.shape(-2) == v.shape(-2),
              ShapeError, "scaled_dot_product_attention: need q [..., L, E], k [..., S, E], v [..., S, Ev], got ",
              shape_str(q.shape()), ", ", shape_str(k.shape()), ", ", shape_str(v.shape()));
  int64_t L = q.shape(-2), S = k.shape(-2);
  Tensor mask;
  if (is_causal) mask = additive(causal_allowed(L, S, q.device()), false, q);
  if (attn_mask.defined()) {
    Tensor m = additive(attn_mask, false, q);
    mask = mask.defined() ? mask + m : m;
  }
  double sc = scale ? *scale : 1.0 / std::sqrt(double(q.shape(-1)));
  return attend(q, k, v, mask, sc, dropout_p, gen, nullptr);
}

AttentionOutput multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                     int64_t num_heads, const Tensor& in_proj_weight,
                                     const Tensor& in_proj_bias, const Tensor& out_proj_weight,
                                     const Tensor& out_proj_bias, const MultiheadAttentionArgs& args) {
  const char* op = "multi_head_attention";
  bool batched = query.dim() == 3;
  SPIRE_CHECK((query.dim() == 3 || query.dim() == 2) && key.dim() == query.dim() && value.dim() == query.dim(),
              ShapeError, op, ": query, key and value must all be 3-d (batched) or 2-d (unbatched), got ",
              shape_str(query.shape()), ", ", shape_str(key.shape()), ", ", shape_str(value.shape()));
  // To [N, L, E].
  auto to_nle = [&](const Tensor& t) {
    if (!batched) return unsqueeze(t, 0);
    return args.batch_first ? t : transpose(t, 0, 1);
  };
  Tensor q = to_nle(query), k = to_nle(key), v = to_nle(value);
  int64_t N = q.shape(0), L = q.shape(1), S = k.shape(1), E = q.shape(2);
  SPIRE_CHECK(num_heads >= 1 && E % num_heads == 0, ValueError, op, ": embed_dim (", E,
              ") must be divisible by num_heads (", num_heads, ")");
  bool separate = args.q_proj_weight.defined();
  SPIRE_CHECK(k.shape(0) == N && v.shape(0) == N && v.shape(1) == S, ShapeError, op,
              ": key and value must be [S, N, *] with query's N and the same S, got ", shape_str(key.shape()), ", ",
              shape_str(value.shape()));
  if (separate) {
    SPIRE_CHECK(args.k_proj_weight.defined() && args.v_proj_weight.defined(), ValueError, op,
                ": q_proj_weight, k_proj_weight and v_proj_weight go together");
    auto check_w = [&](const Tensor& w, int64_t in, const char* name) {
      SPIRE_CHECK(w.dim() == 2 && w.shape(0) == E && w.shape(1) == in, ShapeError, op, ": ", name, " must be [", E,
                  ", ", in, "] for these inputs, got ", shape_str(w.shape()));
    };
    check_w(args.q_proj_weight, E, "q_proj_weight");
    check_w(args.k_proj_weight, k.shape(2), "k_proj_weight");
    check_w(args.v_proj_weight, v.shape(2), "v_proj_weight");
  } else {
    SPIRE_CHECK(k.shape(2) == E && v.shape(2) == E, ShapeError, op, ": key and value must have embed_dim = ", E,
                " features with the packed in_proj_weight (give q/k/v_proj_weight for other kdim and vdim), got ",
                shape_str(key.shape()), ", ", shape_str(value.shape()));
    SPIRE_CHECK(in_proj_weight.defined() && in_proj_weight.dim() == 2 && in_proj_weight.shape(0) == 3 * E &&
                    in_proj_weight.shape(1) == E,
                ShapeError, op, ": in_proj_weight must be [3E, E] = [", 3 * E, ", ", E, "], got ",
                in_proj_weight.defined() ? shape_str(in_proj_weight.shape()) : std::string("None"));
  }
  SPIRE_CHECK(!in_proj_bias.defined() || (in_proj_bias.dim() == 1 && in_proj_bias.shape(0) == 3 * E), ShapeError,
              op, ": in_proj_bias must be [3E] = [", 3 * E, "], got ", shape_str(in_proj_bias.shape()));
  SPIRE_CHECK(args.bias_k.defined() == args.bias_v.defined(), ValueError, op,
              ": bias_k and bias_v go together (add_bias_kv)");
  int64_t H = num_heads, D = E / H;
  // [N, T, *] -> [N, T, E]
  auto proj = [&](const Tensor& x, int64_t part) {
    Tensor w = separate ? (part == 0 ? args.q_proj_weight : part == 1 ? args.k_proj_weight : args.v_proj_weight)
                        : slice(in_proj_weight, 0, part * E, (part + 1) * E);
    Tensor b = in_proj_bias.defined() ? slice(in_proj_bias, 0, part * E, (part + 1) * E) : Tensor();
    return linear(x, w, b);
  };
  // [N, T, E] -> [N, H, T, D]
  auto heads = [&](const Tensor& y) { return permute(reshape(y, {N, y.shape(1), H, D}), {0, 2, 1, 3}); };
  Tensor qp = proj(q, 0), kp = proj(k, 1), vp = proj(v, 2);
  int64_t extra = 0;  // source positions appended after the S keys
  if (args.bias_k.defined()) {
    for (const Tensor* b : {&args.bias_k, &args.bias_v})
      SPIRE_CHECK(b->numel() == E, ShapeError, op, ": bias_k and bias_v must be [1, 1, ", E, "], got ",
                  shape_str(b->shape()));
    kp = concat({kp, expand(reshape(args.bias_k, {1, 1, E}), {N, 1, E})}, 1);
    vp = concat({vp, expand(reshape(args.bias_v, {1, 1, E}), {N, 1, E})}, 1);
    ++extra;
  }
  Tensor qh = heads(qp), kh = heads(kp), vh = heads(vp);
  if (args.add_zero_attn) {
    kh = concat({kh, zeros({N, H, 1, D}, kh.dtype(), kh.device())}, 2);
    vh = concat({vh, zeros({N, H, 1, D}, vh.dtype(), vh.device())}, 2);
    ++extra;
  }
  // Appends never-masked columns for the extra positions.
  auto widen = [&](const Tensor& m) {
    if (extra == 0) return m;
    std::vector<std::pair<int64_t, int64_t>> pads(size_t(m.dim()), {0, 0});
    pads.back().second = extra;
    return pad(m, pads);
  };

  // One additive mask broadcasting to [N, H, L, S + extra].
  Tensor mask;
  auto add_mask = [&](const Tensor& m) { mask = mask.defined() ? mask + m : m; };
  if (args.attn_mask.defined()) {
    Tensor m = additive(args.attn_mask, true, qh);
    if (m.dim() == 2) {
      SPIRE_CHECK(m.shape(0) == L && m.shape(1) == S, ShapeError, op, ": attn_mask must be [L, S] = [", L, ", ",
                  S, "], got ", shape_str(m.shape()));
    } else {
      SPIRE_CHECK(m.dim() == 3 && m.shape(0) == N * H && m.shape(1) == L && m.shape(2) == S, ShapeError, op,
                  ": a 3-d attn_mask must be [N * num_heads, L, S] = [", N * H, ", ", L, ", ", S, "], got ",
                  shape_str(m.shape()));
      m = reshape(m, {N, H, L, S});
    }
    add_mask(widen(m));
  }
  if (args.is_causal) add_mask(widen(additive(causal_allowed(L, S, qh.device()), false, qh)));
  if (args.key_padding_mask.defined()) {
    Tensor kpm = batched ? args.key_padding_mask : unsqueeze(args.key_padding_mask, 0);
    SPIRE_CHECK(kpm.dim() == 2 && kpm.shape(0) == N && kpm.shape(1) == S, ShapeError, op,
                ": key_padding_mask must be [N, S] = [", N, ", ", S, "], got ", shape_str(args.key_padding_mask.shape()));
    add_mask(reshape(widen(additive(kpm, true, qh)), {N, 1, 1, S + extra}));
  }
  double p = args.training ? args.dropout_p : 0.0;
  Tensor weights;
  Tensor o = attend(qh, kh, vh, mask, 1.0 / std::sqrt(double(D)), p, args.gen,
                    args.need_weights ? &weights : nullptr);
  // [N, H, L, D] -> [N, L, E]
  o = reshape(permute(o, {0, 2, 1, 3}), {N, L, E});
  o = linear(o, out_proj_weight, out_proj_bias);
  if (!batched) o = squeeze(o, {0});
  else if (!args.batch_first) o = transpose(o, 0, 1);
  AttentionOutput out{o, Tensor()};
  if (args.need_weights) {
    Tensor w = args.average_attn_weights ? mean(weights, {1}) : weights;
    out.weights = batched ? w : squeeze(w, {0});
  }
  return out;
}

}  // namespace spire::nn::functional
