// Every Communicator method on the world communicator (MPI under mpirun, self on one rank without
// a launcher) against its definition computed locally: each rank can build every rank's input from
// the seed, so the expected result of a collective is computed on one rank, without communication.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "engine/parallel/mesh.h"
#include "engine/parallel/runtime.h"

using namespace spire;
using parallel::ReduceOp;

namespace {

parallel::Communicator& W() { return parallel::world(); }

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Value i of rank r's input for a given seed: uniform in [-1, 1).
double u(int r, int64_t i, uint64_t seed) {
  return double(mix(seed * 1000003u + uint64_t(r) * 7919u + uint64_t(i) * 104729u) >> 11) * 0x1p-52 - 1.0;
}

template <class T>
T value(int r, int64_t i, uint64_t seed) {
  if constexpr (std::is_same_v<T, bool>) return u(r, i, seed) > 0;
  else if constexpr (std::is_integral_v<T>) return T(std::llround(u(r, i, seed) * 1000));
  else if constexpr (is_complex_v<T>) return T(u(r, i, seed), u(r, i, seed + 77));
  else return T(u(r, i, seed));
}

template <class T>
Tensor input(int r, const Shape& shape, uint64_t seed) {
  Tensor t = empty(shape, dtype_of<T>::value);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = value<T>(r, i, seed);
  return t;
}

template <class T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

// The definition: rank 0's value combined with rank 1's, then rank 2's, ... in the dtype itself.
template <class T>
T combine_ranks(int n, int64_t i, uint64_t seed, ReduceOp op) {
  T acc = value<T>(0, i, seed);
  for (int r = 1; r < n; ++r) {
    T x = value<T>(r, i, seed);
    if constexpr (std::is_same_v<T, bool>) acc = op == ReduceOp::Min ? (acc && x) : (acc || x);
    else if (op == ReduceOp::Sum || op == ReduceOp::Mean) acc = T(acc + x);
    else if constexpr (!is_complex_v<T>) acc = op == ReduceOp::Max ? std::max(acc, x) : std::min(acc, x);
  }
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>)
    if (op == ReduceOp::Mean) acc /= T(n);
  return acc;
}

template <class T>
void expect_bits_equal(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(T)), 0) << what << " differs at element " << i;
}

template <class T>
class Collectives : public ::testing::Test {};
using Floats = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Collectives, Floats);

TYPED_TEST(Collectives, AllReduceEveryOpMatchesRankOrderDefinition) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  // Small buffers (one all-gather) and 20011 elements (the chunked path, chunks of unequal length).
  for (int64_t numel : {int64_t(37), int64_t(3), int64_t(1000), int64_t(20011)}) {
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min}) {
      const uint64_t seed = 11 + uint64_t(op) + uint64_t(numel);
      Tensor x = input<T>(me, {numel}, seed);
      W().all_reduce(x, op);
      std::vector<T> got = values<T>(x), want(numel);
      for (int64_t i = 0; i < numel; ++i) want[i] = combine_ranks<T>(n, i, seed, op);
      expect_bits_equal(got, want, parallel::name(op));
      // And against the sum in double, independent of the order.
      if (op == ReduceOp::Sum)
        for (int64_t i = 0; i < numel; ++i) {
          double s = 0;
          for (int r = 0; r < n; ++r) s += double(value<T>(r, i, seed));
          EXPECT_NEAR(double(got[i]), s, 1e-5 * n);
        }
    }
  }
}

// Sizes around all_reduce's thresholds (mpi_communicator.cpp): a buffer of at most 64 KiB / size()
// bytes is exchanged whole, in messages of at most 4000 bytes; a larger one is scattered and
// gathered in chunks. Just below, at and above each, synchronous (its own path for whole buffers)
// and async.
TYPED_TEST(Collectives, AllReduceAroundPieceAndWholeThresholds) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  const int64_t piece = 4000 / int64_t(sizeof(T)), whole = 64 * 1024 / (n * int64_t(sizeof(T)));
  for (int64_t numel : {piece - 1, piece, piece + 1, 3 * piece, 3 * piece + 1, whole - 1, whole, whole + 1}) {
    for (bool async : {false, true}) {
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean}) {
        const uint64_t seed = 40 + uint64_t(numel) + 2 * uint64_t(async) + uint64_t(op);
        Tensor x = input<T>(me, {numel}, seed);
        if (async)
          W().all_reduce_async(x, op)->wait();
        else
          W().all_reduce(x, op);
        std::vector<T> want(numel);
        for (int64_t i = 0; i < numel; ++i) want[i] = combine_ranks<T>(n, i, seed, op);
        expect_bits_equal(values<T>(x), want, async ? "async" : "sync");
      }
    }
  }
}

