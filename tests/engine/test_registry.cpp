// The one test body every op goes through. For each op in the registry and each of its sample
// calls, in float64: the reverse rule against central finite differences, the second derivative
// (reverse over reverse) against finite differences of the reverse rule, and the forward rule
// against the reverse rule (<jvp(v), w> == <v, vjp(w)>). Then the Taylor rule to order 4 against
// repeated forward mode, reverse mode through order-2 jets against finite differences, and the
// batching rule against running the op once per batch entry. An op without samples fails.
// SPIRE_OPS=exp,add restricts the walk to some ops.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/forward.h"
#include "engine/autodiff/functional.h"
#include "engine/autodiff/mode.h"
#include "engine/autodiff/taylor.h"
#include "engine/autodiff/vmap.h"
#include "engine/core/op.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

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

// What the registry tests covered, printed once as one line when the test program ends.
struct Summary {
  int ops = -1, samples = 0, nondiff = 0;
  int taylor_ops = -1, taylor_samples = 0;
  int jet_reverse_ops = -1;
  int batch_ops = -1, batch_samples = 0;
  std::vector<std::string> loop_ops;
};
Summary& summary() {
  static Summary s;
  return s;
}

class SummaryPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    const Summary& s = summary();
    if (s.ops < 0 && s.taylor_ops < 0 && s.batch_ops < 0 && s.jet_reverse_ops < 0) return;
    std::string line = "registry test:";
    if (s.ops >= 0)
      line += " " + std::to_string(s.ops) + " ops, " + std::to_string(s.samples) + " sample calls (" +
              std::to_string(s.nondiff) + " non-differentiable) checked to second order;";
    if (s.taylor_ops >= 0)
      line += " Taylor to order 4 for " + std::to_string(s.taylor_ops) + " ops (" +
              std::to_string(s.taylor_samples) + " samples);";
    if (s.jet_reverse_ops >= 0)
      line += " reverse through jets for " + std::to_string(s.jet_reverse_ops) + " ops;";
    if (s.batch_ops >= 0) {
      line += " batching rules for " + std::to_string(s.batch_ops) + " ops (" +
              std::to_string(s.batch_samples) + " samples), " + std::to_string(s.loop_ops.size()) +
              " use the loop";
      if (!s.loop_ops.empty()) {
        line += ":";
        for (auto& n : s.loop_ops) line += " " + n;
      }
    }
    std::printf("%s\n", line.c_str());
  }
};
[[maybe_unused]] ::testing::Environment* const summary_printer =
    ::testing::AddGlobalTestEnvironment(new SummaryPrinter);

DType inexact64(const Tensor& t) { return is_complex(t.dtype()) ? DType::Complex128 : DType::Float64; }

// max |a - b| and max |b| over all elements (0 for empty tensors); a and b must have one shape.
std::pair<double, double> deviation(const Tensor& a, const Tensor& b) {
  NoGradGuard ng;
  if (b.numel() == 0) return {0.0, 0.0};
  DType t = is_complex(a.dtype()) || is_complex(b.dtype()) ? DType::Complex128 : DType::Float64;
  Tensor a64 = cast(a, t), b64 = cast(b, t);
  return {amax(abs(sub(a64, b64))).item<double>(), amax(abs(b64)).item<double>()};
}

// Derivatives 0..k of every output of g (a function of one float64 scalar t) at t, by nesting forward
// mode k times; returned order-major: [g(t) outputs..., g'(t) outputs..., ..., g^(k)(t) outputs...].
Tensors derivatives(const Function& g, const Tensor& t, int k) {
  if (k == 0) return g({t});
  Function inner = [g, k](const Tensors& ts) { return derivatives(g, ts[0], k - 1); };
  auto [values, tangents] = jvp(inner, {t}, {ones_like(t)});
  size_t m = values.size() / size_t(k);
  Tensors out = values;
  out.insert(out.end(), tangents.end() - ptrdiff_t(m), tangents.end());
  return out;
}

