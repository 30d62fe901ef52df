// Linear algebra: matmul (every BLAS path against a naive triple loop), einsum against explicit
// loops, the factorisations against hand-computed values and their defining identities, norms.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>

#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

using namespace spire;
using c128v = std::vector<c128>;

namespace {

// Values of any inexact tensor as complex numbers, row-major.
c128v values(const Tensor& t) {
  Tensor c = contiguous(cast(t, DType::Complex128));
  const c128* p = c.data<c128>();
  return c128v(p, p + c.numel());
}

void expect_close(const Tensor& got, const Tensor& want, double tol) {
  ASSERT_EQ(got.shape(), want.shape());
  c128v g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::abs(g[i] - w[i]), tol * (1.0 + std::abs(w[i]))) << "at flat index " << i;
}

void expect_values(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  c128v g = values(got);
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i].real(), want[i], tol) << "at flat index " << i;
}

// A tensor's values read once into complex128, indexed by multi-index.
struct Dense {
  c128v v;
  Shape strides;
  explicit Dense(const Tensor& t) : v(values(t)), strides(contiguous_strides(t.shape())) {}
  c128 operator()(const Shape& idx) const {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    return v[off];
  }
};
c128 at(const Tensor& t, const Shape& idx) { return Dense(t)(idx); }

// Calls f(idx) for every multi-index of `shape`.
void for_each_index(const Shape& shape, const std::function<void(const Shape&)>& f) {
  int64_t n = numel_of(shape);
  Shape idx(shape.size());
  for (int64_t r = 0; r < n; ++r) {
    int64_t rem = r;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
    }
    f(idx);
  }
}

// The naive batched product with NumPy broadcasting, in complex128.
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  Shape batch = broadcast_shapes(ba, bb, "naive");
  int64_t m = a.shape(-2), k = a.shape(-1), n = b.shape(-1);
  Shape out = batch;
  out.push_back(m);
  out.push_back(n);
  Tensor r = zeros(out, DType::Complex128);
  c128* pr = r.data<c128>();
  Dense da(a), db(b);
  int64_t flat = 0;
  auto sub = [](const Shape& batch_idx, const Shape& own, int64_t i, int64_t j) {
    Shape idx;
    int64_t lead = int64_t(batch_idx.size()) - int64_t(own.size());
    for (size_t d = 0; d < own.size(); ++d) idx.push_back(own[d] == 1 ? 0 : batch_idx[lead + d]);
    idx.push_back(i);
    idx.push_back(j);
    return idx;
  };
  for_each_index(batch, [&](const Shape& bi) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        c128 s = 0;
        for (int64_t p = 0; p < k; ++p) s += da(sub(bi, ba, i, p)) * db(sub(bi, bb, p, j));
        pr[flat++] = s;
      }
  });
  return r;
}

double tol_for(DType t) { return t == DType::Float32 || t == DType::Complex64 ? 1e-4 : 1e-12; }

Tensor sample_of(const Shape& s, uint64_t seed, DType t) {
  DType base = is_complex(t) ? DType::Complex128 : DType::Float64;
  return cast(rules::sample(s, -1, 1, seed, base), t);
}

}  // namespace

TEST(Matmul, HandComputed) {
  Tensor a = from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = from_vector<double>({7, 8, 9, 10, 11, 12}, {3, 2});
  expect_values(matmul(a, b), {58, 64, 139, 154});
  Tensor v = from_vector<double>({1, 1, 1}, {3});
  EXPECT_EQ(matmul(a, v).shape(), (Shape{2}));
  expect_values(matmul(a, v), {6, 15});
  Tensor w = from_vector<double>({1, -1}, {2});
  EXPECT_EQ(matmul(w, a).shape(), (Shape{3}));
  expect_values(matmul(w, a), {-3, -3, -3});
  Tensor d = matmul(v, from_vector<double>({1, 2, 3}, {3}));
  EXPECT_EQ(d.dim(), 0);
  EXPECT_DOUBLE_EQ(d.item<double>(), 6.0);
}

