// The collective ops: definitions (inference, rules, samples), kernels over the communicator (one
// body for every device: the communicator moves the bytes), and the public functions. Rules are
// written with these same ops, so derivatives of any order issue collectives too, and never skip one
// (see collectives.h on SPMD).
#include "engine/parallel/collectives.h"

#include <algorithm>
#include <set>

#include "engine/autodiff/vmap.h"
#include "engine/core/op.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire::parallel {
namespace {

// --- attributes and validation ------------------------------------------------------------------

std::shared_ptr<Communicator> comm_of(const Attrs& a) { return Communicator::find(a.get<int64_t>("comm")); }
// The communicator of the op's ranks for buffers on `d` (NCCL for CUDA tensors; communicator.h).
std::shared_ptr<Communicator> comm_of(const Attrs& a, Device d) { return comm_of(a)->on(d); }
int64_t axis_attr(const Attrs& a, const char* key) { return a.get<int64_t>(key); }
ReduceOp reduce_attr(const Attrs& a) { return reduce_op_from_name(a.get<std::string>("op")); }
bool is_extreme(ReduceOp op) { return op == ReduceOp::Max || op == ReduceOp::Min; }

// The reductions a dtype allows, checked where the op is called rather than in the backend.
void check_reduction(const char* op, ReduceOp r, DType t) {
  SPIRE_CHECK(!is_extreme(r) || !is_complex(t), DTypeError, op, ": complex numbers have no order, so '",
              name(r), "' is not defined for ", spire::name(t), "; allowed for complex: sum, mean");
  SPIRE_CHECK(r != ReduceOp::Mean || is_inexact(t), DTypeError, op, ": mean needs a floating or complex dtype, got ",
              spire::name(t), "; use sum and divide");
}

// [pairs] as (src, dst): each rank in range, at most once a source and at most once a destination.
std::vector<std::pair<int, int>> pairs_attr(const Attrs& a, int size) {
  const auto& flat = a.get<std::vector<int64_t>>("pairs");
  SPIRE_CHECK(flat.size() % 2 == 0, ValueError, "permute: pairs must be (source, destination) pairs");
  std::vector<std::pair<int, int>> pairs;
  std::set<int> srcs, dsts;
  for (size_t i = 0; i < flat.size(); i += 2) {
    int s = int(flat[i]), d = int(flat[i + 1]);
    SPIRE_CHECK(s >= 0 && s < size && d >= 0 && d < size, ValueError, "permute: pair (", flat[i], ", ",
                flat[i + 1], ") names a rank outside [0, ", size, ")");
    SPIRE_CHECK(srcs.insert(s).second, ValueError, "permute: rank ", s,
                " is the source of two pairs; each rank sends at most once");
    SPIRE_CHECK(dsts.insert(d).second, ValueError, "permute: rank ", d,
                " is the destination of two pairs; each rank receives at most once");
    pairs.emplace_back(s, d);
  }
  return pairs;
}

std::vector<int64_t> flatten_pairs(const std::vector<std::pair<int, int>>& pairs) {
  std::vector<int64_t> flat;
  for (auto [s, d] : pairs) {
    flat.push_back(s);
    flat.push_back(d);
  }
  return flat;
}

// --- kernel helpers (raw buffers; nothing recorded) ---------------------------------------------
// The kernels are the same on every device: the communicator moves the bytes, and the local
// reordering goes through the device's own "copy" and "full" kernels.

// src (any strides) into dst (contiguous, the same shape and device).
void copy_into(const Tensor& src, Tensor& dst) {
  static const OpDef& d = op_def("copy");
  const KernelFn& k = d.kernels[int(dst.device().kind)];
  SPIRE_CHECK(k, DeviceError, "collectives: no copy kernel on ", dst.device().str());
  std::vector<Tensor> out{dst};
  k({src}, out, {});
}

void fill_zeros(Tensor& dst) {
  static const OpDef& d = op_def("full");
  const KernelFn& k = d.kernels[int(dst.device().kind)];
  SPIRE_CHECK(k, DeviceError, "collectives: no fill kernel on ", dst.device().str());
  std::vector<Tensor> out{dst};
  k({}, out, Attrs{{"value", Scalar(0)}});
}

// x itself when contiguous, else a contiguous copy.
Tensor dense(const Tensor& x) {
  if (x.is_contiguous()) return x;
  Tensor t = empty(x.shape(), x.dtype(), x.device());
  copy_into(x, t);
  return t;
}

// A contiguous tensor's data with another (contiguous) shape.
Tensor as_shape(const Tensor& t, const Shape& shape) {
  return make_view(t, shape, contiguous_strides(shape), t.offset());
}

// Elements before, along and after `axis`.
struct Split3 {
  int64_t pre = 1, len = 1, post = 1;
};
Split3 split3(const Shape& s, int64_t axis) {
  Split3 r;
  for (int64_t i = 0; i < int64_t(s.size()); ++i) (i < axis ? r.pre : i == axis ? r.len : r.post) *= s[i];
  return r;
}

// Contiguous `src` read as [a, b, q] copied into contiguous `dst` as [b, a, q]: moves the block
// index b in front (or back, with a and b exchanged), the reordering chunked collectives need.
void swap_blocks(const Tensor& src, Tensor& dst, int64_t a, int64_t b, int64_t q) {
  Tensor from = make_view(src, {b, a, q}, {q, b * q, 1}, src.offset());
  Tensor to = as_shape(dst, {b, a, q});
  copy_into(from, to);
}

void all_reduce_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  copy_into(in[0], out[0]);
  comm_of(a, out[0].device())->all_reduce(out[0], reduce_attr(a));
}

