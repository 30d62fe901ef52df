// An op is defined once: name, shape and dtype inference, reverse rule, forward rule, sample inputs
// for the registry test. Backends attach kernels to it by name. Rules are written with engine ops,
// never raw buffers, so the derivative of a rule is itself just more ops: any order works.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "engine/core/attrs.h"
#include "engine/core/device.h"
#include "engine/core/tensor.h"

namespace spire {

struct TensorMeta {
  Shape shape;
  DType dtype;
  Device device = kCPU;  // filled in where it matters (autodiff records); infer leaves it
};

struct OpDef;

// Reverse rule input. `grads` has one entry per output, never undefined (zeros are filled in).
// Gradients follow the conjugate (PyTorch) convention for complex numbers: for L real,
// grad = dL/dRe + i dL/dIm, so a rule for a holomorphic f returns g * conj(f'(z)).
struct VjpContext {
  const OpDef& op;
  const Attrs& attrs;
  const std::vector<Tensor>& inputs;
  const std::vector<Tensor>& outputs;
  const std::vector<Tensor>& grads;
  const std::vector<bool>& needs_grad;  // per input; a rule may skip work where false
};
// Returns one gradient per input, shaped like it; undefined means zero (or not differentiable).
using VjpRule = std::function<std::vector<Tensor>(const VjpContext&)>;

// Forward rule input. `tangents` has one entry per input; undefined means zero.
struct JvpContext {
  const OpDef& op;
  const Attrs& attrs;
  const std::vector<Tensor>& inputs;
  const std::vector<Tensor>& outputs;
  const std::vector<Tensor>& tangents;
};
// Returns one tangent per output; undefined means zero.
using JvpRule = std::function<std::vector<Tensor>(const JvpContext&)>;

// Taylor rule input. A jet of order K is a truncated Taylor series x(t) = x0 + x1 t + ... + xK t^K
// in normalised coefficients (x_k = k-th derivative / k!), so products of jets are Cauchy products.
// `series[i]` holds x1..xK of input i (index k-1 for x_k); undefined entries mean zero, and an input
// with no series at all has K undefined entries. Rules are written with engine ops, so they can
// run batched (vmap) and be differentiated in reverse.
using Series = std::vector<Tensor>;
struct TaylorContext {
  const OpDef& op;
  const Attrs& attrs;
  const std::vector<Tensor>& inputs;   // x0 of each input
  const std::vector<Tensor>& outputs;  // z0 of each output
  const std::vector<Series>& series;   // per input, K entries
  int order;                           // K
};
// Returns, per output, its K coefficients z1..zK (undefined means zero).
using TaylorRule = std::function<std::vector<Series>(const TaylorContext&)>;

// Batching rule (vmap) input: the physical inputs, some carrying the mapped axis first, of size `size`.
struct BatchContext {
  const OpDef& op;
  const Attrs& attrs;
  const std::vector<Tensor>& inputs;
  const std::vector<bool>& batched;  // per input: dim 0 is the mapped axis
  int64_t size;
};
// Returns every output with the mapped axis first. Ops without one run once per batch entry.
using BatchRule = std::function<std::vector<Tensor>(const BatchContext&)>;

using InferFn = std::function<std::vector<TensorMeta>(const std::vector<Tensor>&, const Attrs&)>;
// View ops produce an alias of input 0 instead of running a kernel.
using ViewFn = std::function<Tensor(const std::vector<Tensor>&, const Attrs&)>;
// Kernels get inputs already validated (same device, dtypes settled by the public function) and
// outputs allocated contiguous from `infer`.
using KernelFn = std::function<void(const std::vector<Tensor>&, std::vector<Tensor>&, const Attrs&)>;
// Floating-point operations of one call, from its inputs' and outputs' shapes (engine/core/observer.h
// counts them). Only the contractions that dominate a model's cost have one (matmul, convolutions),
// the convention of PyTorch's and JAX's FLOP counters: a real multiply-add is 2, a complex one 8.
using FlopsFn = std::function<double(const std::vector<Tensor>&, const std::vector<Tensor>&, const Attrs&)>;

// A sample call for the registry test, in float64 (or complex128).
struct OpSample {
  std::vector<Tensor> inputs;
  Attrs attrs;
  std::string label;
};

struct OpDef {
  std::string name;
  int num_inputs = 1;  // -1: any number (concat, stack, einsum)
  InferFn infer;
  ViewFn view;
  VjpRule vjp;
  JvpRule jvp;
  // Taylor-mode rule; every differentiable op has one (the registry test checks it to order 4).
  TaylorRule taylor;
  // vmap rule; when empty, vmap runs the op once per batch entry and stacks the results.
  BatchRule batch;
  // Each output element depends only on the input elements at its (broadcast) position. The
  // forward Laplacian uses it: such an op's second-order term is a per-element quadratic form in
  // the first-order terms, so summing it over directions needs no batched rule (autodiff/taylor.cpp).
  bool pointwise = false;
  // Ops whose outputs carry no derivative (argmax, comparisons, floor, random draws).
  bool differentiable = true;
  // Inputs that never receive a gradient (indices, masks, conditions).
  std::vector<int> nondiff_inputs;
  std::function<std::vector<OpSample>()> samples;
  FlopsFn flops;
  // Inputs for which finite differences are not meaningful (e.g. kinks are avoided by samples
  // instead; this is for integer inputs) are listed in nondiff_inputs.
  std::array<KernelFn, kNumDeviceKinds> kernels{};

