// Taylor levels carrying many directions at once: coefficient 1 of every tensor is batched over
// the directions (vmap runs the rules once for all of them), and coefficient 2 is batched too or
// collapsed into its sum over the directions (the forward Laplacian).
#include "engine/autodiff/series.h"
#include "engine/autodiff/taylor_internal.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"

namespace spire::taylor::detail {
namespace {

bool linear_rule(const OpDef& op) {
  using Rule = std::vector<Series> (*)(const TaylorContext&);
  const Rule* r = op.taylor.target<Rule>();
  return r && *r == &jets::linear;
}

// Whether collapse_pointwise applies: a nonlinear pointwise op of real inputs (so its derivative is
// multiplication by partial derivatives), one output, at most two inputs with terms.
bool collapsible(const OpDef& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                 const std::vector<size_t>& with_terms) {
  if (!op.pointwise || outputs.size() != 1 || with_terms.size() > 2 || linear_rule(op)) return false;
  for (size_t i : with_terms)
    if (!is_floating(inputs[i].dtype())) return false;
  return true;
}

// The collapsed coefficients of a pointwise op's output. Per element, such an op's first-order term
// is sum_i p_i x1_i with partial derivatives p_i, and its second-order term (less the inputs' own
// second-order terms) is a quadratic form in the x1_i whose weights do not depend on the direction;
// so the sum over directions is those weights times summed products of first-order terms. The
// partials and weights come from unbatched runs of the rule with unit first-order terms: for a
// unary f, z1 = f' x1 and z2 = f' x2 + f''/2 sum_d x1^2, the forward Laplacian's rule, for any
// pointwise op and with no batched second-order work.
template <class Mapped, class Physical>
Series collapse_pointwise(const OpDef& op, const Attrs& attrs, const std::vector<Tensor>& inputs,
                          const std::vector<Tensor>& outputs, const std::vector<Series>& in,
                          const std::vector<size_t>& with_terms, const Mapped& mapped,
                          const Physical& physical) {
  auto unit_run = [&](std::initializer_list<size_t> on) {
    std::vector<Series> unit(inputs.size(), Series(2));
    for (size_t i : on) unit[i][0] = ones(inputs[i].shape(), inputs[i].dtype(), inputs[i].device());
    return run_rule(op, attrs, inputs, outputs, unit, 2)[0];
  };
  Series z(2);
  Tensor first, quad;  // logical: first is mapped over the directions, quad is their sum
  auto summed = [&](size_t i, size_t j) {
    Tensor a = mapped(in[i][0]);
    return sum(physical(i == j ? square(a) : mul(a, mapped(in[j][0]))), {0});
  };
  std::vector<Series> single;
  for (size_t i : with_terms) {
    single.push_back(unit_run({i}));
    const Tensor& p = single.back()[0];
    const Tensor& w = single.back()[1];
    if (!p.defined()) continue;
    if (in[i][0].defined()) first = rules::plus(first, mul(p, mapped(in[i][0])));
    if (in[i][1].defined()) z[1] = rules::plus(z[1], mul(p, in[i][1]));
    if (w.defined() && in[i][0].defined()) quad = rules::plus(quad, mul(w, summed(i, i)));
  }
  if (with_terms.size() == 2 && in[with_terms[0]][0].defined() && in[with_terms[1]][0].defined()) {
    size_t i = with_terms[0], j = with_terms[1];
    Tensor cross = jets::sub(jets::sub(unit_run({i, j})[1], single[0][1]), single[1][1]);
    if (cross.defined()) quad = rules::plus(quad, mul(cross, summed(i, j)));
  }
  Shape out = outputs[0].shape();
  if (first.defined()) z[0] = physical(rules::expand_to(first, out));
  z[1] = rules::plus(z[1], quad);
  if (z[1].defined()) z[1] = rules::expand_to(z[1], out);
  return z;
}

// Coefficients of the outputs for a level carrying `directions` jets: the rule runs once, mapped
// over the directions by vmap; a collapsed coefficient 2 is the sum over directions of the rule's
// quadratic part plus the rule's linear part applied to the summed input coefficient.
}  // namespace

std::vector<Series> propagate_directions(const OpDef& op, const Attrs& attrs, const LevelSpec& s,
                                         const std::vector<Tensor>& inputs,
                                         const std::vector<Tensor>& outputs,
                                         const std::vector<Series>& in) {
  batching::Level dirs(s.directions);
  auto mapped = [&](const Tensor& t) { return t.defined() ? batching::wrap(t, dirs.get()) : Tensor(); };
  auto physical = [&](const Tensor& t) { return t.defined() ? batching::unwrap(t, dirs.get()) : Tensor(); };
  std::vector<Series> out(outputs.size(), Series(s.order));
  if (s.order == 1) {
    std::vector<Tensor> tangents(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) tangents[i] = mapped(in[i][0]);
    SPIRE_CHECK(op.jvp, AutodiffError, "op '", op.name, "' has no forward rule");
    auto z = op.jvp(JvpContext{op, attrs, inputs, outputs, tangents});
    for (size_t k = 0; k < outputs.size() && k < z.size(); ++k) out[k][0] = physical(z[k]);
    return out;
  }
  bool any_second = false;
  std::vector<size_t> with_terms;
  for (size_t i = 0; i < inputs.size(); ++i) {
    any_second |= in[i][1].defined();
    if (in[i][0].defined() || in[i][1].defined()) with_terms.push_back(i);
  }
  if (s.collapse && collapsible(op, inputs, outputs, with_terms)) {
    out[0] = collapse_pointwise(op, attrs, inputs, outputs, in, with_terms, mapped, physical);
    return out;
  }
  std::vector<Series> b(inputs.size(), Series(2));
  for (size_t i = 0; i < inputs.size(); ++i) {
    b[i][0] = mapped(in[i][0]);
    if (!s.collapse) b[i][1] = mapped(in[i][1]);
  }
  auto z = run_rule(op, attrs, inputs, outputs, b, 2);
  for (size_t k = 0; k < outputs.size(); ++k) {
    out[k][0] = physical(z[k][0]);
    out[k][1] = physical(z[k][1]);
  }
  if (!s.collapse) return out;
  for (auto& o : out)
    if (o[1].defined()) o[1] = sum(o[1], {0});
  if (any_second) {
    std::vector<Tensor> summed(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) summed[i] = in[i][1];
    auto lin = op.jvp(JvpContext{op, attrs, inputs, outputs, summed});
    for (size_t k = 0; k < outputs.size() && k < lin.size(); ++k) out[k][1] = rules::plus(out[k][1], lin[k]);
  }
  return out;
}


}  // namespace spire::taylor::detail