// Gathers into [size, pre, len*post] and moves the rank index next to the gathered axis.
void all_gather_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  auto comm = comm_of(a, out[0].device());
  int64_t n = comm->size();
  Split3 s = split3(in[0].shape(), axis_attr(a, "axis"));
  int64_t q = s.len * s.post;
  Tensor x = as_shape(dense(in[0]), {s.pre, q});
  if (s.pre == 1) {
    Tensor y = as_shape(out[0], {n, q});
    comm->all_gather(x, y);
    return;
  }
  Tensor tmp = empty({n * s.pre, q}, x.dtype(), x.device());
  comm->all_gather(x, tmp);
  swap_blocks(tmp, out[0], n, s.pre, q);  // [n, pre, q] -> [pre, n, q]
}

void reduce_scatter_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  auto comm = comm_of(a, out[0].device());
  int64_t n = comm->size();
  Split3 s = split3(in[0].shape(), axis_attr(a, "axis"));
  int64_t q = s.len / n * s.post;
  Tensor x = dense(in[0]);
  if (s.pre > 1) {
    Tensor tmp = empty({n, s.pre, q}, x.dtype(), x.device());
    swap_blocks(x, tmp, s.pre, n, q);  // [pre, n, q] -> [n, pre, q]
    x = tmp;
  }
  Tensor y = as_shape(out[0], {s.pre, q});
  comm->reduce_scatter(as_shape(x, {n * s.pre, q}), y, reduce_attr(a));
}

// Chunks along split_axis to the front ([n, pre, q]), exchanged, then the sender index moved next
// to concat_axis.
void all_to_all_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  auto comm = comm_of(a, out[0].device());
  int64_t n = comm->size();
  int64_t sa = axis_attr(a, "split_axis"), ca = axis_attr(a, "concat_axis");
  Split3 s = split3(in[0].shape(), sa);
  int64_t qs = s.len / n * s.post, chunk = s.pre * qs;
  Tensor x = dense(in[0]);
  if (s.pre > 1) {
    Tensor tmp = empty({n, s.pre, qs}, x.dtype(), x.device());
    swap_blocks(x, tmp, s.pre, n, qs);  // [pre, n, qs] -> [n, pre, qs]
    x = tmp;
  }
  Shape piece = in[0].shape();  // the shape of one chunk
  piece[sa] /= n;
  Split3 c = split3(piece, ca);
  int64_t qc = c.len * c.post;
  if (c.pre == 1) {
    Tensor y = as_shape(out[0], {n, chunk});
    comm->all_to_all(as_shape(x, {n, chunk}), y);
    return;
  }
  Tensor tmp = empty({n, chunk}, x.dtype(), x.device());
  comm->all_to_all(as_shape(x, {n, chunk}), tmp);
  swap_blocks(tmp, out[0], n, c.pre, qc);  // [n, pre, qc] -> [pre, n, qc]
}