TEST(Matmul, EveryDTypeAndLayoutAgainstNaive) {
  struct Case {
    Shape a, b;
    bool ta, tb;  // pass the operand as mT of a stored transpose
  };
  std::vector<Case> cases = {
      {{5, 7}, {7, 3}, false, false},        {{5, 7}, {7, 3}, true, false},
      {{5, 7}, {7, 3}, false, true},         {{5, 7}, {7, 3}, true, true},
      {{2, 3, 4, 5}, {5, 6}, false, false},  // a batch over a shared right operand (folded)
      {{3, 1, 40, 40}, {2, 40, 40}, false, true},  // broadcast batches of BLAS-sized products
      {{30, 4, 3}, {30, 3, 5}, true, false},  // many small products
      {{3, 1, 4, 5}, {2, 5, 3}, false, true},  // small products over broadcast batches
      {{6, 9}, {9, 1}, true, false},         // matrix-vector
      {{1, 9}, {9, 6}, false, true},         // vector-matrix
      {{4, 0}, {0, 3}, false, false},        // empty inner dimension
  };
  for (DType t : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    uint64_t seed = 1;
    for (auto& c : cases) {
      auto make = [&](Shape s, bool trans) {
        if (!trans) return sample_of(s, seed++, t);
        std::swap(s[s.size() - 1], s[s.size() - 2]);
        return mT(sample_of(s, seed++, t));
      };
      Tensor a = make(c.a, c.ta), b = make(c.b, c.tb);
      Tensor r = matmul(a, b);
      EXPECT_EQ(r.dtype(), t);
      expect_close(r, naive_matmul(a, b), tol_for(t));
    }
  }
}

TEST(Matmul, StridedAndBroadcastOperands) {
  // Rows repeated by expand (stride 0) and every other column: layouts BLAS cannot take directly.
  Tensor row = rules::sample({1, 6}, -1, 1, 3);
  Tensor a = expand(row, {4, 6});
  Tensor big = rules::sample({6, 10}, -1, 1, 4);
  Tensor b = slice(big, 1, 0, 10, 2);
  expect_close(matmul(a, b), naive_matmul(a, b), 1e-12);
  // Broadcast rows are multiplied once and the product broadcast: gradients reach the one row.
  Tensor leaf = row.detach().set_requires_grad(true);
  sum(square(matmul(expand(leaf, {4, 6}), b))).backward();
  Tensor want = mul(matmul(matmul(expand(row, {1, 6}), b), mT(b)), 8.0);  // d/dr 4 |r b|^2
  expect_close(leaf.grad(), want, 1e-12);
  // A batch whose matrices sit at non-uniform offsets (a permuted batch).
  Tensor c = permute(rules::sample({4, 3, 5}, -1, 1, 5), {1, 0, 2});  // [3, 4, 5], batch stride 5
  Tensor d = rules::sample({5, 2}, -1, 1, 6);
  expect_close(matmul(c, d), naive_matmul(c, d), 1e-12);
  // Negative strides (rows read bottom up), alone and in a batch of small products.
  Tensor base = rules::sample({5, 6}, -1, 1, 7);
  Tensor rev = make_view(base, {5, 6}, {-6, 1}, 4 * 6);
  expect_close(matmul(rev, big), naive_matmul(rev, big), 1e-12);
  Tensor small = make_view(base, {5, 2, 3}, {-6, 3, 1}, 4 * 6);
  Tensor e = rules::sample({5, 3, 2}, -1, 1, 8);
  expect_close(matmul(small, e), naive_matmul(small, e), 1e-12);
}