// The sample's differentiable inputs with deterministic random series coefficients 1..order.
std::vector<Series> random_series(const Tensors& x0, int order, uint64_t seed) {
  std::vector<Series> series;
  for (auto& x : x0) {
    Series s;
    for (int k = 0; k < order; ++k) s.push_back(rules::sample(x.shape(), -0.5, 0.5, seed++, inexact64(x)));
    series.push_back(s);
  }
  return series;
}

uint64_t seed_of(const std::string& name, size_t sample) {
  uint64_t h = 1469598103934665603ULL;
  for (char ch : name) h = (h ^ uint64_t(uint8_t(ch))) * 1099511628211ULL;
  return (h ^ (sample * 0x9E3779B97F4A7C15ULL)) % 1000003;
}

bool has_diff_inputs(const OpDef& op, const OpSample& s, Case& c) {
  for (size_t i = 0; i < s.inputs.size(); ++i)
    if (is_diff_input(op, s, i)) c.diff.push_back(i);
  return op.differentiable && !c.diff.empty();
}

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
  summary().ops = ops;
  summary().samples = samples;
  summary().nondiff = nondiff;
}

// Taylor rules against repeated forward mode: along x(t) = x0 + x1 t + ... + x4 t^4 the normalised
// coefficient z_k of every output must be (1/k!) d^k/dt^k f(x(t)) at t = 0, the derivative taken by
// nesting jvp k times on a function of the scalar t.
TEST(Registry, TaylorRulesToOrderFour) {
  constexpr int K = 4;
  int ops = 0, samples = 0;
  std::vector<std::string> missing;
  for (const OpDef* d : ops_under_test()) {
    if (!d->samples || !d->differentiable) continue;
    std::vector<OpSample> all = d->samples();
    bool counted = false;
    for (size_t si = 0; si < all.size(); ++si) {
      const OpSample& s = all[si];
      SCOPED_TRACE(d->name + " [" + s.label + "]");
      Case c{*d, s, {}};
      if (!has_diff_inputs(*d, s, c)) continue;
      if (!counted) {
        counted = true;
        ++ops;
        if (!d->taylor) missing.push_back(d->name);
      }
      if (!d->taylor) break;
      ++samples;
      try {
        Tensors x0 = c.primals();
        std::vector<Series> series = random_series(x0, K, seed_of(d->name, si));
        std::vector<Series> z;
        {
          taylor::Level level({.order = K});
          Tensors xs;
          for (size_t i = 0; i < x0.size(); ++i) xs.push_back(taylor::make_jet(x0[i], series[i], level.get()));
          for (auto& y : c.run(xs)) z.push_back(taylor::coefficients(y, level.get()));
        }
        Function path = [&](const Tensors& ts) {
          const Tensor& t = ts[0];
          Tensors xs;
          for (size_t i = 0; i < x0.size(); ++i) {
            Tensor x = series[i][K - 1];
            for (int k = K - 2; k >= 0; --k) x = add(series[i][k], mul(x, t));  // Horner
            xs.push_back(add(x0[i], mul(x, t)));
          }
          return c.run(xs);
        };
        Tensors ref = derivatives(path, scalar_tensor(0.0, DType::Float64), K);
        size_t m = z.size();
        ASSERT_EQ(ref.size(), m * (K + 1));
        double factorial = 1;
        for (int k = 1; k <= K; ++k) {
          factorial *= k;
          for (size_t o = 0; o < m; ++o) {
            Tensor want = div(ref[size_t(k) * m + o], factorial);
            Tensor got = z[o][k - 1].defined() ? z[o][k - 1] : zeros_like(want);
            ASSERT_EQ(got.shape(), want.shape()) << "coefficient " << k << " of output " << o;
            auto [err, scale] = deviation(got, want);
            EXPECT_LE(err, 1e-8 * scale + 1e-10)
                << "Taylor rule of '" << d->name << "': coefficient " << k << " of output " << o
                << " is off by " << err << " (largest entry " << scale << ") against " << k
                << " nested forward passes";
          }
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "Taylor rule of '" << d->name << "' raised: " << e.what();
      }
    }
  }
  std::string list;
  for (auto& n : missing) list += " " + n;
  EXPECT_TRUE(missing.empty()) << missing.size() << " differentiable ops have no Taylor rule:" << list;
  summary().taylor_ops = ops - int(missing.size());
  summary().taylor_samples = samples;
}

// Rules are written with engine ops so that reverse mode sees through them: the gradient of
// L(x0, x1) = sum_k Re<w_k, z2_k> (z2: the second coefficient of output k along x0 + x1 t + x2 t^2)
// with respect to the primals and the first coefficients, against central differences.
TEST(Registry, ReverseModeThroughJets) {
  int ops = 0;
  for (const OpDef* d : ops_under_test()) {
    if (!d->samples || !d->differentiable || !d->taylor) continue;
    std::vector<OpSample> all = d->samples();
    bool counted = false;
    for (size_t si = 0; si < all.size(); ++si) {
      const OpSample& s = all[si];
      SCOPED_TRACE(d->name + " [" + s.label + "]");
      Case c{*d, s, {}};
      if (!has_diff_inputs(*d, s, c)) continue;
      if (!counted) {
        counted = true;
        ++ops;
      }
      try {
        uint64_t seed = seed_of(d->name, si) + 7919;
        Tensors x0 = c.primals();
        std::vector<Series> series = random_series(x0, 2, seed);
        seed += 2 * x0.size();
        Tensors x1, x2, dx0, dx1, ws;
        for (size_t i = 0; i < x0.size(); ++i) {
          x1.push_back(series[i][0]);
          x2.push_back(series[i][1]);
          dx0.push_back(rules::sample(x0[i].shape(), -1, 1, seed++, inexact64(x0[i])));
          dx1.push_back(rules::sample(x0[i].shape(), -1, 1, seed++, inexact64(x0[i])));
        }
        {
          NoGradGuard ng;
          for (auto& y : c.run(x0)) ws.push_back(rules::sample(y.shape(), -1, 1, seed++, inexact64(y)));
        }
        auto loss = [&](const Tensors& p, const Tensors& v) {
          taylor::Level level({.order = 2});
          Tensors xs;
          for (size_t i = 0; i < p.size(); ++i) xs.push_back(taylor::make_jet(p[i], {v[i], x2[i]}, level.get()));
          Tensors ys = c.run(xs);
          Tensor l = scalar_tensor(0.0, DType::Float64);
          for (size_t o = 0; o < ys.size(); ++o) {
            Tensor z2 = taylor::coefficients(ys[o], level.get())[1];
            if (z2.defined()) l = add(l, inner_t(ws[o], z2));
          }
          return l;
        };
        Tensors p = leaves(x0), v = leaves(x1);
        Tensor l = loss(p, v);
        double analytic = 0;
        if (l.requires_grad()) {
          Tensors targets = p;
          targets.insert(targets.end(), v.begin(), v.end());
          Tensors g = autodiff::grad({l}, targets, {}, false, false, true);
          for (size_t i = 0; i < x0.size(); ++i) {
            if (g[i].defined()) analytic += inner(g[i], dx0[i]);
            if (g[x0.size() + i].defined()) analytic += inner(g[x0.size() + i], dx1[i]);
          }
        }
        double fd;
        {
          NoGradGuard ng;
          fd = (loss(shifted(x0, dx0, kStep), shifted(x1, dx1, kStep)).item<double>() -
                loss(shifted(x0, dx0, -kStep), shifted(x1, dx1, -kStep)).item<double>()) / (2 * kStep);
        }
        EXPECT_TRUE(close(analytic, fd, 1e-5, 1e-6))
            << "reverse mode through the Taylor rule of '" << d->name << "': <grad L, (dx0, dx1)> = "
            << analytic << " but finite differences give " << fd;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "reverse mode through the Taylor rule of '" << d->name << "' raised: " << e.what();
      }
    }
  }
  summary().jet_reverse_ops = ops;
}

// Batching rules against the loop: vmap of the op over 3 entries (inexact inputs perturbed per
// entry, others repeated) must equal the op run on each entry with the results stacked, with every
// input mapped and with each input mapped alone.
TEST(Registry, BatchingRules) {
  constexpr int64_t B = 3;
  int ops = 0, samples = 0;
  std::vector<std::string> loop;
  for (const OpDef* d : ops_under_test()) {
    if (!d->samples) continue;
    if (!d->batch) {
      loop.push_back(d->name);
      continue;
    }
    ++ops;
    std::vector<OpSample> all = d->samples();
    for (size_t si = 0; si < all.size(); ++si) {
      const OpSample& s = all[si];
      if (s.inputs.empty()) continue;
      SCOPED_TRACE(d->name + " [" + s.label + "]");
      ++samples;
      try {
        size_t n = s.inputs.size();
        uint64_t seed = seed_of(d->name, si) + 104729;
        std::vector<Tensors> entries(B, s.inputs);
        Tensors stacked(n);
        {
          NoGradGuard ng;
          for (size_t i = 0; i < n; ++i) {
            const Tensor& x = s.inputs[i];
            std::vector<Tensor> column;
            for (int64_t b = 0; b < B; ++b) {
              // A relative perturbation keeps signs, zeros and structure (triangles, masks) intact.
              if (b > 0 && is_inexact(x.dtype())) {
                Tensor u = rules::sample(x.shape(), -1, 1, seed++, DType::Float64);
                entries[b][i] = cast(mul(x, add(mul(u, 0.01 * double(b)), 1.0)), x.dtype());
              }
              column.push_back(entries[b][i]);
            }
            stacked[i] = stack(column, 0);
          }
        }
        Function f = [&](const Tensors& in) { return call(*d, in, s.attrs); };
        auto check = [&](const std::vector<std::optional<int64_t>>& in_axes, const Tensors& args,
                         const std::function<Tensors(int64_t)>& entry, const std::string& what) {
          std::vector<Tensors> per_entry;
          for (int64_t b = 0; b < B; ++b) per_entry.push_back(f(entry(b)));
          Tensors got = vmap(f, in_axes)(args);
          ASSERT_EQ(got.size(), per_entry[0].size()) << what;
          for (size_t k = 0; k < got.size(); ++k) {
            Tensors column;
            for (auto& e : per_entry) column.push_back(e[k]);
            Tensor want = stack(column, 0);
            ASSERT_EQ(got[k].shape(), want.shape()) << "batching rule of '" << d->name << "', " << what
                                                    << ": output " << k;
            ASSERT_EQ(got[k].dtype(), want.dtype()) << "batching rule of '" << d->name << "', " << what
                                                    << ": output " << k;
            auto [err, scale] = deviation(got[k], want);
            EXPECT_LE(err, 1e-12 * (1 + scale)) << "batching rule of '" << d->name << "', " << what
                                                << ": output " << k << " is off by " << err
                                                << " against the loop over batch entries";
          }
        };
        check({}, stacked, [&](int64_t b) { return entries[b]; }, "every input mapped");
        for (size_t i = 0; i < n; ++i) {
          std::vector<std::optional<int64_t>> in_axes(n, std::nullopt);
          in_axes[i] = 0;
          Tensors args = s.inputs;
          args[i] = stacked[i];
          check(in_axes, args,
                [&](int64_t b) {
                  Tensors e = s.inputs;
                  e[i] = entries[b][i];
                  return e;
                },
                "input " + std::to_string(i) + " mapped alone");
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "batching rule of '" << d->name << "' raised: " << e.what();
      }
    }
  }
  summary().batch_ops = ops;
  summary().batch_samples = samples;
  summary().loop_ops = loop;
}
