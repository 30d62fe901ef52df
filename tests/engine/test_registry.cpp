// The one test body every op goes through. For each op in the registry and each of its sample
// calls, in float64: the reverse rule against central finite differences, the second derivative
// (reverse over reverse) against finite differences of the reverse rule, and the forward rule
// against the reverse rule (<jvp(v), w> == <v, vjp(w)>). An op without samples fails.
// SPIRE_OPS=exp,add restricts the walk to some ops.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/forward.h"
#include "engine/autodiff/mode.h"
#include "engine/core/op.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"

using namespace spire;

namespace {

std::set<std::string> selected_ops() {
  std::set<std::string> s;
  if (const char* env = std::getenv("SPIRE_OPS")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ',')) s.insert(item);
  }
  return s;
}

std::vector<const OpDef*> ops_under_test() {
  auto pick = selected_ops();
  std::vector<const OpDef*> out;
  for (const OpDef* d : OpRegistry::get().all())
    if (pick.empty() || pick.count(d->name)) out.push_back(d);
  return out;
}

bool is_diff_input(const OpDef& op, const OpSample& s, size_t i) {
  for (int k : op.nondiff_inputs)
    if (size_t(k) == i) return false;
  return is_inexact(s.inputs[i].dtype());
}

// Re <a, b> = sum Re(conj(a) b): the real inner product the conjugate gradient convention uses.
double inner(const Tensor& a, const Tensor& b) {
  return sum(real(mul(conj(a), b))).item<double>();
}
Tensor inner_t(const Tensor& a, const Tensor& b) { return sum(real(mul(conj(a), b))); }

struct Case {
  const OpDef& op;
  const OpSample& s;
  std::vector<size_t> diff;  // indices of differentiable inputs

  Tensors run(const Tensors& xs) const {
    Tensors in = s.inputs;
    for (size_t j = 0; j < diff.size(); ++j) in[diff[j]] = xs[j];
    Tensors outs = call(op, in, s.attrs);
    Tensors keep;
    for (auto& o : outs)
      if (is_inexact(o.dtype())) keep.push_back(o);
    return keep;
  }
  // L(x) = sum_k Re <w_k, f_k(x)>
  Tensor loss(const Tensors& xs, const Tensors& ws) const {
    Tensors ys = run(xs);
    Tensor l = inner_t(ws[0], ys[0]);
    for (size_t k = 1; k < ys.size(); ++k) l = add(l, inner_t(ws[k], ys[k]));
    return l;
  }
  Tensors primals() const {
    Tensors xs;
    for (size_t i : diff) xs.push_back(s.inputs[i]);
    return xs;
  }
};

Tensors leaves(const Tensors& xs) {
  Tensors out;
  for (auto& x : xs) out.push_back(x.detach().set_requires_grad(true));
  return out;
}

Tensors shifted(const Tensors& xs, const Tensors& dirs, double h) {
  Tensors out;
  NoGradGuard ng;
  for (size_t i = 0; i < xs.size(); ++i) out.push_back(add(xs[i], mul(dirs[i], Scalar(h))));
  return out;
}

// Gradient of L at xs (optionally differentiable).
Tensors gradient(const Case& c, const Tensors& xs, const Tensors& ws, bool create_graph) {
  Tensor l = c.loss(xs, ws);
  Tensors g = autodiff::grad({l}, xs, {}, false, create_graph, true);
  for (size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = zeros_like(xs[i]);
  return g;
}

bool close(double a, double b, double rtol, double atol) { return std::abs(a - b) <= atol + rtol * std::abs(b); }

constexpr double kStep = 1e-6;

}  // namespace

TEST(Registry, EveryOpHasSamples) {
  std::vector<std::string> missing;
  for (const OpDef* d : ops_under_test())
    if (!d->samples || d->samples().empty()) missing.push_back(d->name);
  std::string list;
  for (auto& m : missing) list += m + " ";
  EXPECT_TRUE(missing.empty()) << "ops without sample inputs (the registry test cannot check them): " << list;
}

TEST(Registry, EveryOpHasAKernelOrView) {
  for (const OpDef* d : ops_under_test())
    EXPECT_TRUE(d->has_kernel(DeviceKind::CPU)) << "op '" << d->name << "' has no CPU kernel";
}