TEST(Matmul, IntegersAndPromotion) {
  Tensor a = from_vector<int64_t>({1, 2, 3, 4}, {2, 2});
  Tensor b = from_vector<int64_t>({5, 6, 7, 8}, {2, 2});
  Tensor r = matmul(a, b);
  EXPECT_EQ(r.dtype(), DType::Int64);
  EXPECT_EQ(r.to_vector(), (std::vector<double>{19, 22, 43, 50}));
  // a batch of int32 products, and NumPy's boolean product (any of a and b)
  Tensor ia = cast(rules::sample_int({40, 3, 4}, -5, 5, 1), DType::Int32);
  Tensor ib = cast(rules::sample_int({4, 2}, -5, 5, 2), DType::Int32);
  Tensor ir = matmul(ia, ib);
  EXPECT_EQ(ir.dtype(), DType::Int32);
  EXPECT_EQ(ir.to_vector(), naive_matmul(cast(ia, DType::Float64), cast(ib, DType::Float64)).to_vector());
  Tensor ba = from_vector<bool>({true, false, false, false}, {2, 2});
  Tensor bb = from_vector<bool>({false, true, true, false}, {2, 2});
  EXPECT_EQ(matmul(ba, bb).to_vector(), (std::vector<double>{0, 1, 0, 0}));
  Tensor f = matmul(a, from_vector<double>({1, 0, 0, 1}, {2, 2}));
  EXPECT_EQ(f.dtype(), DType::Float64);
  EXPECT_EQ(f.to_vector(), (std::vector<double>{1, 2, 3, 4}));
}

TEST(Matmul, ShapeErrors) {
  EXPECT_THROW(matmul(zeros({2, 3}), zeros({2, 3})), ShapeError);
  EXPECT_THROW(matmul(zeros({2, 2, 3}), zeros({3, 3, 2})), ShapeError);  // batch 2 vs 3
  EXPECT_THROW(matmul(zeros({}), zeros({3})), ShapeError);
}

TEST(Matmul, Gradients) {
  // L = sum(A @ B): dL/dA = 1 B^T, dL/dB = A^T 1, summed over the broadcast batch of B.
  Tensor a = rules::sample({2, 3, 4}, -1, 1, 1).set_requires_grad();
  Tensor b = rules::sample({4, 5}, -1, 1, 2).set_requires_grad();
  sum(matmul(a, b)).backward();
  Tensor ga = matmul(ones({2, 3, 5}, DType::Float64), mT(b.detach()));
  Tensor gb = sum(matmul(mT(a.detach()), ones({2, 3, 5}, DType::Float64)), {0});
  expect_close(a.grad(), ga, 1e-12);
  expect_close(b.grad(), gb, 1e-12);
}

TEST(Einsum, AgainstExplicitLoops) {
  Tensor m = rules::sample({4, 4}, -1, 1, 1);
  // trace and diagonal
  c128 tr = 0;
  for (int i = 0; i < 4; ++i) tr += at(m, {i, i});
  EXPECT_NEAR(einsum("ii", {m}).item<double>(), tr.real(), 1e-12);
  EXPECT_NEAR(einsum("ii->", {m}).item<double>(), tr.real(), 1e-12);
  Tensor dg = einsum("ii->i", {m});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(at(dg, {i}).real(), at(m, {i, i}).real(), 1e-15);
  // transpose, implicit and explicit
  expect_close(einsum("ij->ji", {m}), mT(m), 0);
  expect_close(einsum("ba", {m}), mT(m), 0);

  // batched product
  Tensor a = rules::sample({3, 2, 5}, -1, 1, 2), b = rules::sample({3, 5, 4}, -1, 1, 3);
  Tensor bmm = einsum("bij,bjk->bik", {a, b});
  ASSERT_EQ(bmm.shape(), (Shape{3, 2, 4}));
  for_each_index({3, 2, 4}, [&](const Shape& ix) {
    c128 s = 0;
    for (int64_t j = 0; j < 5; ++j) s += at(a, {ix[0], ix[1], j}) * at(b, {ix[0], j, ix[2]});
    EXPECT_NEAR(at(bmm, ix).real(), s.real(), 1e-12);
  });

  // outer product and dot
  Tensor u = rules::sample({3}, -1, 1, 4), v = rules::sample({5}, -1, 1, 5);
  Tensor o = einsum("i,j->ij", {u, v});
  for_each_index({3, 5}, [&](const Shape& ix) {
    EXPECT_NEAR(at(o, ix).real(), (at(u, {ix[0]}) * at(v, {ix[1]})).real(), 1e-15);
  });
  Tensor w = rules::sample({3}, -1, 1, 6);
  EXPECT_NEAR(einsum("i,i", {u, w}).item<double>(),
              (at(u, {0}) * at(w, {0}) + at(u, {1}) * at(w, {1}) + at(u, {2}) * at(w, {2})).real(), 1e-12);

  // implicit matrix product: output "ik"
  Tensor p = rules::sample({2, 3}, -1, 1, 7), q = rules::sample({3, 4}, -1, 1, 8);
  expect_close(einsum("ij,jk", {p, q}), naive_matmul(p, q), 1e-12);
  // implicit output is sorted: "jk,ij" gives "ik" too (NumPy orders output letters alphabetically)
  expect_close(einsum("jk,ij", {q, p}), naive_matmul(p, q), 1e-12);
}

