// The registry walk on CUDA: every op the engine defines has a CUDA kernel (any machine), and every
// op's sample calls give on the GPU what they give on the CPU (GPU only): the outputs in float64 and
// in float32, the reverse-mode gradient of L = sum Re<w, f(x)>, and the second derivative (the
// gradient of <grad L, u>), all in one body for every op. The CPU kernels are the oracle; they are
// themselves checked against finite differences by tests/engine/test_registry.cpp.
// SPIRE_OPS=exp,add restricts the walk to some ops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/mode.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {

using Tensors = std::vector<Tensor>;
const Device kGPU{DeviceKind::CUDA, 0};

std::vector<const OpDef*> ops_under_test() {
  std::set<std::string> pick;
  if (const char* env = std::getenv("SPIRE_OPS")) {
    std::stringstream ss(env);
    for (std::string item; std::getline(ss, item, ',');) pick.insert(item);
  }
  std::vector<const OpDef*> out;
  for (const OpDef* d : OpRegistry::get().all())
    if (pick.empty() || pick.count(d->name)) out.push_back(d);
  return out;
}

TEST(CudaBackend, EveryOpHasACudaKernel) {
  std::string missing;
  for (const OpDef* d : ops_under_test())
    if (!d->has_kernel(DeviceKind::CUDA)) missing += " " + d->name;
  EXPECT_TRUE(missing.empty()) << "ops without a CUDA kernel:" << missing;
}

// Draws from Philox: the CUDA kernels promise the CPU's bits, not merely close values.
bool draws_random_bits(const std::string& op) {
  static const std::set<std::string> random{"uniform", "normal", "bernoulli", "randint", "permutation"};
  return random.count(op) > 0;
}

// The sample's inputs in `t` (float64 samples to float32, complex128 to complex64), others unchanged.
Tensors in_precision(const Tensors& xs, DType real) {
  Tensors out;
  for (const Tensor& x : xs) {
    if (x.dtype() == DType::Float64 && real == DType::Float32) out.push_back(cast(x, DType::Float32));
    else if (x.dtype() == DType::Complex128 && real == DType::Float32) out.push_back(cast(x, DType::Complex64));
    else out.push_back(x);
  }
  return out;
}

Tensors on(const Tensors& xs, Device d) {
  Tensors out;
  for (const Tensor& x : xs) out.push_back(x.defined() ? to(x, d) : x);
  return out;
}

// Ops without inputs (constants, random draws) take their device from the attributes.
Attrs attrs_on(const OpSample& s, Device d) {
  Attrs a = s.attrs;
  if (s.inputs.empty()) a.set("device", d.str());
  return a;
}

// Failure message when b (GPU) differs from a (CPU) by more than rtol * max(1, max|a|); exact
// comparison for integer and bool results and for random draws. Empty when they agree.
std::string differs(const Tensor& cpu, const Tensor& gpu, double rtol, bool exact) {
  if (cpu.shape() != gpu.shape()) return "shape " + shape_str(gpu.shape()) + " vs " + shape_str(cpu.shape());
  if (cpu.dtype() != gpu.dtype()) return std::string("dtype ") + name(gpu.dtype()) + " vs " + name(cpu.dtype());
  if (gpu.device() != kGPU) return "result on " + gpu.device().str();
  Tensor g = to(gpu, kCPU);
  if (cpu.numel() == 0) return "";
  if (exact || !is_inexact(cpu.dtype())) {
    Tensor a = contiguous(cpu), b = contiguous(g);
    if (std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0) return "";
    return "values differ (exact comparison)";
  }
  Tensor a64 = cast(cpu, is_complex(cpu.dtype()) ? DType::Complex128 : DType::Float64);
  Tensor b64 = cast(g, a64.dtype());
  // NaNs and infinities must sit at the same places; compare the finite rest.
  Tensor fa = isfinite(a64), fb = isfinite(b64);
  if (sum(cast(ne(fa, fb), DType::Int64)).item<int64_t>() != 0) return "non-finite values at different places";
  Tensor zero = zeros_like(a64);
  Tensor da = where(fa, a64, zero), db = where(fb, b64, zero);
  double scale = std::max(1.0, amax(abs(da)).item<double>());
  double dev = amax(abs(sub(da, db))).item<double>();
  if (dev <= rtol * scale) return "";
  std::ostringstream os;
  os << "max |gpu - cpu| = " << dev << " > " << rtol << " * " << scale;
  return os.str();
}

class CudaRegistry : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cuda_available()) << "the CUDA registry test needs a GPU: " << unavailable_reason(DeviceKind::CUDA);
  }
};