// Several all_reduces in flight, polled in an order that differs between ranks (even ranks wait
// for the first call first, odd ranks for the last): each call's messages carry its own tags, so
// none is matched with another's, through multi-window buffers (> 4 MiB) and small ones alike.
TYPED_TEST(Collectives, AllReduceAsyncCallsInFlightTogetherKeepTheirMessages) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  const std::vector<int64_t> sizes = {int64_t(5 << 20) / int64_t(sizeof(T)), 7, 3000, int64_t(5 << 20) / int64_t(sizeof(T))};
  std::vector<Tensor> xs;
  std::vector<std::unique_ptr<parallel::Work>> works;
  for (size_t k = 0; k < sizes.size(); ++k) {
    xs.push_back(input<T>(me, {sizes[k]}, 70 + k));
    works.push_back(W().all_reduce_async(xs.back(), ReduceOp::Sum));
  }
  for (size_t k = 0; k < works.size(); ++k) works[me % 2 ? works.size() - 1 - k : k]->wait();
  for (size_t k = 0; k < sizes.size(); ++k) {
    std::vector<T> want(sizes[k]);
    for (int64_t i = 0; i < sizes[k]; ++i) want[i] = combine_ranks<T>(n, i, 70 + k, ReduceOp::Sum);
    expect_bits_equal(values<T>(xs[k]), want, ("call " + std::to_string(k)).c_str());
  }
}

TYPED_TEST(Collectives, AllReduceAsyncCompletes) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  Tensor x = input<T>(me, {4, 5}, 3);
  auto work = W().all_reduce_async(x, ReduceOp::Sum);
  work->wait();
  EXPECT_TRUE(work->done());
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(x.data<T>()[i], combine_ranks<T>(n, i, 3, ReduceOp::Sum));
  // Polled to completion with done() instead of wait().
  Tensor y = input<T>(me, {9}, 4);
  auto w2 = W().all_reduce_async(y, ReduceOp::Max);
  while (!w2->done()) {
  }
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(y.data<T>()[i], combine_ranks<T>(n, i, 4, ReduceOp::Max));
}

TYPED_TEST(Collectives, AllGather) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  Tensor in = input<T>(me, {2, 3}, 5);
  Tensor out = empty({2 * n, 3}, dtype_of<T>::value);
  W().all_gather(in, out);
  for (int r = 0; r < n; ++r)
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out.data<T>()[r * 6 + i], value<T>(r, i, 5)) << "chunk " << r;
}

TYPED_TEST(Collectives, ReduceScatter) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max}) {
    Tensor in = input<T>(me, {3 * n, 2}, 6);
    Tensor out = empty({3, 2}, dtype_of<T>::value);
    W().reduce_scatter(in, out, op);
    // Rank me gets the reduction of chunk me: elements [me*6, me*6+6) of every rank's input.
    std::vector<T> want(6);
    for (int64_t i = 0; i < 6; ++i) want[i] = combine_ranks<T>(n, me * 6 + i, 6, op);
    expect_bits_equal(values<T>(out), want, parallel::name(op));
  }
}

TYPED_TEST(Collectives, AllToAll) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  Tensor in = input<T>(me, {2 * n, 2}, 7);
  Tensor out = empty({2 * n, 2}, dtype_of<T>::value);
  W().all_to_all(in, out);
  // Out chunk s on rank me is chunk me of sender s.
  for (int s = 0; s < n; ++s)
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(out.data<T>()[s * 4 + i], value<T>(s, me * 4 + i, 7));
}

TYPED_TEST(Collectives, Broadcast) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  for (int root : {0, n - 1}) {
    Tensor x = input<T>(me, {17}, 8);
    W().broadcast(x, root);
    for (int64_t i = 0; i < 17; ++i) EXPECT_EQ(x.data<T>()[i], value<T>(root, i, 8));
  }
}

TYPED_TEST(Collectives, SendRecvPairs) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  if (n == 1) {
    Tensor x = zeros({3}, dtype_of<T>::value);
    EXPECT_THROW(W().send(x, 0, 0), ValueError);
    EXPECT_THROW(W().recv(x, 0, 0), ValueError);
    return;
  }
  // Pairs (0,1), (2,3): the even rank sends first, then receives the odd rank's reply.
  const int peer = me ^ 1;
  if (peer >= n) return;
  Tensor mine = input<T>(me, {2, 4}, 9), theirs = empty({2, 4}, dtype_of<T>::value);
  if (me % 2 == 0) {
    W().send(mine, peer, 5);
    W().recv(theirs, peer, 6);
  } else {
    W().recv(theirs, peer, 5);
    W().send(mine, peer, 6);
  }
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(theirs.data<T>()[i], value<T>(peer, i, 9));
  EXPECT_THROW(W().send(mine, me, 0), ValueError);  // to oneself
  EXPECT_THROW(W().send(mine, n, 0), ValueError);   // not a rank
}