TEST(Einsum, EllipsisBroadcastAndChains) {
  // '...' broadcasts: [2, 1, 3, 4] x [5, 4, 2] -> [2, 5, 3, 2]
  Tensor a = rules::sample({2, 1, 3, 4}, -1, 1, 1), b = rules::sample({5, 4, 2}, -1, 1, 2);
  Tensor r = einsum("...ij,...jk->...ik", {a, b});
  ASSERT_EQ(r.shape(), (Shape{2, 5, 3, 2}));
  expect_close(r, naive_matmul(a, b), 1e-12);
  EXPECT_EQ(einsum("...ij,...jk", {a, b}).shape(), (Shape{2, 5, 3, 2}));

  // three operands with a summed index shared by the first two and an output index from the third
  Tensor x = rules::sample({2, 3, 4}, -1, 1, 3), y = rules::sample({4, 5}, -1, 1, 4),
         z = rules::sample({5, 2}, -1, 1, 5);
  Tensor c = einsum("ijk,kl,lm->im", {x, y, z});
  ASSERT_EQ(c.shape(), (Shape{2, 2}));
  for_each_index({2, 2}, [&](const Shape& ix) {
    c128 s = 0;
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k)
        for (int64_t l = 0; l < 5; ++l)
          s += at(x, {ix[0], j, k}) * at(y, {k, l}) * at(z, {l, ix[1]});
    EXPECT_NEAR(at(c, ix).real(), s.real(), 1e-12);
  });

  // a repeated index inside one operand next to others: iij->ji (NumPy's example values)
  Tensor t = reshape(arange(0, 12, 1, DType::Float64), {2, 2, 3});
  Tensor d = einsum("iij->ji", {t});
  expect_values(d, {0, 9, 1, 10, 2, 11});

  // a size-1 axis broadcasts against a labelled axis, as in NumPy
  Tensor one = rules::sample({1, 3}, -1, 1, 6), two = rules::sample({2, 3}, -1, 1, 7);
  Tensor e = einsum("ij,ij->ij", {one, two});
  for_each_index({2, 3}, [&](const Shape& ix) {
    EXPECT_NEAR(at(e, ix).real(), (at(one, {0, ix[1]}) * at(two, ix)).real(), 1e-15);
  });
}

TEST(Einsum, ComplexAndGradient) {
  Tensor a = rules::sample({3, 4}, -1, 1, 1, DType::Complex128), b = rules::sample({4}, -1, 1, 2, DType::Complex128);
  expect_close(einsum("ij,j->i", {a, b}), reshape(naive_matmul(a, reshape(b, {4, 1})), {3}), 1e-12);
  // d/dA sum_ij A_ij x_j = x_j for every i
  Tensor m = rules::sample({3, 4}, -1, 1, 3).set_requires_grad();
  Tensor x = rules::sample({4}, -1, 1, 4);
  sum(einsum("ij,j->i", {m, x})).backward();
  expect_close(m.grad(), expand(reshape(x, {1, 4}), {3, 4}), 1e-15);
}

TEST(Einsum, Errors) {
  Tensor m = zeros({2, 3});
  EXPECT_THROW(einsum("ij,jk", {m}), ValueError);             // two subscripts, one operand
  EXPECT_THROW(einsum("ijk", {m}), ShapeError);               // too many subscripts
  EXPECT_THROW(einsum("i1", {m}), ValueError);                // bad character
  EXPECT_THROW(einsum("ij->ik", {m}), ValueError);            // output index from nowhere
  EXPECT_THROW(einsum("ij,ij", {m, zeros({3, 2})}), ShapeError);  // sizes disagree
}