  bool has_kernel(DeviceKind k) const { return bool(kernels[int(k)]) || bool(view); }
};

// The registry. Registration happens during static initialisation of libspire_engine.
class OpRegistry {
 public:
  static OpRegistry& get();
  OpDef& define(OpDef def);
  void add_kernel(const std::string& op, DeviceKind kind, KernelFn fn);
  const OpDef& at(const std::string& name) const;  // throws ValueError naming the known ops
  const OpDef* find(const std::string& name) const;
  std::vector<const OpDef*> all() const;

  // Loading a plugin (engine/custom/library.cpp): its ops register from static initialisers that
  // run inside dlopen, where an exception must not unwind through the dynamic loader. Between
  // begin_load() and end_load() a refused definition (a name already taken, a kernel replacing
  // one) is recorded instead of thrown. end_load() adds a kernel left without its op to the errors,
  // keeps what the library registered when there are none and `keep` holds, removes all of it
  // otherwise (so the library can be closed), and returns the errors and the ops it defined.
  void begin_load();
  std::pair<std::vector<std::string>, std::vector<std::string>> end_load(bool keep = true);

 private:
  struct Load {
    size_t first_op = 0, first_pending = 0;
    std::vector<std::string> errors;
    std::vector<std::pair<OpDef*, DeviceKind>> added_kernels;  // kernels added to existing ops
    std::vector<std::unique_ptr<OpDef>> refused;               // kept alive until end_load
  };
  std::vector<std::unique_ptr<OpDef>> ops_;
  std::vector<std::tuple<std::string, DeviceKind, KernelFn>> pending_;
  std::unique_ptr<Load> load_;
};

inline const OpDef& op_def(const std::string& name) { return OpRegistry::get().at(name); }

// Runs an op: infers, allocates, calls the kernel (or makes the view), then records the reverse
// node and propagates forward-mode tangents. Public op functions are thin wrappers around this.
std::vector<Tensor> call(const OpDef& op, std::vector<Tensor> inputs, const Attrs& attrs = {});
Tensor call1(const OpDef& op, std::vector<Tensor> inputs, const Attrs& attrs = {});

namespace detail {
struct OpRegistrar {
  explicit OpRegistrar(OpDef def) { OpRegistry::get().define(std::move(def)); }
};
struct KernelRegistrar {
  KernelRegistrar(const char* op, DeviceKind kind, KernelFn fn) {
    OpRegistry::get().add_kernel(op, kind, std::move(fn));
  }
};
}  // namespace detail

#define SPIRE_CAT_(a, b) a##b
#define SPIRE_CAT(a, b) SPIRE_CAT_(a, b)
// SPIRE_DEFINE_OP({ .name = "exp", ... });
#define SPIRE_DEFINE_OP(...) \
  static ::spire::detail::OpRegistrar SPIRE_CAT(spire_op_, __COUNTER__)(::spire::OpDef __VA_ARGS__)
#define SPIRE_REGISTER_KERNEL(op, kind, fn) \
  static ::spire::detail::KernelRegistrar SPIRE_CAT(spire_kernel_, __COUNTER__)(op, kind, fn)

}  // namespace spire