// Nonblocking point-to-point: every rank posts its receives from every other rank before sending,
// in an order that would deadlock with blocking calls; messages with one tag keep their order.
TYPED_TEST(Collectives, NonblockingSendRecvAllPairsKeepOrder) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  if (n == 1) {
    Tensor x = zeros({3}, dtype_of<T>::value);
    EXPECT_THROW(W().isend(x, 0, 0), ValueError);
    EXPECT_THROW(W().irecv(x, 0, 0), ValueError);
    return;
  }
  std::vector<Tensor> got;
  std::vector<std::unique_ptr<parallel::Work>> recvs, sends;
  for (int src = 0; src < n; ++src)
    for (int k = 0; k < 2 && src != me; ++k) {
      got.push_back(empty({3}, dtype_of<T>::value));
      recvs.push_back(W().irecv(got.back(), src, 7));
    }
  for (int dst = 0; dst < n; ++dst)
    for (int k = 0; k < 2 && dst != me; ++k) sends.push_back(W().isend(input<T>(me * 2 + k, {3}, 5), dst, 7));
  for (auto& w : sends) w->wait();
  size_t i = 0;
  for (int src = 0; src < n; ++src)
    for (int k = 0; k < 2 && src != me; ++k, ++i) {
      recvs[i]->wait();
      EXPECT_TRUE(recvs[i]->done());
      for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(got[i].data<T>()[j], value<T>(src * 2 + k, j, 5));
    }
}

// Same bits on every rank (gathered and compared) and on a second run of the same reduction.
TYPED_TEST(Collectives, AllReduceIsDeterministic) {
  using T = TypeParam;
  const int n = W().size(), me = W().rank();
  // Over 4 MiB: all_reduce goes through the buffer in several windows.
  const int64_t numel = 1100003;
  Tensor a = input<T>(me, {numel}, 10), b = input<T>(me, {numel}, 10);
  W().all_reduce(a, ReduceOp::Sum);
  W().all_reduce(b, ReduceOp::Sum);
  expect_bits_equal(values<T>(a), values<T>(b), "second run");
  std::vector<T> want(numel);
  for (int64_t i = 0; i < numel; ++i) want[i] = combine_ranks<T>(n, i, 10, ReduceOp::Sum);
  expect_bits_equal(values<T>(a), want, "rank-order definition");
  Tensor all = empty({n * numel}, dtype_of<T>::value);
  W().all_gather(a, all);
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(std::memcmp(all.data<T>() + r * numel, a.data<T>(), numel * sizeof(T)), 0) << "rank " << r;
}

template <class T>
void all_reduce_dtype(ReduceOp op) {
  const int n = W().size(), me = W().rank();
  Tensor x = input<T>(me, {11}, 12);
  W().all_reduce(x, op);
  for (int64_t i = 0; i < 11; ++i)
    EXPECT_TRUE(x.data<T>()[i] == combine_ranks<T>(n, i, 12, op)) << name(dtype_of<T>::value) << " " << name(op);
}

TEST(CollectivesAllDTypes, AllReduce) {
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
    all_reduce_dtype<bool>(op);
    all_reduce_dtype<int32_t>(op);
    all_reduce_dtype<int64_t>(op);
  }
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean}) {
    all_reduce_dtype<c64>(op);
    all_reduce_dtype<c128>(op);
  }
  Tensor z = zeros({3}, DType::Complex64);
  EXPECT_THROW(W().all_reduce(z, ReduceOp::Max), ValueError);
  Tensor k = zeros({3}, DType::Int32);
  EXPECT_THROW(W().all_reduce(k, ReduceOp::Mean), DTypeError);
}

TEST(CollectivesAllDTypes, GatherAndBroadcastMoveEveryDType) {
  const int n = W().size(), me = W().rank();
  Tensor in = input<c128>(me, {2}, 13), out = empty({2 * n}, DType::Complex128);
  W().all_gather(in, out);
  for (int r = 0; r < n; ++r) EXPECT_EQ(out.data<c128>()[2 * r + 1], value<c128>(r, 1, 13));
  Tensor b = input<bool>(me, {40}, 14);
  W().broadcast(b, n - 1);
  for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(b.data<bool>()[i], value<bool>(n - 1, i, 14));
}