TEST(Solve, ResidualsAndShapes) {
  Tensor a = add(rules::sample({4, 4}, -1, 1, 1), mul(eye(4, DType::Float64), 3.0));
  Tensor b = rules::sample({4, 2}, -1, 1, 2);
  Tensor x = solve(a, b);
  expect_close(matmul(a, x), b, 1e-12);
  // a vector right-hand side, then a batch of vectors beside a batch of matrices
  Tensor v = rules::sample({4}, -1, 1, 3);
  Tensor xv = solve(a, v);
  EXPECT_EQ(xv.shape(), (Shape{4}));
  expect_close(matmul(a, xv), v, 1e-12);
  Tensor ab = add(rules::sample({3, 4, 4}, -1, 1, 4), mul(eye(4, DType::Float64), 3.0));
  Tensor vb = rules::sample({3, 4}, -1, 1, 5);
  Tensor xb = solve(ab, vb);
  EXPECT_EQ(xb.shape(), (Shape{3, 4}));
  expect_close(matmul(ab, unsqueeze(xb, -1)), unsqueeze(vb, -1), 1e-12);
  // broadcast: one matrix, a batch of right-hand sides; float32; complex
  Tensor bb = rules::sample({2, 4, 3}, -1, 1, 6);
  expect_close(matmul(a, solve(a, bb)), bb, 1e-12);
  Tensor x32 = solve(cast(a, DType::Float32), cast(b, DType::Float32));
  EXPECT_EQ(x32.dtype(), DType::Float32);
  expect_close(x32, x, 1e-4);
  Tensor ac = add(rules::sample({3, 3}, -1, 1, 7, DType::Complex128), mul(eye(3, DType::Complex128), 3.0));
  Tensor bc = rules::sample({3, 2}, -1, 1, 8, DType::Complex128);
  expect_close(matmul(ac, solve(ac, bc)), bc, 1e-12);
  // Hand-computed: [[2, 1], [1, 3]] x = [3, 5] -> x = [4/5, 7/5]
  expect_values(solve(from_vector<double>({2, 1, 1, 3}, {2, 2}), from_vector<double>({3, 5}, {2})), {0.8, 1.4});
}

TEST(Solve, Errors) {
  EXPECT_THROW(solve(zeros({2, 3}, DType::Float64), zeros({2}, DType::Float64)), ShapeError);
  EXPECT_THROW(solve(eye(3, DType::Float64), zeros({2}, DType::Float64)), ShapeError);
  Tensor batch = stack({eye(2, DType::Float64), from_vector<double>({1, 2, 2, 4}, {2, 2})}, 0);
  try {
    solve(batch, ones({2, 2}, DType::Float64));
    FAIL() << "a singular matrix was solved";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("solve"), std::string::npos) << msg;
    EXPECT_NE(msg.find("batch index [1]"), std::string::npos) << msg;
  }
}

TEST(Inverse, HandComputedAndIdentity) {
  // [[4, 7], [2, 6]]^-1 = [[0.6, -0.7], [-0.2, 0.4]]
  expect_values(inverse(from_vector<double>({4, 7, 2, 6}, {2, 2})), {0.6, -0.7, -0.2, 0.4});
  for (DType t : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    Tensor a = add(sample_of({3, 5, 5}, 1, t), mul(eye(5, t), 4.0));
    Tensor i = matmul(a, inverse(a));
    expect_close(i, expand(eye(5, t), {3, 5, 5}), 10 * tol_for(t));
  }
  // integers are inverted in float32
  EXPECT_EQ(inverse(from_vector<int64_t>({2, 0, 0, 4}, {2, 2})).dtype(), DType::Float32);
  EXPECT_THROW(inverse(zeros({2, 2}, DType::Float64)), ValueError);
  EXPECT_THROW(inverse(zeros({2, 3}, DType::Float64)), ShapeError);
}