void broadcast_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  copy_into(in[0], out[0]);
  comm_of(a, out[0].device())->broadcast(out[0], int(a.get<int64_t>("root")));
}

// Blocking sends and receives ordered so that no cycle waits on itself: along a chain the head
// sends first and every other rank receives, then sends; around a cycle its lowest rank sends
// first. Every rank knows all pairs, so each works out its own place.
void permute_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  auto comm = comm_of(a, out[0].device());
  int me = comm->rank();
  auto pairs = pairs_attr(a, comm->size());
  auto source_of = [&](int r) {
    for (auto [s, d] : pairs)
      if (d == r) return s;
    return -1;
  };
  int dst = -1;
  for (auto [s, d] : pairs)
    if (s == me) dst = d;
  int src = source_of(me);
  if (src == me) {  // a fixed point
    copy_into(in[0], out[0]);
    return;
  }
  if (src < 0) fill_zeros(out[0]);
  bool send_first = src < 0;
  if (!send_first) {  // walk back from me: a chain's head, or me again around a cycle
    int lowest = me, r = src;
    while (r >= 0 && r != me) {
      lowest = std::min(lowest, r);
      r = source_of(r);
    }
    send_first = r == me && lowest == me;
  }
  Tensor x = dst >= 0 ? dense(in[0]) : Tensor();
  if (send_first && dst >= 0) comm->send(x, dst, kMaxTag);
  if (src >= 0) comm->recv(out[0], src, kMaxTag);
  if (!send_first && dst >= 0) comm->send(x, dst, kMaxTag);
}

// --- rules --------------------------------------------------------------------------------------

Attrs comm_attrs(int64_t comm) { return Attrs{{"comm", comm}}; }

Tensor call_all_reduce(const Tensor& x, ReduceOp op, int64_t comm) {
  static const OpDef& d = op_def("all_reduce");
  return call1(d, {x}, comm_attrs(comm).set("op", std::string(name(op))));
}
Tensor call_all_gather(const Tensor& x, int64_t axis, int64_t comm) {
  static const OpDef& d = op_def("all_gather");
  return call1(d, {x}, comm_attrs(comm).set("axis", axis));
}
Tensor call_reduce_scatter(const Tensor& x, int64_t axis, ReduceOp op, int64_t comm) {
  static const OpDef& d = op_def("reduce_scatter");
  return call1(d, {x}, comm_attrs(comm).set("axis", axis).set("op", std::string(name(op))));
}

// The tangent of input 0, zeros where it has none: collectives run on every rank regardless.
Tensor tangent_or_zeros(const JvpContext& c) {
  return c.tangents[0].defined() ? c.tangents[0] : zeros_like(c.inputs[0]);
}

// Taylor rule of the ops linear in their input (and of max / min, locally linear): each
// coefficient through the forward rule, zeros included, so every rank issues K collectives.
std::vector<Series> linear_taylor(const TaylorContext& c) {
  Series z(c.order);
  for (int k = 0; k < c.order; ++k) {
    std::vector<Tensor> t{c.series[0][k]};
    z[k] = c.op.jvp(JvpContext{c.op, c.attrs, c.inputs, c.outputs, t})[0];
  }
  return {z};
}

// Where the extreme of an all_reduce (or reduce_scatter, with `out` gathered back to x's shape)
// was attained, each such element weighted by 1 / (the number of such elements over all ranks).
Tensor extreme_weights(const Tensor& x, const Tensor& out, int64_t comm) {
  Tensor hit = cast(eq(x.detach(), out.detach()), x.dtype());
  return div(hit, call_all_reduce(hit, ReduceOp::Sum, comm));
}

