#include "engine/autodiff/series.h"

#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"

namespace spire::jets {

Jet input(const TaylorContext& c, size_t i) {
  Jet x{c.inputs[i]};
  x.insert(x.end(), c.series[i].begin(), c.series[i].end());
  x.resize(c.order + 1);
  return x;
}

Series tail(const Jet& z) { return Series(z.begin() + 1, z.end()); }

bool constant(const Jet& x) {
  for (size_t k = 1; k < x.size(); ++k)
    if (x[k].defined()) return false;
  return true;
}

int order(const Jet& x) { return int(x.size()) - 1; }

Tensor add(const Tensor& a, const Tensor& b) { return rules::plus(a, b); }
Tensor sub(const Tensor& a, const Tensor& b) {
  if (!b.defined()) return a;
  return a.defined() ? spire::sub(a, b) : neg(b);
}
Tensor mul(const Tensor& a, const Tensor& b) { return rules::times(a, b); }
Tensor scale(const Tensor& a, double s) {
  if (!a.defined() || s == 1.0) return a;
  return spire::mul(a, s);
}

Tensor cauchy(const Jet& a, const Jet& b, int k, int lo, int hi, const Bilinear& f) {
  if (&a == &b && !f && lo + hi == k) {
    // A square: a_j a_{k-j} appears twice for j != k-j, so form each product once.
    Tensor acc;
    for (int j = lo; 2 * j <= k; ++j) {
      if (j >= int(a.size()) || k - j >= int(a.size()) || !a[j].defined() || !a[k - j].defined()) continue;
      Tensor t = 2 * j == k ? spire::square(a[j]) : spire::mul(spire::mul(a[j], 2.0), a[k - j]);
      acc = acc.defined() ? spire::add(acc, t) : t;
    }
    return acc;
  }
  Tensor acc;
  for (int j = lo; j <= hi; ++j) {
    if (j >= int(a.size()) || k - j >= int(b.size()) || k - j < 0) continue;
    if (!a[j].defined() || !b[k - j].defined()) continue;
    Tensor t = f ? f(a[j], b[k - j]) : spire::mul(a[j], b[k - j]);
    acc = acc.defined() ? spire::add(acc, t) : t;
  }
  return acc;
}

Jet constant_jet(const Tensor& x0, int order) {
  Jet z(order + 1);
  z[0] = x0;
  return z;
}

Jet mul(const Jet& a, const Jet& b, const Tensor& z0) {
  Jet z = constant_jet(z0, order(a));
  for (int k = 1; k <= order(a); ++k) z[k] = cauchy(a, b, k, 0, k);
  return z;
}

Jet div(const Jet& a, const Jet& b, const Tensor& z0) {
  // b z = a:  z_k = (a_k - sum_{j>=1} b_j z_{k-j}) / b0
  Jet z = constant_jet(z0, order(a));
  for (int k = 1; k <= order(a); ++k) {
    Tensor num = jets::sub(a[k], cauchy(b, z, k, 1, k));
    z[k] = num.defined() ? spire::div(num, b[0]) : Tensor();
  }
  return z;
}

Jet reciprocal(const Jet& a, const Tensor& z0) {
  // a z = 1:  z_k = -z0 sum_{j>=1} a_j z_{k-j}
  Jet z = constant_jet(z0, order(a));
  for (int k = 1; k <= order(a); ++k) {
    Tensor s = cauchy(a, z, k, 1, k);
    z[k] = s.defined() ? neg(spire::mul(s, z0)) : Tensor();
  }
  return z;
}

Tensor weighted(const Jet& a, const Jet& b, int k) {
  Tensor acc;
  for (int j = 1; j <= k; ++j) {
    if (!a[j].defined() || k - j >= int(b.size()) || !b[k - j].defined()) continue;
    Tensor t = spire::mul(a[j], b[k - j]);
    if (j != 1) t = spire::mul(t, double(j));
    acc = acc.defined() ? spire::add(acc, t) : t;
  }
  return acc;
}

Jet integrate(const Jet& a, const Tensor& z0, const std::function<Tensor(int m, const Jet& z)>& g) {
  int K = order(a);
  Jet z = constant_jet(z0, K);
  Jet gs(K + 1);
  gs[0] = g(0, z);
  for (int k = 1; k <= K; ++k) {
    z[k] = scale(weighted(a, gs, k), 1.0 / k);
    if (k < K) gs[k] = g(k, z);
  }
  return z;
}

Jet integrate(const Jet& a, const Tensor& z0, const Jet& g) {
  return integrate(a, z0, [&](int m, const Jet&) { return g[m]; });
}

Jet exp(const Jet& a, const Tensor& z0) {
  return integrate(a, z0, [](int m, const Jet& z) { return z[m]; });
}

Jet log(const Jet& a, const Tensor& z0) {
  // a z' = a':  k z_k a0 = k a_k - sum_{j=1}^{k-1} j z_j a_{k-j}
  Jet z = constant_jet(z0, order(a));
  for (int k = 1; k <= order(a); ++k) {
    Tensor num = jets::sub(a[k], scale(weighted(z, a, k), 1.0 / k));  // z_k itself is still undefined
    z[k] = num.defined() ? spire::div(num, a[0]) : Tensor();
  }
  return z;
}

Jet pow(const Jet& a, const Tensor& p, const Tensor& z0) {
  // a z' = p a' z:  k a0 z_k = p sum_{j=1}^k j a_j z_{k-j} - sum_{j=1}^{k-1} j z_j a_{k-j}
  Jet z = constant_jet(z0, order(a));
  for (int k = 1; k <= order(a); ++k) {
    Tensor num = jets::sub(jets::mul(weighted(a, z, k), p), weighted(z, a, k));
    z[k] = num.defined() ? spire::div(num, spire::mul(a[0], double(k))) : Tensor();
  }
  return z;
}

Jet pow(const Jet& a, double p, const Tensor& z0) { return pow(a, scalar_tensor(p, a[0].dtype(), a[0].device()), z0); }

Jet sqrt(const Jet& a, const Tensor& z0) {
  // z^2 = a:  2 z0 z_k = a_k - sum_{j=1}^{k-1} z_j z_{k-j}
  Jet z = constant_jet(z0, order(a));
  for (int k = 1; k <= order(a); ++k) {
    Tensor num = jets::sub(a[k], cauchy(z, z, k, 1, k - 1));
    z[k] = num.defined() ? spire::div(num, spire::mul(z0, 2.0)) : Tensor();
  }
  return z;
}

Jet coupled(const Jet& a, const Tensor& u0, const Tensor& v0, double sign) {
  int K = order(a);
  Jet u = constant_jet(u0, K), v = constant_jet(v0, K);
  for (int k = 1; k <= K; ++k) {
    u[k] = scale(weighted(a, v, k), 1.0 / k);
    if (k < K) v[k] = scale(weighted(a, u, k), sign / k);
  }
  return u;
}

Jet integrate_over(const Jet& a, const Jet& h, const Tensor& z0) {
  // k h0 z_k = k a_k - sum_{j=1}^{k-1} j z_j h_{k-j}
  Jet z = constant_jet(z0, order(a));
  for (int k = 1; k <= order(a); ++k) {
    Tensor num = jets::sub(a[k], scale(weighted(z, h, k), 1.0 / k));  // z_k itself is still undefined
    z[k] = num.defined() ? spire::div(num, h[0]) : Tensor();
  }
  return z;
}

Jet derivative(const Jet& x) {
  Jet d(x.size() - 1);
  for (size_t i = 0; i < d.size(); ++i) d[i] = scale(x[i + 1], double(i + 1));
  return d;
}

Jet antiderivative(const Jet& w, const Tensor& z0) {
  Jet z = constant_jet(z0, int(w.size()));
  for (size_t k = 1; k <= w.size(); ++k) z[k] = scale(w[k - 1], 1.0 / double(k));
  return z;
}

std::vector<Series> linear(const TaylorContext& c) {
  std::vector<Series> out(c.outputs.size(), Series(c.order));
  for (int k = 0; k < c.order; ++k) {
    std::vector<Tensor> tangents(c.inputs.size());
    bool any = false;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      tangents[i] = c.series[i][k];
      any |= tangents[i].defined();
    }
    if (!any) continue;
    auto z = c.op.jvp(JvpContext{c.op, c.attrs, c.inputs, c.outputs, tangents});
    for (size_t o = 0; o < out.size() && o < z.size(); ++o) out[o][k] = z[o];
  }
  return out;
}

std::vector<Series> bilinear(const TaylorContext& c) {
  Jet a = input(c, 0), b = input(c, 1);
  Bilinear f = [&](const Tensor& x, const Tensor& y) { return call1(c.op, {x, y}, c.attrs); };
  Series z(c.order);
  for (int k = 1; k <= c.order; ++k) z[k - 1] = cauchy(a, b, k, 0, k, f);
  return {z};
}

TaylorRule unary(std::function<Jet(const Jet& x, const Tensor& z0)> f) {
  return [f](const TaylorContext& c) -> std::vector<Series> {
    return {tail(f(input(c, 0), c.outputs[0]))};
  };
}

}  // namespace spire::jets