TEST(Det, KnownValues) {
  EXPECT_NEAR(det(from_vector<double>({1, 2, 3, 4}, {2, 2})).item<double>(), -2.0, 1e-14);
  // [[2, 0, 1], [1, 3, 2], [1, 1, 1]]: 2(3 - 2) - 0 + 1(1 - 3) = 0 ... use a nonsingular one:
  // [[6, 1, 1], [4, -2, 5], [2, 8, 7]] -> -306
  EXPECT_NEAR(det(from_vector<double>({6, 1, 1, 4, -2, 5, 2, 8, 7}, {3, 3})).item<double>(), -306.0, 1e-12);
  EXPECT_NEAR(det(from_vector<double>({1, 2, 2, 4}, {2, 2})).item<double>(), 0.0, 1e-15);  // singular: 0
  Tensor batch = stack({mul(eye(3, DType::Float64), 2.0), mul(eye(3, DType::Float64), -1.0)}, 0);
  expect_values(det(batch), {8.0, -1.0});
  // diag(i, 2i): det = -2; a permutation swaps the sign
  Tensor z = from_vector<c128>({{0, 1}, {0, 0}, {0, 0}, {0, 2}}, {2, 2});
  c128v d = values(det(z));
  EXPECT_NEAR(d[0].real(), -2.0, 1e-15);
  EXPECT_NEAR(d[0].imag(), 0.0, 1e-15);
  EXPECT_NEAR(det(from_vector<double>({0, 1, 1, 0}, {2, 2})).item<double>(), -1.0, 1e-15);
  // d det / dA = det A^-T
  Tensor a = from_vector<double>({4, 7, 2, 6}, {2, 2}).set_requires_grad();
  det(a).backward();
  expect_values(a.grad(), {6, -2, -7, 4}, 1e-12);
}

TEST(Cholesky, HandComputedAndIdentity) {
  // [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]]
  expect_values(cholesky(from_vector<double>({4, 2, 2, 3}, {2, 2})), {2, 0, 1, std::sqrt(2.0)});
  Tensor a = rules_sample_spd({3}, 6, 1);
  Tensor l = cholesky(a);
  expect_close(matmul(l, mT(l)), a, 1e-12);
  expect_close(triu(l, 1), zeros_like(l), 0);
  Tensor h = rules_sample_spd({}, 4, 2, DType::Complex128);
  Tensor lh = cholesky(h);
  expect_close(matmul(lh, mH(lh)), h, 1e-12);
  Tensor l32 = cholesky(cast(a, DType::Float32));
  expect_close(l32, l, 1e-4);
}

