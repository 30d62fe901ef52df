#include "engine/autodiff/functional.h"

#include "engine/autodiff/backward.h"
#include "engine/autodiff/forward.h"
#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"
#include "engine/ops/device.h"

namespace spire {
namespace {

// Depth of reverse-mode transforms running on this thread. Inside another transform the
// gradient graph must be recorded (create_graph), because the outer transform differentiates it.
thread_local int reverse_depth = 0;
struct ReverseScope {
  ReverseScope() { ++reverse_depth; }
  ~ReverseScope() { --reverse_depth; }
};

// A fresh identity for x that reverse mode can target: an alias keeps x's history (so an outer
// transform still sees through it) and its forward-mode tangents (so jacfwd(grad(f)) works).
Tensor track(const Tensor& x) {
  if (!is_inexact(x.dtype())) return x;
  Tensor t = alias(x);
  if (!t.requires_grad()) t.set_requires_grad(true);
  return t;
}

std::vector<int> normalize_argnums(const std::vector<int>& argnums, size_t n, const char* what) {
  std::vector<int> out;
  for (int a : argnums.empty() ? std::vector<int>{0} : argnums) {
    int k = a < 0 ? a + int(n) : a;
    SPIRE_CHECK(k >= 0 && k < int(n), ValueError, what, ": argnums entry ", a, " is out of range for ",
                n, " arguments");
    out.push_back(k);
  }
  return out;
}

// f as a function of the arguments in argnums only, the others fixed.
Function restrict(const Function& f, const Tensors& all, const std::vector<int>& argnums) {
  return [f, all, argnums](const Tensors& chosen) {
    Tensors args = all;
    for (size_t i = 0; i < argnums.size(); ++i) args[argnums[i]] = chosen[i];
    return f(args);
  };
}

Tensors select(const Tensors& all, const std::vector<int>& argnums) {
  Tensors out;
  for (int a : argnums) out.push_back(all[a]);
  return out;
}

void require_scalar(const Tensors& outs, const char* what) {
  SPIRE_CHECK(!outs.empty(), ValueError, what, ": the function returned no outputs");
  const Tensor& y = outs[0];
  SPIRE_CHECK(y.numel() == 1 && !is_complex(y.dtype()) && is_inexact(y.dtype()), ValueError, what,
              ": the function must return a real floating-point scalar first, got ", name(y.dtype()),
              shape_str(y.shape()));
}

}  // namespace

std::pair<Tensors, VjpFunction> vjp(const Function& f, const Tensors& primals) {
  Tensors xs;
  bool nested = reverse_depth > 0;
  for (auto& p : primals) {
    nested |= p.requires_grad();
    xs.push_back(track(p));
  }
  Tensors outs;
  {
    GradModeGuard on(true);
    ReverseScope scope;
    outs = f(xs);
  }
  VjpFunction back = [xs, outs, nested](const Tensors& cotangents) {
    SPIRE_CHECK(cotangents.size() == outs.size(), ValueError, "vjp: got ", cotangents.size(),
                " cotangents for ", outs.size(), " outputs");
    Tensors ys, cts;
    bool create = nested || reverse_depth > 0;
    for (size_t k = 0; k < outs.size(); ++k) {
      if (!cotangents[k].defined() || !outs[k].requires_grad()) continue;
      SPIRE_CHECK(cotangents[k].shape() == outs[k].shape(), ShapeError, "vjp: cotangent ", k, " has shape ",
                  shape_str(cotangents[k].shape()), " but the output has shape ", shape_str(outs[k].shape()));
      ys.push_back(outs[k]);
      cts.push_back(cotangents[k]);
      create |= cotangents[k].requires_grad();
    }
    Tensors targets, grads(xs.size());
    std::vector<size_t> where;
    for (size_t i = 0; i < xs.size(); ++i)
      if (xs[i].requires_grad()) {
        targets.push_back(xs[i]);
        where.push_back(i);
      }
    if (!ys.empty() && !targets.empty()) {
      Tensors g = autodiff::grad(ys, targets, cts, /*retain_graph=*/true, create, /*allow_unused=*/true);
      for (size_t j = 0; j < g.size(); ++j) grads[where[j]] = g[j];
    }
    for (size_t i = 0; i < xs.size(); ++i)
      if (!grads[i].defined() && is_inexact(xs[i].dtype())) grads[i] = zeros_like(xs[i]);
    return grads;
  };
  Tensors values = outs;
  if (!nested)
    for (auto& v : values) v = v.detach();
  return {values, back};
}

std::pair<Tensors, Tensors> jvp(const Function& f, const Tensors& primals, const Tensors& tangents) {
  SPIRE_CHECK(primals.size() == tangents.size(), ValueError, "jvp: got ", tangents.size(),
              " tangents for ", primals.size(), " primals");
  forward_ad::Level level;
  Tensors xs;
  for (size_t i = 0; i < primals.size(); ++i) {
    if (!tangents[i].defined() || !is_inexact(primals[i].dtype())) {
      xs.push_back(primals[i]);
      continue;
    }
    SPIRE_CHECK(tangents[i].dtype() == primals[i].dtype(), DTypeError, "jvp: tangent ", i, " has dtype ",
                name(tangents[i].dtype()), " but its primal has ", name(primals[i].dtype()));
    xs.push_back(forward_ad::make_dual(primals[i], tangents[i], level.get()));
  }
  Tensors outs = f(xs);
  Tensors touts;
  for (auto& y : outs) {
    Tensor t = forward_ad::tangent(y, level.get());
    touts.push_back(t.defined() ? t : zeros_like(y));
  }
  return {outs, touts};
}

Function value_and_grad(const Function& f, const std::vector<int>& argnums) {
  return [f, argnums](const Tensors& args) {
    auto nums = normalize_argnums(argnums, args.size(), "value_and_grad");
    auto [outs, back] = vjp(restrict(f, args, nums), select(args, nums));
    require_scalar(outs, "grad");
    Tensors cts(outs.size());
    cts[0] = ones_like(outs[0]);
    Tensors grads = back(cts);
    Tensors result = outs;
    result.insert(result.end(), grads.begin(), grads.end());
    return result;
  };
}

Function grad(const Function& f, const std::vector<int>& argnums) {
  Function vg = value_and_grad(f, argnums);
  return [vg, f, argnums](const Tensors& args) {
    Tensors all = vg(args);
    size_t n = normalize_argnums(argnums, args.size(), "grad").size();
    return Tensors(all.end() - ptrdiff_t(n), all.end());
  };
}

Function jacrev(const Function& f, const std::vector<int>& argnums) {
  return [f, argnums](const Tensors& args) {
    auto nums = normalize_argnums(argnums, args.size(), "jacrev");
    Tensors xs = select(args, nums);
    auto [outs, back] = vjp(restrict(f, args, nums), xs);
    Tensors jac;
    for (size_t k = 0; k < outs.size(); ++k) {
      const Tensor& y = outs[k];
      int64_t m = y.numel();
      // One reverse pass per output element, each with a one-hot cotangent.
      std::vector<Tensors> rows(xs.size());
      Tensor basis = m ? to(eye(m, y.dtype()), y.device()) : Tensor();
      for (int64_t e = 0; e < m; ++e) {
        Tensors cts(outs.size());
        cts[k] = reshape(select(basis, 0, e), y.shape());
        Tensors g = back(cts);
        for (size_t i = 0; i < xs.size(); ++i) rows[i].push_back(g[i]);
      }
      for (size_t i = 0; i < xs.size(); ++i) {
        Shape s = y.shape();
        s.insert(s.end(), xs[i].shape().begin(), xs[i].shape().end());
        jac.push_back(m ? reshape(stack(rows[i], 0), s) : zeros(s, xs[i].dtype(), xs[i].device()));
      }
    }
    return jac;
  };
}

Function jacfwd(const Function& f, const std::vector<int>& argnums) {
  return [f, argnums](const Tensors& args) {
    auto nums = normalize_argnums(argnums, args.size(), "jacfwd");
    Tensors xs = select(args, nums);
    Function g = restrict(f, args, nums);
    // cols[i][k]: tangents of output k along each basis direction of input i.
    std::vector<std::vector<Tensors>> cols(xs.size());
    Tensors outs;
    for (size_t i = 0; i < xs.size(); ++i) {
      int64_t n = xs[i].numel();
      Tensor basis = n ? to(eye(n, xs[i].dtype()), xs[i].device()) : Tensor();
      // One forward pass per input element, each along a basis direction.
      for (int64_t j = 0; j < n; ++j) {
        Tensors tangents(xs.size());
        tangents[i] = reshape(select(basis, 0, j), xs[i].shape());
        auto [o, touts] = jvp(g, xs, tangents);
        outs = o;
        cols[i].resize(o.size());
        for (size_t k = 0; k < o.size(); ++k) cols[i][k].push_back(touts[k]);
      }
    }
    if (outs.empty()) outs = g(xs);
    for (auto& c : cols) c.resize(outs.size());
    Tensors jac;
    for (size_t k = 0; k < outs.size(); ++k)
      for (size_t i = 0; i < xs.size(); ++i) {
        Shape s = outs[k].shape();
        s.insert(s.end(), xs[i].shape().begin(), xs[i].shape().end());
        jac.push_back(xs[i].numel() ? reshape(stack(cols[i][k], -1), s) : zeros(s, outs[k].dtype(), outs[k].device()));
      }
    return jac;
  };
}

Function hessian(const Function& f, const std::vector<int>& argnums) {
  return jacfwd(grad(f, argnums), argnums);
}

Tensors hvp(const Function& f, const Tensors& primals, const Tensors& v) {
  std::vector<int> all;
  for (size_t i = 0; i < primals.size(); ++i) all.push_back(int(i));
  return jvp(grad(f, all), primals, v).second;
}

}  // namespace spire