TEST(CommunicatorErrors, ShapesAreCheckedLocally) {
  const int n = W().size();
  Tensor in = zeros({2, 3}), bad = zeros({2 * n + 1, 3});
  try {
    W().all_gather(in, bad);
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3]"), std::string::npos) << e.what();
  }
  Tensor out = zeros({2 * n, 3}, DType::Float64);
  EXPECT_THROW(W().all_gather(in, out), DTypeError);
  Tensor rs_out = zeros({3, 3});
  EXPECT_THROW(W().reduce_scatter(zeros({3 * n + 1, 3}), rs_out, ReduceOp::Sum), ShapeError);
  Tensor a2a = zeros({n + 1});
  if (n > 1) EXPECT_THROW(W().all_to_all(zeros({n + 1}), a2a), ShapeError);
  Tensor x = zeros({4});
  EXPECT_THROW(W().broadcast(x, n), ValueError);
  Tensor strided = make_view(zeros({4, 4}), {4}, {4}, 0);
  EXPECT_THROW(W().all_reduce(strided, ReduceOp::Sum), ValueError);
}

TEST(CommunicatorSplit, GroupsOrderedByKey) {
  const int n = W().size(), me = W().rank();
  W().barrier();
  // Two groups by parity, ordered by descending world rank (key = -rank).
  auto sub = W().split(me % 2, -me);
  ASSERT_TRUE(sub);
  std::vector<int> members;
  for (int r = n - 1; r >= 0; --r)
    if (r % 2 == me % 2) members.push_back(r);
  EXPECT_EQ(sub->size(), int(members.size()));
  EXPECT_EQ(members[sub->rank()], me);
  EXPECT_EQ(sub->backend(), W().backend());
  EXPECT_NE(sub->id(), W().id());
  EXPECT_EQ(parallel::Communicator::find(sub->id()).get(), sub.get());
  Tensor x = full({1}, double(me), DType::Float64);
  sub->all_reduce(x, ReduceOp::Sum);
  double want = 0;
  for (int r : members) want += r;
  EXPECT_EQ(x.item<double>(), want);
  // color < 0: this rank joins no group.
  auto none = W().split(me == 0 ? -1 : 0, 0);
  EXPECT_EQ(none == nullptr, me == 0);
  if (none) EXPECT_EQ(none->size(), n - 1);
}

TEST(DeviceMesh, AxesGroupTheGrid) {
  const int n = W().size(), me = W().rank();
  const std::vector<int> shape = n == 4 ? std::vector<int>{2, 2} : std::vector<int>{n, 1};
  parallel::DeviceMesh mesh(shape, {"data", "model"});
  EXPECT_EQ(mesh.shape(), shape);
  // Row-major coordinates of the world rank.
  const std::vector<int> coords = {me / shape[1], me % shape[1]};
  EXPECT_EQ(mesh.coords(), coords);
  EXPECT_EQ(mesh.comm("data").size(), shape[0]);
  EXPECT_EQ(mesh.comm("model").size(), shape[1]);
  EXPECT_EQ(mesh.comm("data").rank(), coords[0]);
  EXPECT_EQ(mesh.comm("model").rank(), coords[1]);
  // Along "data" the ranks sharing my model coordinate: sum of their world ranks.
  Tensor x = full({1}, double(me), DType::Float64);
  mesh.comm("data").all_reduce(x, ReduceOp::Sum);
  double want = 0;
  for (int i = 0; i < shape[0]; ++i) want += i * shape[1] + coords[1];
  EXPECT_EQ(x.item<double>(), want);
  Tensor y = full({1}, double(me), DType::Float64);
  mesh.comm("model").all_reduce(y, ReduceOp::Sum);
  want = 0;
  for (int j = 0; j < shape[1]; ++j) want += coords[0] * shape[1] + j;
  EXPECT_EQ(y.item<double>(), want);
  EXPECT_THROW(mesh.comm("pipeline"), ValueError);
  EXPECT_THROW(parallel::DeviceMesh({n + 1}, {"data"}), ValueError);
  EXPECT_THROW(parallel::DeviceMesh({n, 1}, {"a", "a"}), ValueError);
}

TEST(Runtime, WorldMatchesTheLauncher) {
  const char* env = std::getenv("OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(W().backend(), env ? "mpi" : "self");
  if (env) EXPECT_EQ(W().size(), std::atoi(env));
  EXPECT_EQ(parallel::size(), W().size());
  EXPECT_EQ(parallel::rank(), W().rank());
  // All ranks of these tests share one node: local rank == world rank.
  EXPECT_EQ(parallel::local_rank(), W().rank());
  if (const char* t = std::getenv("SPIRE_COLLECTIVE_TIMEOUT")) EXPECT_EQ(parallel::collective_timeout(), std::atof(t));
}

}  // namespace