// The mapped axis is data: the op runs once on the physical tensor with its axes shifted past it.
BatchRule shifted_axes_batch(std::vector<const char*> keys) {
  return [keys](const BatchContext& c) -> std::vector<Tensor> {
    Attrs a = c.attrs;
    for (const char* k : keys) a.set(k, c.attrs.get<int64_t>(k) + 1);
    return call(c.op, {batching::mapped_input(c, 0)}, a);
  };
}

std::vector<TensorMeta> same_meta(const std::vector<Tensor>& in, const Attrs&) {
  return {{in[0].shape(), in[0].dtype()}};
}

// Samples for the registry test, which runs in one process: there the collectives are identities
// (or zeros for a permute that leaves a rank out), and the multi-rank checks live in
// tests/parallel/test_collective_ops.cpp. Shapes scale with the world size all the same.
int64_t world_comm() { return world_ptr()->id(); }
int64_t world_size() { return world_ptr()->size(); }

// --- definitions --------------------------------------------------------------------------------

SPIRE_DEFINE_OP({
    .name = "all_reduce",
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      check_reduction("all_reduce", reduce_attr(a), in[0].dtype());
      return same_meta(in, a);
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      ReduceOp op = reduce_attr(c.attrs);
      int64_t comm = c.attrs.get<int64_t>("comm");
      if (!is_extreme(op)) return {call1(c.op, {c.grads[0]}, c.attrs)};  // self-transpose
      return {mul(extreme_weights(c.inputs[0], c.outputs[0], comm), call_all_reduce(c.grads[0], ReduceOp::Sum, comm))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      ReduceOp op = reduce_attr(c.attrs);
      int64_t comm = c.attrs.get<int64_t>("comm");
      Tensor t = tangent_or_zeros(c);
      if (!is_extreme(op)) return {call1(c.op, {t}, c.attrs)};
      return {call_all_reduce(mul(extreme_weights(c.inputs[0], c.outputs[0], comm), t), ReduceOp::Sum, comm)};
    },
    .taylor = linear_taylor,
    .batch = [](const BatchContext& c) { return call(c.op, {batching::mapped_input(c, 0)}, c.attrs); },
    .samples = [] {
      std::vector<OpSample> s;
      for (const char* op : {"sum", "mean", "max", "min"})
        s.push_back({{rules::sample({3, 4}, -1, 1, 7)}, comm_attrs(world_comm()).set("op", std::string(op)), op});
      s.push_back({{rules::sample({5}, -1, 1, 8)}, comm_attrs(world_comm()).set("op", std::string("sum")), "1-d sum"});
      return s;
    },
});
SPIRE_REGISTER_KERNEL("all_reduce", DeviceKind::CPU, all_reduce_kernel);
SPIRE_REGISTER_KERNEL("all_reduce", DeviceKind::CUDA, all_reduce_kernel);

