// Shape and indexing ops: values against NumPy's results (worked out by hand or printed by NumPy
// and copied here), view semantics, errors, gradients of the index-based composites, and the
// determinism of the scatter-adds.
#include <gtest/gtest.h>
#include <omp.h>

#include <string>

#include "engine/autodiff/backward.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

using namespace spire;

namespace {

using V = std::vector<double>;

Tensor iota(const Shape& s, DType t = DType::Float64) { return reshape(arange(0, double(numel_of(s)), 1, t), s); }
Tensor ints(const std::vector<int64_t>& v, const Shape& s) { return from_vector<int64_t>(v, s); }
Tensor ints(const std::vector<int64_t>& v) { return ints(v, {int64_t(v.size())}); }

// Runs f and checks it throws E with every one of `parts` in its message.
template <class E, class F>
void expect_error(F f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    for (auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

}  // namespace

// ---- slicing views ----------------------------------------------------------------------------

TEST(Shape, SliceFollowsPythonSemantics) {
  Tensor x = iota({10});
  EXPECT_EQ(slice(x, 0, 2, 8, 2).to_vector(), (V{2, 4, 6}));
  EXPECT_EQ(slice(x, 0, -3, std::nullopt).to_vector(), (V{7, 8, 9}));
  EXPECT_EQ(slice(x, 0, std::nullopt, std::nullopt, -3).to_vector(), (V{9, 6, 3, 0}));
  EXPECT_EQ(slice(x, 0, 8, 2, -2).to_vector(), (V{8, 6, 4}));
  EXPECT_EQ(slice(x, 0, -100, 100).to_vector(), x.to_vector());
  EXPECT_EQ(slice(x, 0, 100, -100, -4).to_vector(), (V{9, 5, 1}));
  EXPECT_EQ(slice(x, 0, 5, 2).numel(), 0);
  EXPECT_EQ(slice(x, 0, 2, 5, -1).numel(), 0);
  Tensor m = iota({3, 4});
  Tensor s = slice(m, 1, 1, std::nullopt, 2);
  EXPECT_EQ(s.shape(), (Shape{3, 2}));
  EXPECT_EQ(s.to_vector(), (V{1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(slice(m, -2, std::nullopt, std::nullopt, -1).to_vector(), (V{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
  // A reversed view reshapes and copies like any other strided tensor.
  EXPECT_EQ(contiguous(slice(x, 0, std::nullopt, std::nullopt, -1)).to_vector(), (V{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(reshape(slice(x, 0, std::nullopt, std::nullopt, -2), {5, 1}).to_vector(), (V{9, 7, 5, 3, 1}));
}

TEST(Shape, SliceSelectAndDiagonalShareMemory) {
  Tensor m = iota({3, 4});
  Tensor s = slice(m, 1, 1, 3);
  Tensor r = select(m, 0, -1);
  Tensor d = diagonal(m);
  EXPECT_EQ(s.storage(), m.storage());
  EXPECT_EQ(r.storage(), m.storage());
  EXPECT_EQ(d.storage(), m.storage());
  m.data<double>()[5] = 100;  // m[1, 1]
  EXPECT_EQ(s.to_vector(), (V{1, 2, 100, 6, 9, 10}));
  EXPECT_EQ(d.to_vector(), (V{0, 100, 10}));
  m.data<double>()[9] = -1;  // m[2, 1]
  EXPECT_EQ(r.to_vector(), (V{8, -1, 10, 11}));
  // Slicing a slice keeps sharing.
  EXPECT_EQ(slice(s, 0, 1, 3).storage(), m.storage());
}

TEST(Shape, SelectAndDiagonalValues) {
  Tensor m = iota({3, 4});
  EXPECT_EQ(select(m, 1, 2).to_vector(), (V{2, 6, 10}));
  EXPECT_EQ(select(m, 0, -2).to_vector(), (V{4, 5, 6, 7}));
  EXPECT_EQ(diagonal(m, 1).to_vector(), (V{1, 6, 11}));
  EXPECT_EQ(diagonal(m, -1).to_vector(), (V{4, 9}));
  EXPECT_EQ(diagonal(m, 5).numel(), 0);
  // np.diagonal(np.arange(24).reshape(2, 3, 4), 1, 0, 2) = [[1, 14], [5, 18], [9, 22]]
  Tensor d = diagonal(iota({2, 3, 4}), 1, 0, 2);
  EXPECT_EQ(d.shape(), (Shape{3, 2}));
  EXPECT_EQ(d.to_vector(), (V{1, 14, 5, 18, 9, 22}));
}

TEST(Shape, SlicingErrors) {
  Tensor m = iota({3, 4});
  expect_error<ValueError>([&] { select(m, 0, 3); }, {"select", "index 3", "axis 0", "size 3", "-3 to 2"});
  expect_error<ValueError>([&] { select(m, 1, -5); }, {"select", "-5", "-4 to 3"});
  expect_error<ValueError>([&] { slice(m, 0, 0, 2, 0); }, {"slice", "step"});
  expect_error<ShapeError>([&] { slice(m, 2, 0, 1); }, {"slice", "axis 2"});
  expect_error<ShapeError>([&] { diagonal(m, 0, 1, -1); }, {"diagonal", "differ"});
  expect_error<ShapeError>([&] { tril(iota({3})); }, {"tril", "[3]"});
}

// ---- rearranging copies -----------------------------------------------------------------------

TEST(Shape, TrilTriu) {
  Tensor x = iota({3, 4});
  EXPECT_EQ(tril(x).to_vector(), (V{0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0}));
  EXPECT_EQ(triu(x, 1).to_vector(), (V{0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11}));
  // np.tril(x.T, -1) from a transposed (strided) input.
  EXPECT_EQ(tril(mT(x), -1).to_vector(), (V{0, 0, 0, 1, 0, 0, 2, 6, 0, 3, 7, 11}));
  Tensor b = tril(iota({2, 2, 2}, DType::Int32), 0);
  EXPECT_EQ(b.dtype(), DType::Int32);
  EXPECT_EQ(b.to_vector(), (V{0, 0, 2, 3, 4, 0, 6, 7}));
}

TEST(Shape, FlipAndRoll) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(flip(x, {1}).to_vector(), (V{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(flip(x, {}).to_vector(), (V{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(flip(mT(x), {0}).to_vector(), (V{2, 5, 1, 4, 0, 3}));
  EXPECT_EQ(roll(iota({5}), 2, 0).to_vector(), (V{3, 4, 0, 1, 2}));
  EXPECT_EQ(roll(iota({5}), -1, 0).to_vector(), (V{1, 2, 3, 4, 0}));
  EXPECT_EQ(roll(iota({5}), 7, 0).to_vector(), (V{3, 4, 0, 1, 2}));
  EXPECT_EQ(roll(x, 1, -1).to_vector(), (V{2, 0, 1, 5, 3, 4}));
}

TEST(Shape, PadModes) {
  Tensor v = from_vector<double>({1, 2, 3}, {3});
  EXPECT_EQ(pad(v, {{2, 1}}, PadMode::Constant, 9.0).to_vector(), (V{9, 9, 1, 2, 3, 9}));
  EXPECT_EQ(pad(v, {{-1, 2}}).to_vector(), (V{2, 3, 0, 0}));
  EXPECT_EQ(pad(v, {{2, 2}}, PadMode::Reflect).to_vector(), (V{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(pad(v, {{1, 2}}, PadMode::Circular).to_vector(), (V{3, 1, 2, 3, 1, 2}));
  // Wider than the axis: np.pad(np.arange(3), (7, 8), 'reflect') and 'wrap'.
  EXPECT_EQ(pad(iota({3}), {{7, 8}}, PadMode::Reflect).to_vector(),
            (V{1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2}));
  EXPECT_EQ(pad(iota({3}), {{7, 8}}, PadMode::Circular).to_vector(),
            (V{2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1}));
  // np.pad(np.arange(6).reshape(2, 3), ((1, 1), (2, 0)), 'reflect')
  Tensor r = pad(iota({2, 3}), {{1, 1}, {2, 0}}, PadMode::Reflect);
  EXPECT_EQ(r.shape(), (Shape{4, 5}));
  EXPECT_EQ(r.to_vector(), (V{5, 4, 3, 4, 5, 2, 1, 0, 1, 2, 5, 4, 3, 4, 5, 2, 1, 0, 1, 2}));
  // np.pad(np.arange(6).reshape(2, 3), ((1, 0), (1, 2)), 'wrap')
  EXPECT_EQ(pad(iota({2, 3}), {{1, 0}, {1, 2}}, PadMode::Circular).to_vector(),
            (V{5, 3, 4, 5, 3, 4, 2, 0, 1, 2, 0, 1, 5, 3, 4, 5, 3, 4}));
  // Only the last axis padded; a strided input.
  EXPECT_EQ(pad(mT(iota({2, 2})), {{1, 0}}, PadMode::Constant, -1.0).to_vector(), (V{-1, 0, 2, -1, 1, 3}));
  expect_error<ValueError>([&] { pad(v, {{-1, 0}}, PadMode::Reflect); }, {"pad", "constant mode"});
  expect_error<ShapeError>([&] { pad(v, {{0, 0}, {1, 1}}); }, {"pad", "[3]"});
}

TEST(Shape, PadGradients) {
  // Reflect [a, b, c] by (2, 2): [c, b, a, b, c, b, a], so d sum / dx = [2, 3, 2].
  Tensor x = from_vector<double>({1, 2, 3}, {3}).set_requires_grad();
  sum(pad(x, {{2, 2}}, PadMode::Reflect)).backward();
  EXPECT_EQ(x.grad().to_vector(), (V{2, 3, 2}));
  // Weighted circular: [c, a, b, c, a, b] * [1..6] -> a: 2 + 5, b: 3 + 6, c: 1 + 4.
  Tensor y = from_vector<double>({1, 2, 3}, {3}).set_requires_grad();
  sum(mul(pad(y, {{1, 2}}, PadMode::Circular), from_vector<double>({1, 2, 3, 4, 5, 6}, {6}))).backward();
  EXPECT_EQ(y.grad().to_vector(), (V{7, 9, 5}));
  // Constant with a crop: only the kept elements get gradient.
  Tensor z = from_vector<double>({1, 2, 3}, {3}).set_requires_grad();
  sum(pad(z, {{-1, 2}}, PadMode::Constant, 5.0)).backward();
  EXPECT_EQ(z.grad().to_vector(), (V{0, 1, 1}));
}

// ---- joining and splitting --------------------------------------------------------------------

TEST(Shape, ConcatStackSplitChunk) {
  Tensor a = iota({2, 2}), b = add(iota({2, 1}), scalar_like(iota({1}), 10.0));
  Tensor c = concat({a, b}, 1);
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(c.to_vector(), (V{0, 1, 10, 2, 3, 11}));
  EXPECT_EQ(concat({a, mT(a)}, 0).to_vector(), (V{0, 1, 2, 3, 0, 2, 1, 3}));
  // Types promote by the engine's table (int32 with float32 gives float32).
  Tensor mixed = concat({iota({2}, DType::Int32), from_vector<float>({0.5f}, {1})}, 0);
  EXPECT_EQ(mixed.dtype(), DType::Float32);
  EXPECT_EQ(mixed.to_vector(), (V{0, 1, 0.5}));
  Tensor s = stack({iota({3}), iota({3})}, 1);
  EXPECT_EQ(s.shape(), (Shape{3, 2}));
  EXPECT_EQ(s.to_vector(), (V{0, 0, 1, 1, 2, 2}));
  auto parts = split(iota({2, 5}), {1, 0, 4}, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].to_vector(), (V{0, 5}));
  EXPECT_EQ(parts[1].shape(), (Shape{2, 0}));
  EXPECT_EQ(parts[2].to_vector(), (V{1, 2, 3, 4, 6, 7, 8, 9}));
  auto ch = chunk(iota({10}), 3, 0);
  ASSERT_EQ(ch.size(), 3u);
  EXPECT_EQ(ch[0].to_vector(), (V{0, 1, 2, 3}));
  EXPECT_EQ(ch[2].to_vector(), (V{8, 9}));
  Tensor base = iota({10});
  EXPECT_EQ(chunk(base, 2, 0)[1].storage(), base.storage());
  expect_error<ShapeError>([&] { concat({a, iota({3, 3})}, 1); }, {"concat", "[3, 3]", "[2, 2]"});
  expect_error<ShapeError>([&] { stack({a, iota({2, 3})}); }, {"stack", "[2, 3]"});
  expect_error<ShapeError>([&] { split(a, {1, 2}, 0); }, {"split", "add up to 3"});
}

TEST(Shape, ConcatGradientSlicesBack) {
  Tensor a = iota({2}).detach().set_requires_grad(), b = iota({3}).detach().set_requires_grad();
  Tensor w = from_vector<double>({1, 2, 3, 4, 5}, {5});
  sum(mul(concat({a, b}, 0), w)).backward();
  EXPECT_EQ(a.grad().to_vector(), (V{1, 2}));
  EXPECT_EQ(b.grad().to_vector(), (V{3, 4, 5}));
}

// ---- integer-array indexing -------------------------------------------------------------------

TEST(Indexing, IndexSelectAndTake) {
  Tensor x = iota({4, 3});
  EXPECT_EQ(index_select(x, 0, ints({2, -1, 0})).to_vector(), (V{6, 7, 8, 9, 10, 11, 0, 1, 2}));
  // np.take(np.arange(12).reshape(3, 4), [[0, -1], [1, 1]], axis=1)
  Tensor t = index_select(iota({3, 4}), 1, ints({0, -1, 1, 1}, {2, 2}));
  EXPECT_EQ(t.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(t.to_vector(), (V{0, 3, 1, 1, 4, 7, 5, 5, 8, 11, 9, 9}));
  // A 0-d index drops the axis.
  EXPECT_EQ(index_select(x, 1, ints({2}, {})).to_vector(), (V{2, 5, 8, 11}));
  // x[:, [0, 1, 1], [2, 0, 3]] for x = np.arange(24).reshape(2, 3, 4)
  Tensor y = take(iota({2, 3, 4}), {ints({0, 1, 1}), from_vector<int32_t>({2, 0, 3}, {3})}, 1);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(y.to_vector(), (V{2, 4, 7, 14, 16, 19}));
  // Index arrays broadcast: x[[[0], [2]], [1, 3]] = [[1, 3], [9, 11]] for x = arange(12).reshape(3, 4)
  EXPECT_EQ(take(iota({3, 4}), {ints({0, 2}, {2, 1}), ints({1, 3})}).to_vector(), (V{1, 3, 9, 11}));
  // Strided x (transposed) and bool data.
  EXPECT_EQ(index_select(mT(x), 0, ints({1})).to_vector(), (V{1, 4, 7, 10}));
  Tensor flags = from_vector<bool>({true, false, true}, {3});
  EXPECT_EQ(index_select(flags, 0, ints({1, 2})).to_vector(), (V{0, 1}));
}

TEST(Indexing, TakeAlongAxis) {
  Tensor x = iota({3, 4});
  Tensor g = take_along_axis(x, ints({3, 0, 1, 1, 0, 2}, {3, 2}), 1);
  EXPECT_EQ(g.to_vector(), (V{3, 0, 5, 5, 8, 10}));
  // The index broadcasts along axis 1: np.take_along_axis(x, [[2, 0, 1, 2]], 0) = [[8, 1, 6, 11]]
  EXPECT_EQ(take_along_axis(x, ints({2, 0, 1, 2}, {1, 4}), 0).to_vector(), (V{8, 1, 6, 11}));
  EXPECT_EQ(gather(x, 1, ints({-1}, {1, 1})).to_vector(), (V{3, 7, 11}));
}

TEST(Indexing, IndexAddAndScatterAdd) {
  Tensor x = zeros({5}, DType::Float64);
  EXPECT_EQ(index_add(x, 0, ints({0, 2, 0, -1}), from_vector<double>({1, 2, 3, 4}, {4})).to_vector(),
            (V{4, 0, 2, 0, 4}));
  // Rows of a matrix; src broadcasts.
  Tensor m = index_add(iota({3, 2}), 0, ints({1, 1}), from_vector<double>({10, 20}, {1, 2}));
  EXPECT_EQ(m.to_vector(), (V{0, 1, 22, 43, 4, 5}));
  // np.add.at(x, (rows, cols), 1) with take_add.
  Tensor t = take_add(zeros({2, 3}, DType::Float64), {ints({0, 1, 0}), ints({2, 0, 2})}, ones({}, DType::Float64));
  EXPECT_EQ(t.to_vector(), (V{0, 0, 2, 1, 0, 0}));
  Tensor s = scatter_add(zeros({2, 3}, DType::Float64), 1, ints({0, 1, 0, 2, 2, 2, 1, 0}, {2, 4}),
                         ones({2, 4}, DType::Float64));
  EXPECT_EQ(s.to_vector(), (V{2, 1, 1, 1, 1, 2}));
  Tensor i32 = scatter_add(zeros({3}, DType::Int32), 0, from_vector<int32_t>({2, -1, 0}, {3}),
                           from_vector<int32_t>({5, 6, 7}, {3}));
  EXPECT_EQ(i32.dtype(), DType::Int32);
  EXPECT_EQ(i32.to_vector(), (V{7, 0, 11}));
}

TEST(Indexing, Errors) {
  Tensor x = iota({4, 3});
  expect_error<ValueError>([&] { index_select(x, 0, ints({1, 4})); },
                           {"index_select", "index 4", "axis 0", "size 4", "-4 to 3"});
  expect_error<ValueError>([&] { index_select(x, 1, ints({-4})); }, {"index -4", "axis 1", "-3 to 2"});
  expect_error<ValueError>([&] { take_along_axis(x, ints({0, 7, 0}, {1, 3}), 0); }, {"gather", "index 7", "-4 to 3"});
  expect_error<ValueError>([&] { scatter_add(x, 1, ints({3}, {1, 1}), ones({1, 1}, DType::Float64)); }, {"scatter_add", "index 3", "-3 to 2"});
  expect_error<ValueError>([&] { index_add(x, 0, ints({-5}), ones({1, 3}, DType::Float64)); }, {"index_add", "-5"});
  expect_error<ValueError>([&] { one_hot(ints({1, 3}), 3); }, {"one_hot", "index 3", "3 classes"});
  expect_error<DTypeError>([&] { index_select(x, 0, from_vector<float>({1}, {1})); }, {"index_select", "float32"});
  expect_error<DTypeError>([&] { masked_select(x, ones({4, 3})); }, {"masked_select", "bool"});
  expect_error<ShapeError>([&] { take_along_axis(x, ints({0}), 0); }, {"take_along_axis", "dimensions"});
  expect_error<ShapeError>([&] { take(x, {ints({0}), ints({0}), ints({0})}); }, {"take", "3 index arrays"});
  expect_error<ShapeError>([&] { index_add(x, 0, ints({0, 1}), ones({3, 3})); }, {"index_add", "[3, 3]"});
}

TEST(Indexing, OneHotNonzeroMaskedSelect) {
  Tensor h = one_hot(ints({0, 2, -1}), 3);
  EXPECT_EQ(h.dtype(), DType::Float32);
  EXPECT_EQ(h.to_vector(), (V{1, 0, 0, 0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(one_hot(ints({1, 3}), -1, DType::Int64).shape(), (Shape{2, 4}));
  Tensor x = from_vector<double>({0, 1, 0, 2, 0, 3}, {2, 3});
  Tensor nz = nonzero(x);
  EXPECT_EQ(nz.dtype(), DType::Int64);
  EXPECT_EQ(nz.shape(), (Shape{3, 2}));
  EXPECT_EQ(nz.to_vector(), (V{0, 1, 1, 0, 1, 2}));
  EXPECT_EQ(nonzero(mT(x)).to_vector(), (V{0, 1, 1, 0, 2, 1}));
  EXPECT_EQ(nonzero(zeros({2, 2})).shape(), (Shape{0, 2}));
  Tensor mask = from_vector<bool>({true, false, true, false, false, true}, {2, 3});
  EXPECT_EQ(masked_select(iota({2, 3}), mask).to_vector(), (V{0, 2, 5}));
  // The mask broadcasts over rows.
  EXPECT_EQ(masked_select(iota({2, 3}), from_vector<bool>({false, true, true}, {3})).to_vector(), (V{1, 2, 4, 5}));
  // Gradient: ones at the selected places.
  Tensor xs = iota({2, 3}).detach().set_requires_grad();
  sum(masked_select(xs, mask)).backward();
  EXPECT_EQ(xs.grad().to_vector(), (V{1, 0, 1, 0, 0, 1}));
}

TEST(Indexing, NonzeroLargeMatchesSerialScan) {
  int64_t n = 300000;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = (i * 7919) % 13 == 0 ? 1.0f : 0.0f;
  Tensor x = from_vector<float>(v, {n / 3, 3});
  Tensor nz = nonzero(x);
  std::vector<double> want;
  for (int64_t i = 0; i < n; ++i)
    if (v[i] != 0) {
      want.push_back(double(i / 3));
      want.push_back(double(i % 3));
    }
  EXPECT_EQ(nz.to_vector(), want);
}

TEST(Indexing, GatherGradientIsScatterAdd) {
  Tensor x = iota({2, 3}).detach().set_requires_grad();
  Tensor idx = ints({0, 0, 2, 1, 1, 1}, {2, 3});
  sum(take_along_axis(x, idx, 1)).backward();
  EXPECT_EQ(x.grad().to_vector(), (V{2, 0, 1, 0, 3, 0}));
  Tensor y = iota({4, 2}).detach().set_requires_grad();
  sum(index_select(y, 0, ints({3, 3, -1, 0}))).backward();
  EXPECT_EQ(y.grad().to_vector(), (V{1, 1, 0, 0, 0, 0, 3, 3}));
}

// Scatter-adds must give the same bits whatever the thread count, and equal the sum taken in index
// order (float32, so a different order would show in the last bits).
TEST(Indexing, ScatterAddIsDeterministicAndInIndexOrder) {
  const int64_t rows = 4, n = 1 << 16, bins = 7;
  std::vector<float> src(rows * n);
  std::vector<int64_t> idx(rows * n);
  for (int64_t i = 0; i < rows * n; ++i) {
    src[i] = float(std::sin(double(i) * 0.37) * 1e3);
    idx[i] = (i * 2654435761LL) % bins;
  }
  Tensor s = from_vector<float>(src, {rows, n}), ix = from_vector<int64_t>(idx, {rows, n});
  std::vector<float> want(rows * bins, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) want[r * bins + idx[r * n + j]] += src[r * n + j];

  int saved = omp_get_max_threads();
  std::vector<std::vector<double>> results;
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    results.push_back(scatter_add(zeros({rows, bins}), 1, ix, s).to_vector());
  }
  omp_set_num_threads(saved);
  for (auto& r : results) {
    ASSERT_EQ(r.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(float(r[k]), want[k]) << "bin " << k;
  }

  // index_add of rows: many repeated rows, each column accumulated in index order.
  Tensor vals = from_vector<float>(src, {n, rows});
  Tensor rows_idx = from_vector<int64_t>(std::vector<int64_t>(idx.begin(), idx.begin() + n), {n});
  std::vector<float> want2(bins * rows, 0.0f);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t c = 0; c < rows; ++c) want2[idx[j] * rows + c] += src[j * rows + c];
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    std::vector<double> got = index_add(zeros({bins, rows}), 0, rows_idx, vals).to_vector();
    for (size_t k = 0; k < want2.size(); ++k) EXPECT_EQ(float(got[k]), want2[k]) << "entry " << k;
  }
  omp_set_num_threads(saved);
}

TEST(Indexing, StridedOperandsAndEmptyCases) {
  Tensor x = iota({3, 4});  // [[0 1 2 3] [4 5 6 7] [8 9 10 11]]
  // A strided index (every other element of [2, 0, 1, 0, -1, 0]).
  Tensor idx = slice(ints({2, 0, 1, 0, -1, 0}), 0, std::nullopt, std::nullopt, 2);
  EXPECT_EQ(index_select(x, 0, idx).to_vector(), (V{8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11}));
  // Transposed x and index for gather: out[i, j] = x.T[i, gi[i, j]] = 3 gi[i, j] + i.
  Tensor gi = mT(ints({0, 2, 1, 1, 2, 0}, {2, 3}));  // [[0, 1], [2, 2], [1, 0]]
  EXPECT_EQ(take_along_axis(mT(iota({3, 3})), gi, 1).to_vector(), (V{0, 3, 7, 7, 5, 2}));
  // Transposed index and src for scatter_add: src = [[0, 3], [1, 4], [2, 5]] into 3 columns.
  Tensor sa = scatter_add(zeros({3, 3}, DType::Float64), 1, gi, mT(iota({2, 3})));
  EXPECT_EQ(sa.to_vector(), (V{0, 3, 0, 0, 0, 5, 5, 2, 0}));
  // Transposed src for index_add.
  Tensor ia = index_add(zeros({4, 2}, DType::Float64), 0, ints({3, 0, 3}), mT(iota({2, 3})));
  // src = [[0, 3], [1, 4], [2, 5]]: row 3 gets [0, 3] + [2, 5], row 0 gets [1, 4].
  EXPECT_EQ(ia.to_vector(), (V{1, 4, 0, 0, 0, 0, 2, 8}));
  // take over two trailing axes with a leading batch axis and a strided x.
  Tensor t = take(mT(iota({4, 2})), {ints({1, 0}), ints({3, 0})}, 0);  // x.T = [[0 2 4 6] [1 3 5 7]]
  EXPECT_EQ(t.to_vector(), (V{7, 0}));
  // Empty index, empty inputs.
  EXPECT_EQ(index_select(x, 1, ints({})).shape(), (Shape{3, 0}));
  EXPECT_EQ(index_add(x, 1, ints({}), zeros({3, 0}, DType::Float64)).to_vector(), x.to_vector());
  EXPECT_EQ(concat({iota({0, 2}), iota({1, 2})}, 0).to_vector(), (V{0, 1}));
  EXPECT_EQ(pad(iota({0}), {{1, 1}}, PadMode::Constant, 2.0).to_vector(), (V{2, 2}));
  EXPECT_EQ(nonzero(full({}, 3.0, DType::Float64)).shape(), (Shape{1, 0}));
  EXPECT_EQ(nonzero(zeros({}, DType::Float64)).shape(), (Shape{0, 0}));
}

TEST(Indexing, LargeGathersMatchLoops) {
  const int64_t rows = 300, cols = 257;
  Tensor x = iota({rows, cols});
  std::vector<int64_t> ri(rows * 3), gi(rows * cols);
  for (int64_t i = 0; i < rows * 3; ++i) ri[i] = (i * 37) % rows - (i % 2 ? rows : 0);
  for (int64_t i = 0; i < rows * cols; ++i) gi[i] = (i * 101) % cols;
  Tensor sel = index_select(x, 0, from_vector<int64_t>(ri, {rows * 3}));
  Tensor gat = take_along_axis(x, from_vector<int64_t>(gi, {rows, cols}), 1);
  Tensor gat0 = take_along_axis(mT(x), mT(from_vector<int64_t>(gi, {rows, cols})), 0);
  std::vector<double> want_sel, want_gat;
  for (int64_t i = 0; i < rows * 3; ++i) {
    int64_t r = ri[i] < 0 ? ri[i] + rows : ri[i];
    for (int64_t c = 0; c < cols; ++c) want_sel.push_back(double(r * cols + c));
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) want_gat.push_back(double(r * cols + gi[r * cols + c]));
  EXPECT_EQ(sel.to_vector(), want_sel);
  EXPECT_EQ(gat.to_vector(), want_gat);
  EXPECT_EQ(mT(gat0).to_vector(), want_gat);
}