TEST(Cholesky, Errors) {
  Tensor batch = stack({eye(2, DType::Float64), from_vector<double>({1, 2, 2, 1}, {2, 2})}, 0);
  try {
    cholesky(batch);
    FAIL() << "an indefinite matrix was factored";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("cholesky"), std::string::npos) << msg;
    EXPECT_NE(msg.find("batch index [1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("positive definite"), std::string::npos) << msg;
  }
  EXPECT_THROW(cholesky(zeros({3, 2}, DType::Float64)), ShapeError);
}

TEST(TriangularSolve, AllVariants) {
  Tensor a = add(rules::sample({4, 4}, -1, 1, 1), mul(eye(4, DType::Float64), 3.0));
  Tensor b = rules::sample({2, 4, 3}, -1, 1, 2);
  Tensor lo = tril(a), up = triu(a);
  // Only the named triangle is read: the full matrix gives the same answer.
  expect_close(matmul(lo, triangular_solve(a, b, true)), b, 1e-12);
  expect_close(matmul(up, triangular_solve(a, b, false)), b, 1e-12);
  expect_close(matmul(mT(lo), triangular_solve(a, b, true, true)), b, 1e-12);
  expect_close(matmul(mT(up), triangular_solve(a, b, false, true)), b, 1e-12);
  // Hand-computed: [[2, 0], [1, 4]] x = [4, 6] -> x = [2, 1]
  expect_values(triangular_solve(from_vector<double>({2, 0, 1, 4}, {2, 2}), from_vector<double>({4, 6}, {2}), true),
                {2, 1});
  Tensor ac = add(rules::sample({3, 3}, -1, 1, 3, DType::Complex128), mul(eye(3, DType::Complex128), 3.0));
  Tensor bc = rules::sample({3, 2}, -1, 1, 4, DType::Complex128);
  expect_close(matmul(triu(ac), triangular_solve(ac, bc, false)), bc, 1e-12);
  EXPECT_THROW(triangular_solve(from_vector<double>({1, 0, 1, 0}, {2, 2}), ones({2}, DType::Float64), true),
               ValueError);
}

TEST(Norms, VectorAndMatrix) {
  Tensor v = from_vector<double>({3, -4}, {2});
  EXPECT_NEAR(vector_norm(v).item<double>(), 5.0, 1e-15);
  EXPECT_NEAR(vector_norm(v, 1.0).item<double>(), 7.0, 1e-15);
  EXPECT_NEAR(vector_norm(v, INFINITY).item<double>(), 4.0, 1e-15);
  EXPECT_NEAR(vector_norm(v, -INFINITY).item<double>(), 3.0, 1e-15);
  EXPECT_NEAR(vector_norm(v, 3.0).item<double>(), std::cbrt(91.0), 1e-14);
  EXPECT_NEAR(norm(v).item<double>(), 5.0, 1e-15);
  EXPECT_NEAR(norm(v, "inf").item<double>(), 4.0, 1e-15);
  Tensor z = from_vector<c128>({{3, 4}, {0, 0}}, {2});
  EXPECT_NEAR(vector_norm(z).item<double>(), 5.0, 1e-15);
  EXPECT_EQ(vector_norm(z).dtype(), DType::Float64);

  Tensor m = from_vector<double>({1, -2, 3, 4}, {2, 2});
  EXPECT_NEAR(norm(m).item<double>(), std::sqrt(30.0), 1e-14);
  EXPECT_NEAR(norm(m, "1").item<double>(), 6.0, 1e-15);    // max column sum: |-2| + 4
  EXPECT_NEAR(norm(m, "inf").item<double>(), 7.0, 1e-15);  // max row sum: 3 + 4
  EXPECT_NEAR(norm(m, "-1").item<double>(), 4.0, 1e-15);
  EXPECT_NEAR(norm(m, "-inf").item<double>(), 3.0, 1e-15);
  // per-row norms, keepdims, and matrix norms over a batch
  Tensor rows = norm(m, "2", {1}, true);
  EXPECT_EQ(rows.shape(), (Shape{2, 1}));
  expect_values(rows, {std::sqrt(5.0), 5.0}, 1e-14);
  Tensor batch = stack({m, mul(m, 2.0)}, 0);
  expect_values(norm(batch, "1", {1, 2}), {6.0, 12.0}, 1e-14);
  EXPECT_THROW(norm(m, "nuc"), ValueError);
  EXPECT_THROW(norm(m, "2"), ValueError);
  EXPECT_THROW(norm(v, "bogus"), ValueError);
  // gradient of the 2-norm: x / |x|
  Tensor x = from_vector<double>({3, -4}, {2}).set_requires_grad();
  vector_norm(x).backward();
  expect_values(x.grad(), {0.6, -0.8}, 1e-15);
}

TEST(DotOuter, NumPySemantics) {
  Tensor a = from_vector<double>({1, 2, 3}, {3}), b = from_vector<double>({4, 5, 6}, {3});
  EXPECT_DOUBLE_EQ(dot(a, b).item<double>(), 32.0);
  Tensor o = outer(a, from_vector<double>({1, 10}, {2}));
  EXPECT_EQ(o.shape(), (Shape{3, 2}));
  expect_values(o, {1, 10, 2, 20, 3, 30});
  expect_values(dot(a, 2.0 * ones({}, DType::Float64)), {2, 4, 6});
  // N-d: dot(x, y)[i, j, k, n] = sum_p x[i, j, p] y[k, p, n]
  Tensor x = rules::sample({2, 3, 4}, -1, 1, 1), y = rules::sample({5, 4, 2}, -1, 1, 2);
  Tensor d = dot(x, y);
  ASSERT_EQ(d.shape(), (Shape{2, 3, 5, 2}));
  for_each_index(d.shape(), [&](const Shape& ix) {
    c128 s = 0;
    for (int64_t p = 0; p < 4; ++p) s += at(x, {ix[0], ix[1], p}) * at(y, {ix[2], p, ix[3]});
    EXPECT_NEAR(at(d, ix).real(), s.real(), 1e-12);
  });
  EXPECT_THROW(dot(x, rules::sample({3, 2}, -1, 1, 3)), ShapeError);
}
