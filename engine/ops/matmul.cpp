// matmul: the one contraction primitive (einsum, dot and the linear layers reduce to it), with the
// NumPy semantics of 1-d promotion done by the public wrapper around an op on [..., m, k] x [..., k, n].
#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;

std::vector<TensorMeta> infer_matmul(const std::vector<Tensor>& in, const Attrs&) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  require_same_dtype("matmul", in);
  SPIRE_CHECK(a.dim() >= 2 && b.dim() >= 2, ShapeError,
              "matmul: the primitive takes operands of at least 2 dimensions, got ", shape_str(a.shape()),
              " and ", shape_str(b.shape()));
  int64_t m = a.shape(-2), k = a.shape(-1), k2 = b.shape(-2), n = b.shape(-1);
  SPIRE_CHECK(k == k2, ShapeError, "matmul: inner dimensions differ: ", shape_str(a.shape()), " @ ",
              shape_str(b.shape()), " (", k, " vs ", k2, ")");
  Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  Shape out = broadcast_shapes(ba, bb, "matmul");
  out.push_back(m);
  out.push_back(n);
  return {{out, a.dtype()}};
}

SPIRE_DEFINE_OP({
    .name = "matmul",
    .num_inputs = 2,
    .infer = infer_matmul,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& g = c.grads[0];
      std::vector<Tensor> out(2);
      if (c.needs_grad[0]) out[0] = sum_to(matmul(g, mH(c.inputs[1])), c.inputs[0].shape());
      if (c.needs_grad[1]) {
        const Tensor& a = c.inputs[0];
        const Tensor& b = c.inputs[1];
        bool shared_b = a.dim() > 2 && a.numel() > 0 && g.numel() > 0;
        for (int64_t i = 0; i + 2 < b.dim(); ++i) shared_b &= b.shape(i) == 1;
        if (shared_b) {
          // A shared right operand (a linear layer): the batch sum is the inner dimension of one
          // GEMM, [k, batch*m] @ [batch*m, n], instead of batch products summed afterwards.
          Tensor a2 = reshape(a, {-1, a.shape(-1)}), g2 = reshape(g, {-1, g.shape(-1)});
          out[1] = reshape(matmul(mH(a2), g2), b.shape());
        } else {
          out[1] = sum_to(matmul(mH(c.inputs[0]), g), b.shape());
        }
      }
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      Tensor da = c.tangents[0].defined() ? matmul(c.tangents[0], c.inputs[1]) : Tensor();
      Tensor db = c.tangents[1].defined() ? matmul(c.inputs[0], c.tangents[1]) : Tensor();
      Tensor t = plus(da, db);
      return {t.defined() ? expand_to(t, c.outputs[0].shape()) : t};
    },
    .taylor = jets::bilinear,
    // Batch axes broadcast, so lining the operands up as elementwise ops do is enough; a mapped left
    // operand against a shared right one folds into one tall GEMM in the kernel. The public matmul
    // runs it, so broadcast rows (coordinate directions of a Laplacian) are multiplied once.
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      int64_t rank = std::max(batching::logical_dim(c, 0), batching::logical_dim(c, 1));
      Tensor ins[2];
      for (size_t i = 0; i < 2; ++i) {
        ins[i] = c.inputs[i];
        if (!c.batched[i] || batching::logical_dim(c, i) == rank) continue;
        Shape s = ins[i].shape();
        s.insert(s.begin() + 1, rank - batching::logical_dim(c, i), 1);
        ins[i] = reshape(ins[i], s);
      }
      return {matmul(ins[0], ins[1])};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4}, -1, 1, 1), sample({4, 2}, -1, 1, 2)}, {}, "2d"},
          {{sample({2, 1, 3, 4}, -1, 1, 3), sample({3, 4, 2}, -1, 1, 4)}, {}, "batch broadcast"},
          {{mT(sample({4, 3}, -1, 1, 5)), sample({2, 4, 2}, -1, 1, 6)}, {}, "transposed operand"},
          {{sample({2, 3, 4}, -1, 1, 9), sample({1, 4, 2}, -1, 1, 10)}, {}, "shared right operand"},
          {{sample({2, 3, 2}, -1, 1, 7, DType::Complex128), sample({2, 3}, -1, 1, 8, DType::Complex128)},
           {}, "complex"},
      };
    },
    .flops = [](const std::vector<Tensor>& in, const std::vector<Tensor>& out, const Attrs&) {
      return mac_flops(out[0].dtype(), double(out[0].numel()) * double(in[0].shape(-1)));
    },
});

}  // namespace

Tensor mH(const Tensor& x) { return rules::conj_if_complex(mT(x)); }

Tensor matmul(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("matmul");
  SPIRE_CHECK(a.dim() >= 1 && b.dim() >= 1, ShapeError,
              "matmul: operands must have at least 1 dimension (use mul for scalars), got ",
              shape_str(a.shape()), " and ", shape_str(b.shape()));
  auto [x, y] = promoted(a, b);
  // NumPy: a 1-d left operand is a row vector, a 1-d right operand a column vector; the added axis
  // is removed from the result.
  bool vec_a = x.dim() == 1, vec_b = y.dim() == 1;
  if (vec_a) x = reshape(x, {1, x.shape(0)});
  if (vec_b) y = reshape(y, {y.shape(0), 1});
  SPIRE_CHECK(x.shape(-1) == y.shape(-2), ShapeError, "matmul: inner dimensions differ: ",
              shape_str(a.shape()), " @ ", shape_str(b.shape()), " (", x.shape(-1), " vs ", y.shape(-2), ")");
  Tensor r;
  if (x.shape(-2) > 1 && x.strides()[x.dim() - 2] == 0 && !x.is_batched()) {
    // Broadcast rows (a stride-0 view) repeat one product: form it once and broadcast the result.
    r = call1(d, {slice(x, -2, 0, 1), y});
    Shape full = r.shape();
    full[full.size() - 2] = x.shape(-2);
    r = expand(r, full);
  } else {
    r = call1(d, {x, y});
  }
  if (!vec_a && !vec_b) return r;
  Shape s(r.shape().begin(), r.shape().end() - 2);
  if (!vec_a) s.push_back(r.shape(-2));
  if (!vec_b) s.push_back(r.shape(-1));
  return reshape(r, s);
}

}  // namespace spire