TEST(Registry, ReverseForwardAndSecondOrderRules) {
  int ops = 0, samples = 0, nondiff = 0;
  for (const OpDef* d : ops_under_test()) {
    if (!d->samples) continue;
    ++ops;
    int k = 0;
    for (const OpSample& s : d->samples()) {
      SCOPED_TRACE(d->name + " [" + s.label + "]");
      ++samples;
      Case c{*d, s, {}};
      for (size_t i = 0; i < s.inputs.size(); ++i)
        if (is_diff_input(*d, s, i)) c.diff.push_back(i);
      if (!d->differentiable || c.diff.empty()) {
        ++nondiff;
        // Outputs of a non-differentiable op carry no gradient, and asking for one says which op.
        if (c.diff.empty()) {
          EXPECT_NO_THROW(call(*d, s.inputs, s.attrs));
          continue;
        }
        Tensors xs = leaves(c.primals());
        Tensors in = s.inputs;
        for (size_t j = 0; j < c.diff.size(); ++j) in[c.diff[j]] = xs[j];
        Tensors outs = call(*d, in, s.attrs);
        for (auto& o : outs) {
          EXPECT_FALSE(o.requires_grad());
          try {
            autodiff::grad({sum(cast(o, DType::Float64))}, xs);
            ADD_FAILURE() << "differentiating through '" << d->name << "' did not raise";
          } catch (const AutodiffError& e) {
            EXPECT_NE(std::string(e.what()).find(d->name), std::string::npos) << e.what();
          }
        }
        continue;
      }
      uint64_t seed = 1000 + 17 * uint64_t(++k);
      Tensors x0 = c.primals();
      Tensors ys = c.run(x0);
      ASSERT_FALSE(ys.empty()) << "op has no floating-point output";
      Tensors ws, dirs, us;
      for (auto& y : ys) ws.push_back(rules::sample(y.shape(), -1, 1, seed++, is_complex(y.dtype()) ? DType::Complex128 : DType::Float64));
      for (auto& x : x0) {
        DType t = is_complex(x.dtype()) ? DType::Complex128 : DType::Float64;
        dirs.push_back(rules::sample(x.shape(), -1, 1, seed++, t));
        us.push_back(rules::sample(x.shape(), -1, 1, seed++, t));
      }

      // 1. Reverse rule against central differences: Re<grad L, e> ~ (L(x+he) - L(x-he)) / 2h.
      Tensors xs = leaves(x0);
      Tensors g = gradient(c, xs, ws, /*create_graph=*/true);
      double analytic = 0;
      for (size_t i = 0; i < g.size(); ++i) analytic += inner(g[i], dirs[i]);
      double fd;
      {
        NoGradGuard ng;
        fd = (c.loss(shifted(x0, dirs, kStep), ws).item<double>() -
              c.loss(shifted(x0, dirs, -kStep), ws).item<double>()) / (2 * kStep);
      }
      EXPECT_TRUE(close(analytic, fd, 1e-5, 1e-6)) << "reverse rule: <vjp(w), e> = " << analytic
                                                   << " but finite differences give " << fd;

      // 2. Second order: M(x) = sum_i Re<grad_i L(x), u_i>; grad M against differences of M.
      Tensor m = inner_t(g[0], us[0]);
      for (size_t i = 1; i < g.size(); ++i) m = add(m, inner_t(g[i], us[i]));
      if (m.requires_grad()) {
        Tensors h = autodiff::grad({m}, xs, {}, false, false, true);
        double an2 = 0;
        for (size_t i = 0; i < h.size(); ++i)
          if (h[i].defined()) an2 += inner(h[i], dirs[i]);
        auto m_at = [&](double step) {
          Tensors xp = leaves(shifted(x0, dirs, step));
          Tensors gp = gradient(c, xp, ws, false);
          double v = 0;
          for (size_t i = 0; i < gp.size(); ++i) v += inner(gp[i], us[i]);
          return v;
        };
        double fd2 = (m_at(kStep) - m_at(-kStep)) / (2 * kStep);
        EXPECT_TRUE(close(an2, fd2, 1e-4, 1e-5)) << "second order: " << an2 << " but finite differences of "
                                                 << "the reverse rule give " << fd2;
      } else {
        // The gradient does not depend on x (a linear op): its differences must vanish.
        Tensors gp = gradient(c, leaves(shifted(x0, dirs, 1e-3)), ws, false);
        for (size_t i = 0; i < gp.size(); ++i)
          EXPECT_NEAR(inner(sub(gp[i], g[i]), us[i]), 0.0, 1e-8) << "gradient is recorded as constant but varies";
      }

      // 3. Forward rule against the reverse rule: sum_k Re<w_k, jvp_k(e)> == sum_i Re<vjp_i(w), e_i>.
      {
        forward_ad::Level level;
        Tensors duals;
        for (size_t i = 0; i < x0.size(); ++i) duals.push_back(forward_ad::make_dual(x0[i], dirs[i], level.get()));
        Tensors yd = c.run(duals);
        double fwd = 0;
        for (size_t k2 = 0; k2 < yd.size(); ++k2) {
          Tensor t = forward_ad::tangent(yd[k2], level.get());
          if (t.defined()) fwd += inner(ws[k2], t);
        }
        EXPECT_TRUE(close(fwd, analytic, 1e-9, 1e-10)) << "forward rule: <w, jvp(e)> = " << fwd
                                                       << " but <vjp(w), e> = " << analytic;
      }
    }
  }
  std::printf("registry test: %d ops, %d sample calls (%d non-differentiable) checked to second order\n",
              ops, samples, nondiff);
}
