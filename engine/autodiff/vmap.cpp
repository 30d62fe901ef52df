#include "engine/autodiff/vmap.h"

#include <algorithm>

#include "engine/ops/shape.h"

namespace spire {
namespace batching {
namespace {

struct LiveLevel {
  int level;
  int64_t size;
};
thread_local std::vector<LiveLevel> live;
thread_local int next_level = 0;

const LiveLevel& find_level(int level) {
  for (auto& l : live)
    if (l.level == level) return l;
  throw AutodiffError("vmap level " + std::to_string(level) + " is not active");
}

}  // namespace

Level::Level(int64_t size) : level_(next_level++), size_(size) {
  SPIRE_CHECK(size >= 0, ValueError, "vmap: negative batch size ", size);
  live.push_back({level_, size_});
}
Level::~Level() {
  live.erase(std::remove_if(live.begin(), live.end(), [&](auto& l) { return l.level == level_; }),
             live.end());
}

bool any_level_active() { return !live.empty(); }

bool is_batched_at(const Tensor& t, int level) {
  return t.defined() && t.impl()->batched && t.impl()->batched->level == level;
}

Tensor wrap(const Tensor& physical, int level) {
  const LiveLevel& l = find_level(level);
  SPIRE_CHECK(physical.dim() >= 1 && physical.shape(0) == l.size, ShapeError, "vmap: a tensor of shape ",
              shape_str(physical.shape()), " has no mapped axis of size ", l.size, " first");
  // Logical metadata of entry 0; data access through it is refused (Tensor::raw_data).
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = physical.storage();
  impl->shape = Shape(physical.shape().begin() + 1, physical.shape().end());
  impl->strides = Shape(physical.strides().begin() + 1, physical.strides().end());
  impl->offset = physical.offset();
  impl->dtype = physical.dtype();
  impl->batched = std::make_shared<BatchedValue>(BatchedValue{level, physical.impl_ptr()});
  return Tensor(std::move(impl));
}

Tensor unwrap(const Tensor& t, int level) {
  if (is_batched_at(t, level)) return Tensor(t.impl()->batched->physical);
  Shape s = t.shape();
  s.insert(s.begin(), find_level(level).size);
  return expand(unsqueeze(t, 0), s);
}

bool dispatch(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
              std::vector<Tensor>& outputs) {
  int level = -1;
  for (auto& t : inputs)
    if (t.impl()->batched) level = std::max(level, t.impl()->batched->level);
  if (level < 0) return false;
  int64_t size = find_level(level).size;
  std::vector<Tensor> physical(inputs.size());
  std::vector<bool> batched(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    batched[i] = is_batched_at(inputs[i], level);
    physical[i] = batched[i] ? Tensor(inputs[i].impl()->batched->physical) : inputs[i];
  }
  BatchContext ctx{op, attrs, physical, batched, size};
  std::vector<Tensor> outs = op.batch ? op.batch(ctx) : batch_loop(ctx);
  outputs.clear();
  for (auto& o : outs) {
    SPIRE_CHECK(o.dim() >= 1 && o.shape(0) == size, ShapeError, "batching rule of '", op.name,
                "' gave an output of shape ", shape_str(o.shape()), " without the mapped axis (size ",
                size, ") first");
    outputs.push_back(wrap(o, level));
  }
  return true;
}

int64_t logical_dim(const BatchContext& c, size_t i) {
  return c.inputs[i].dim() - (c.batched[i] ? 1 : 0);
}

Tensor mapped_input(const BatchContext& c, size_t i) {
  if (c.batched[i]) return c.inputs[i];
  Shape s = c.inputs[i].shape();
  s.insert(s.begin(), c.size);
  return expand(unsqueeze(c.inputs[i], 0), s);
}

std::vector<int64_t> shift_axes(std::vector<int64_t> axes) {
  for (auto& a : axes) ++a;
  return axes;
}

std::vector<Tensor> batch_elementwise(const BatchContext& c) {
  int64_t rank = 0;
  for (size_t i = 0; i < c.inputs.size(); ++i) rank = std::max(rank, logical_dim(c, i));
  std::vector<Tensor> ins = c.inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (!c.batched[i]) continue;
    int64_t missing = rank - logical_dim(c, i);
    if (missing == 0) continue;
    Shape s = ins[i].shape();
    s.insert(s.begin() + 1, missing, 1);
    ins[i] = reshape(ins[i], s);
  }
  // An unmapped input has rank <= the logical rank, so every output has the mapped axis first.
  return call(c.op, ins, c.attrs);
}

std::vector<Tensor> batch_loop(const BatchContext& c) {
  std::vector<std::vector<Tensor>> per_output;
  for (int64_t b = 0; b < c.size; ++b) {
    std::vector<Tensor> ins(c.inputs.size());
    for (size_t i = 0; i < ins.size(); ++i) ins[i] = c.batched[i] ? select(c.inputs[i], 0, b) : c.inputs[i];
    std::vector<Tensor> outs = call(c.op, ins, c.attrs);
    per_output.resize(outs.size());
    for (size_t k = 0; k < outs.size(); ++k) per_output[k].push_back(outs[k]);
  }
  SPIRE_CHECK(c.size > 0, ValueError, "vmap: op '", c.op.name,
              "' has no batching rule and cannot run over an empty batch");
  std::vector<Tensor> outs;
  for (auto& po : per_output) outs.push_back(stack(po, 0));
  return outs;
}

}  // namespace batching

Function vmap(const Function& f, const std::vector<std::optional<int64_t>>& in_axes,
              const std::vector<int64_t>& out_axes) {
  return [f, in_axes, out_axes](const Tensors& args) {
    SPIRE_CHECK(in_axes.empty() || in_axes.size() == args.size(), ValueError, "vmap: in_axes has ",
                in_axes.size(), " entries for ", args.size(), " arguments");
    std::optional<int64_t> size;
    std::vector<std::optional<int64_t>> axes(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      axes[i] = in_axes.empty() ? std::optional<int64_t>(0) : in_axes[i];
      if (!axes[i]) continue;
      axes[i] = normalize_axis(*axes[i], args[i].dim(), "vmap");
      int64_t n = args[i].shape(*axes[i]);
      SPIRE_CHECK(!size || *size == n, ShapeError, "vmap: mapped axes have different sizes (", *size,
                  " and ", n, " for argument ", i, ")");
      size = n;
    }
    SPIRE_CHECK(size.has_value(), ValueError, "vmap: no argument is mapped (every in_axes entry is None)");
    batching::Level level(*size);
    Tensors logical(args.size());
    for (size_t i = 0; i < args.size(); ++i)
      logical[i] = axes[i] ? batching::wrap(moveaxis(args[i], *axes[i], 0), level.get()) : args[i];
    Tensors outs = f(logical);
    SPIRE_CHECK(out_axes.empty() || out_axes.size() == outs.size(), ValueError, "vmap: out_axes has ",
                out_axes.size(), " entries for ", outs.size(), " outputs");
    Tensors result;
    for (size_t k = 0; k < outs.size(); ++k) {
      Tensor p = batching::unwrap(outs[k], level.get());
      int64_t to = out_axes.empty() ? 0 : normalize_axis(out_axes[k], p.dim(), "vmap");
      result.push_back(moveaxis(p, 0, to));
    }
    return result;
  };
}

}  // namespace spire