SPIRE_DEFINE_OP({
    .name = "all_gather",
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      Shape s = in[0].shape();
      s[axis_attr(a, "axis")] *= comm_of(a)->size();
      return {{s, in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {call_reduce_scatter(c.grads[0], axis_attr(c.attrs, "axis"), ReduceOp::Sum, c.attrs.get<int64_t>("comm"))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {call1(c.op, {tangent_or_zeros(c)}, c.attrs)}; },
    .taylor = linear_taylor,
    .batch = shifted_axes_batch({"axis"}),
    .samples = [] {
      return std::vector<OpSample>{
          {{rules::sample({2, 3}, -1, 1, 9)}, comm_attrs(world_comm()).set("axis", int64_t(0)), "axis 0"},
          {{rules::sample({2, 3, 2}, -1, 1, 10)}, comm_attrs(world_comm()).set("axis", int64_t(1)), "middle axis"},
          {{rules::sample({3, 2}, -1, 1, 11)}, comm_attrs(world_comm()).set("axis", int64_t(1)), "last axis"},
      };
    },
});
SPIRE_REGISTER_KERNEL("all_gather", DeviceKind::CPU, all_gather_kernel);
SPIRE_REGISTER_KERNEL("all_gather", DeviceKind::CUDA, all_gather_kernel);

SPIRE_DEFINE_OP({
    .name = "reduce_scatter",
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      check_reduction("reduce_scatter", reduce_attr(a), in[0].dtype());
      int64_t axis = axis_attr(a, "axis"), n = comm_of(a)->size();
      Shape s = in[0].shape();
      SPIRE_CHECK(s[axis] % n == 0, ShapeError, "reduce_scatter: axis ", axis, " of shape ", shape_str(s),
                  " does not split into ", n, " equal chunks (one per rank)");
      s[axis] /= n;
      return {{s, in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      ReduceOp op = reduce_attr(c.attrs);
      int64_t comm = c.attrs.get<int64_t>("comm"), axis = axis_attr(c.attrs, "axis");
      Tensor g = call_all_gather(c.grads[0], axis, comm);
      if (op == ReduceOp::Sum) return {g};
      if (op == ReduceOp::Mean) return {div(g, Scalar(double(Communicator::find(comm)->size())))};
      Tensor out = call_all_gather(c.outputs[0].detach(), axis, comm);
      return {mul(extreme_weights(c.inputs[0], out, comm), g)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      ReduceOp op = reduce_attr(c.attrs);
      int64_t comm = c.attrs.get<int64_t>("comm"), axis = axis_attr(c.attrs, "axis");
      Tensor t = tangent_or_zeros(c);
      if (!is_extreme(op)) return {call1(c.op, {t}, c.attrs)};
      Tensor out = call_all_gather(c.outputs[0].detach(), axis, comm);
      return {call_reduce_scatter(mul(extreme_weights(c.inputs[0], out, comm), t), axis, ReduceOp::Sum, comm)};
    },
    .taylor = linear_taylor,
    .batch = shifted_axes_batch({"axis"}),
    .samples = [] {
      int64_t n = world_size();
      std::vector<OpSample> s;
      for (const char* op : {"sum", "mean", "max", "min"})
        s.push_back({{rules::sample({2 * n, 3}, -1, 1, 12)},
                     comm_attrs(world_comm()).set("axis", int64_t(0)).set("op", std::string(op)), op});
      s.push_back({{rules::sample({2, 2 * n, 2}, -1, 1, 13)},
                   comm_attrs(world_comm()).set("axis", int64_t(1)).set("op", std::string("sum")), "middle axis"});
      return s;
    },
});
SPIRE_REGISTER_KERNEL("reduce_scatter", DeviceKind::CPU, reduce_scatter_kernel);
SPIRE_REGISTER_KERNEL("reduce_scatter", DeviceKind::CUDA, reduce_scatter_kernel);

SPIRE_DEFINE_OP({
    .name = "all_to_all",
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      int64_t sa = axis_attr(a, "split_axis"), ca = axis_attr(a, "concat_axis"), n = comm_of(a)->size();
      Shape s = in[0].shape();
      SPIRE_CHECK(s[sa] % n == 0, ShapeError, "all_to_all: split axis ", sa, " of shape ", shape_str(s),
                  " does not split into ", n, " equal chunks (one per rank)");
      s[sa] /= n;
      s[ca] *= n;
      return {{s, in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {  // the transpose swaps the axes
      Attrs a = c.attrs;
      a.set("split_axis", c.attrs.get<int64_t>("concat_axis")).set("concat_axis", c.attrs.get<int64_t>("split_axis"));
      return {call1(c.op, {c.grads[0]}, a)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {call1(c.op, {tangent_or_zeros(c)}, c.attrs)}; },
    .taylor = linear_taylor,
    .batch = shifted_axes_batch({"split_axis", "concat_axis"}),
    .samples = [] {
      int64_t n = world_size();
      auto axes = [](int64_t s, int64_t c) {
        return comm_attrs(world_comm()).set("split_axis", s).set("concat_axis", c);
      };
      return std::vector<OpSample>{
          {{rules::sample({2 * n, 3}, -1, 1, 14)}, axes(0, 0), "same axis"},
          {{rules::sample({2, 3 * n}, -1, 1, 15)}, axes(1, 0), "split 1 concat 0"},
          {{rules::sample({2, 2 * n, 3}, -1, 1, 16)}, axes(1, 2), "split 1 concat 2"},
      };
    },
});
SPIRE_REGISTER_KERNEL("all_to_all", DeviceKind::CPU, all_to_all_kernel);
SPIRE_REGISTER_KERNEL("all_to_all", DeviceKind::CUDA, all_to_all_kernel);

SPIRE_DEFINE_OP({
    .name = "broadcast",
    .infer = same_meta,
    // The cotangents summed to root. Off root the gradient is zero, by a mask rather than by
    // skipping, so the rule's graph (and the collectives of its derivatives) match on every rank.
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      int64_t comm = c.attrs.get<int64_t>("comm");
      bool root = Communicator::find(comm)->rank() == c.attrs.get<int64_t>("root");
      return {where(scalar_tensor(root, DType::Bool), call_all_reduce(c.grads[0], ReduceOp::Sum, comm), Scalar(0.0))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {call1(c.op, {tangent_or_zeros(c)}, c.attrs)}; },
    .taylor = linear_taylor,
    .batch = [](const BatchContext& c) { return call(c.op, {batching::mapped_input(c, 0)}, c.attrs); },
    .samples = [] {
      return std::vector<OpSample>{
          {{rules::sample({3, 2}, -1, 1, 17)}, comm_attrs(world_comm()).set("root", int64_t(0)), "root 0"},
          {{rules::sample({4}, -1, 1, 18)}, comm_attrs(world_comm()).set("root", world_size() - 1), "last root"},
      };
    },
});
SPIRE_REGISTER_KERNEL("broadcast", DeviceKind::CPU, broadcast_kernel);
SPIRE_REGISTER_KERNEL("broadcast", DeviceKind::CUDA, broadcast_kernel);

SPIRE_DEFINE_OP({
    .name = "collective_permute",
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      pairs_attr(a, comm_of(a)->size());
      return same_meta(in, a);
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {  // the inverse permutation
      const auto& flat = c.attrs.get<std::vector<int64_t>>("pairs");
      std::vector<int64_t> inverse(flat.size());
      for (size_t i = 0; i < flat.size(); i += 2) {
        inverse[i] = flat[i + 1];
        inverse[i + 1] = flat[i];
      }
      Attrs a = c.attrs;
      a.set("pairs", inverse);
      return {call1(c.op, {c.grads[0]}, a)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {call1(c.op, {tangent_or_zeros(c)}, c.attrs)}; },
    .taylor = linear_taylor,
    .batch = [](const BatchContext& c) { return call(c.op, {batching::mapped_input(c, 0)}, c.attrs); },
    .samples = [] {
      int64_t n = world_size();
      std::vector<int64_t> shift;  // rank r sends to r + 1 around the ring (to itself on one rank)
      for (int64_t r = 0; r < n; ++r) {
        shift.push_back(r);
        shift.push_back((r + 1) % n);
      }
      return std::vector<OpSample>{
          {{rules::sample({3, 2}, -1, 1, 19)}, comm_attrs(world_comm()).set("pairs", shift), "ring shift"},
          {{rules::sample({4}, -1, 1, 20)}, comm_attrs(world_comm()).set("pairs", std::vector<int64_t>{}),
           "no pairs: zeros"},
      };
    },
});
SPIRE_REGISTER_KERNEL("collective_permute", DeviceKind::CPU, permute_kernel);
SPIRE_REGISTER_KERNEL("collective_permute", DeviceKind::CUDA, permute_kernel);

}  // namespace

// --- public functions ---------------------------------------------------------------------------

namespace {
// The communicator of comm's ranks for x's device: comm itself, or the one made over it (NCCL for
// CUDA tensors); made here, before anything is recorded, so a device without a backend is refused
// with the op's name.
std::shared_ptr<Communicator> check_device(const char* op, const Tensor& x, const Communicator& comm) {
  SPIRE_CHECK(x.defined(), ValueError, op, ": the tensor is undefined");
  try {
    return Communicator::find(comm.id())->on(x.device());
  } catch (const DeviceError& e) {
    throw DeviceError(std::string(op) + ": " + e.what());
  }
}
}  // namespace

Tensor all_reduce(const Tensor& x, ReduceOp op, const Communicator& comm) {
  check_device("all_reduce", x, comm);
  return call_all_reduce(x, op, comm.id());
}
Tensor all_reduce(const Tensor& x, const std::string& op, const Communicator& comm) {
  return all_reduce(x, reduce_op_from_name(op), comm);
}

Tensor all_gather(const Tensor& x, int64_t axis, const Communicator& comm) {
  check_device("all_gather", x, comm);
  SPIRE_CHECK(x.dim() > 0, ShapeError, "all_gather: a 0-d tensor has no axis to gather along; reshape it to [1]");
  return call_all_gather(x, normalize_axis(axis, x.dim(), "all_gather"), comm.id());
}

Tensor reduce_scatter(const Tensor& x, int64_t axis, ReduceOp op, const Communicator& comm) {
  check_device("reduce_scatter", x, comm);
  SPIRE_CHECK(x.dim() > 0, ShapeError, "reduce_scatter: a 0-d tensor has no axis to scatter along");
  return call_reduce_scatter(x, normalize_axis(axis, x.dim(), "reduce_scatter"), op, comm.id());
}
Tensor reduce_scatter(const Tensor& x, int64_t axis, const std::string& op, const Communicator& comm) {
  return reduce_scatter(x, axis, reduce_op_from_name(op), comm);
}

Tensor all_to_all(const Tensor& x, int64_t split_axis, int64_t concat_axis, const Communicator& comm) {
  static const OpDef& d = op_def("all_to_all");
  check_device("all_to_all", x, comm);
  SPIRE_CHECK(x.dim() > 0, ShapeError, "all_to_all: a 0-d tensor has no axis to split");
  Attrs a = comm_attrs(comm.id())
                .set("split_axis", normalize_axis(split_axis, x.dim(), "all_to_all"))
                .set("concat_axis", normalize_axis(concat_axis, x.dim(), "all_to_all"));
  return call1(d, {x}, a);
}

Tensor broadcast(const Tensor& x, int root, const Communicator& comm) {
  static const OpDef& d = op_def("broadcast");
  check_device("broadcast", x, comm);
  SPIRE_CHECK(root >= 0 && root < comm.size(), ValueError, "broadcast: root ", root, " is not a rank of a ",
              "communicator of size ", comm.size(), "; allowed: 0 to ", comm.size() - 1);
  return call1(d, {x}, comm_attrs(comm.id()).set("root", int64_t(root)));
}

Tensor permute(const Tensor& x, const std::vector<std::pair<int, int>>& pairs, const Communicator& comm) {
  static const OpDef& d = op_def("collective_permute");
  check_device("permute", x, comm);
  return call1(d, {x}, comm_attrs(comm.id()).set("pairs", flatten_pairs(pairs)));
}

void send(const Tensor& x, int dst, int tag, const Communicator& comm) {
  SPIRE_CHECK(x.defined(), ValueError, "send: the tensor is undefined");
  SPIRE_CHECK(!x.is_batched(), ValueError, "send: not inside vmap (a mapped tensor is one entry of a batch; "
              "send the batch outside the mapped function)");
  SPIRE_CHECK(tag >= 0 && tag < kMaxTag, ValueError, "send: tag ", tag, " is out of range; allowed 0..", kMaxTag - 1);
  Tensor buffer = contiguous(x.detach());
  check_device("send", x, comm)->send(buffer, dst, tag);
}

Tensor recv(const Shape& shape, DType dtype, int src, int tag, const Communicator& comm) {
  SPIRE_CHECK(tag >= 0 && tag < kMaxTag, ValueError, "recv: tag ", tag, " is out of range; allowed 0..", kMaxTag - 1);
  for (int64_t d : shape) SPIRE_CHECK(d >= 0, ShapeError, "recv: negative size in shape ", shape_str(shape));
  Tensor buffer = empty(shape, dtype, comm.device());
  Communicator::find(comm.id())->recv(buffer, src, tag);
  return buffer;
}

void barrier(const Communicator& comm) { Communicator::find(comm.id())->barrier(); }

}  // namespace spire::parallel