// Outputs, CPU against GPU, in float64 and float32.
TEST_F(CudaRegistry, OutputsMatchTheCpu) {
  int calls = 0;
  for (const OpDef* d : ops_under_test()) {
    if (!d->samples) continue;
    for (const OpSample& s : d->samples()) {
      for (DType real : {DType::Float64, DType::Float32}) {
        SCOPED_TRACE(d->name + " [" + s.label + "] " + name(real));
        NoGradGuard no_grad;
        Tensors in = in_precision(s.inputs, real);
        Tensors cpu, gpu;
        try {
          cpu = call(*d, in, attrs_on(s, kCPU));
        } catch (const Error&) {
          continue;  // the op refuses this dtype on the CPU; the GPU may refuse it too
        }
        gpu = call(*d, on(in, kGPU), attrs_on(s, kGPU));
        ASSERT_EQ(cpu.size(), gpu.size());
        double rtol = real == DType::Float64 ? 1e-10 : 2e-4;
        for (size_t k = 0; k < cpu.size(); ++k) {
          // to_device's sample may move to the CPU: that output lives there on both paths.
          if (d->name == "to_device") {
            EXPECT_EQ(to(gpu[k], kCPU).to_vector(), cpu[k].to_vector());
            continue;
          }
          std::string why = differs(cpu[k], gpu[k], rtol, draws_random_bits(d->name));
          EXPECT_TRUE(why.empty()) << "output " << k << ": " << why;
        }
        ++calls;
      }
    }
  }
  std::printf("cuda registry test: %d sample calls compared with the CPU\n", calls);
}

// First and second derivatives, CPU against GPU, in float64.
TEST_F(CudaRegistry, DerivativesMatchTheCpu) {
  for (const OpDef* d : ops_under_test()) {
    if (!d->samples || !d->differentiable) continue;
    uint64_t seed = 4000;
    for (const OpSample& s : d->samples()) {
      SCOPED_TRACE(d->name + " [" + s.label + "]");
      std::vector<size_t> diff;
      for (size_t i = 0; i < s.inputs.size(); ++i) {
        bool nondiff = false;
        for (int k : d->nondiff_inputs) nondiff |= size_t(k) == i;
        if (!nondiff && is_inexact(s.inputs[i].dtype())) diff.push_back(i);
      }
      if (diff.empty()) continue;
      Tensors ws, us;
      {
        NoGradGuard ng;
        Tensors ys = call(*d, s.inputs, s.attrs);
        for (auto& y : ys)
          ws.push_back(is_inexact(y.dtype()) ? rules::sample(y.shape(), -1, 1, seed++, is_complex(y.dtype()) ? DType::Complex128 : DType::Float64) : Tensor());
        for (size_t i : diff)
          us.push_back(rules::sample(s.inputs[i].shape(), -1, 1, seed++, is_complex(s.inputs[i].dtype()) ? DType::Complex128 : DType::Float64));
      }
      // g = grad L, h = grad <g, u>, on one device.
      auto derivatives = [&](Device dev) {
        Tensors in = on(s.inputs, dev), xs;
        for (size_t i : diff) {
          in[i] = in[i].detach().set_requires_grad(true);
          xs.push_back(in[i]);
        }
        Tensors ys = call(*d, in, attrs_on(s, dev));
        Tensor loss;
        for (size_t k = 0; k < ys.size(); ++k) {
          if (!ws[k].defined()) continue;
          Tensor term = sum(real(mul(conj(to(ws[k], dev)), ys[k])));
          loss = loss.defined() ? add(loss, term) : term;
        }
        Tensors g = autodiff::grad({loss}, xs, {}, true, true, true);
        Tensor m;
        for (size_t j = 0; j < g.size(); ++j) {
          if (!g[j].defined()) continue;
          Tensor term = sum(real(mul(conj(g[j]), to(us[j], dev))));
          m = m.defined() ? add(m, term) : term;
        }
        Tensors h(xs.size());
        if (m.defined() && m.requires_grad()) h = autodiff::grad({m}, xs, {}, false, false, true);
        return std::make_pair(g, h);
      };
      auto [gc, hc] = derivatives(kCPU);
      auto [gg, hg] = derivatives(kGPU);
      for (size_t j = 0; j < diff.size(); ++j) {
        if (gc[j].defined() != gg[j].defined() || hc[j].defined() != hg[j].defined()) {
          ADD_FAILURE() << "input " << diff[j] << ": a derivative is defined on one device only";
          continue;
        }
        if (gc[j].defined()) EXPECT_EQ(differs(gc[j], gg[j], 1e-9, false), "") << "gradient of input " << diff[j];
        if (hc[j].defined()) EXPECT_EQ(differs(hc[j], hg[j], 1e-9, false), "") << "second derivative of input " << diff[j];
      }
    }
  }
}

}  // namespace
}  // namespace spire
