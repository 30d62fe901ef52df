#include "engine/autodiff/taylor.h"

#include <algorithm>

#include "engine/autodiff/forward.h"
#include "engine/autodiff/taylor_internal.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace taylor {
namespace {

thread_local std::vector<std::pair<int, LevelSpec>> specs;

const LevelSpec* spec_of(int level) {
  for (auto& [l, s] : specs)
    if (l == level) return &s;
  return nullptr;
}

bool takes_part(const OpDef& op, size_t i) {
  return std::find(op.nondiff_inputs.begin(), op.nondiff_inputs.end(), int(i)) == op.nondiff_inputs.end();
}

Shape with_directions(const LevelSpec& s, const Shape& shape) {
  Shape out = shape;
  out.insert(out.begin(), s.directions);
  return out;
}

// Shape coefficient k (1-based) of a tensor of `shape` has at a level.
Shape coefficient_shape(const LevelSpec& s, int k, const Shape& shape) {
  if (s.directions == 0 || (k == 2 && s.collapse)) return shape;
  return with_directions(s, shape);
}

void check_output(const OpDef& op, const LevelSpec& s, int k, const Tensor& z, const Tensor& out) {
  Shape want = coefficient_shape(s, k, out.shape());
  SPIRE_CHECK(z.shape() == want, ShapeError, "Taylor rule of '", op.name, "' gave coefficient ", k,
              " of shape ", shape_str(z.shape()), " for an output of shape ", shape_str(out.shape()),
              " (expected ", shape_str(want), ")");
}

void attach(Tensor& t, int level, Series coeffs) {
  auto& jets = t.impl()->meta().jets;
  jets.erase(std::remove_if(jets.begin(), jets.end(), [&](auto& p) { return p.first == level; }), jets.end());
  jets.emplace_back(level, std::make_shared<Series>(std::move(coeffs)));
  forward_ad::note_carrier(t, level);
}


}  // namespace

std::vector<Series> detail::run_rule(const OpDef& op, const Attrs& attrs, const std::vector<Tensor>& inputs,
                             const std::vector<Tensor>& outputs, const std::vector<Series>& in, int order) {
  SPIRE_CHECK(op.taylor, AutodiffError, "op '", op.name, "' has no Taylor rule");
  std::vector<Series> out = op.taylor(TaylorContext{op, attrs, inputs, outputs, in, order});
  for (auto& z : out) z.resize(order);
  out.resize(outputs.size(), Series(order));
  return out;
}

Level::Level(const LevelSpec& spec) : level_(forward_ad::enter_level()) {
  SPIRE_CHECK(spec.order >= 1, ValueError, "taylor: order must be at least 1, got ", spec.order);
  SPIRE_CHECK(spec.directions >= 0, ValueError, "taylor: negative number of directions");
  SPIRE_CHECK(spec.directions == 0 || spec.order <= 2, ValueError,
              "taylor: jets along many directions at once go to order 2 at most, got ", spec.order);
  specs.emplace_back(level_, spec);
}

Level::~Level() {
  forward_ad::exit_level(level_);
  specs.erase(std::remove_if(specs.begin(), specs.end(), [&](auto& p) { return p.first == level_; }),
              specs.end());
}

bool any_level_active() { return !specs.empty(); }

Tensor make_jet(const Tensor& primal, const Series& coefficients, int level) {
  const LevelSpec* s = spec_of(level);
  SPIRE_CHECK(s && forward_ad::level_enabled(level), AutodiffError, "make_jet: taylor level ", level,
              " is not active");
  SPIRE_CHECK(int(coefficients.size()) <= s->order, ValueError, "make_jet: ", coefficients.size(),
              " coefficients for a level of order ", s->order);
  Series coeffs = coefficients;
  coeffs.resize(s->order);
  for (int k = 1; k <= s->order; ++k) {
    const Tensor& c = coeffs[k - 1];
    if (!c.defined()) continue;
    Shape want = coefficient_shape(*s, k, primal.shape());
    SPIRE_CHECK(c.shape() == want, ShapeError, "make_jet: coefficient ", k, " has shape ",
                shape_str(c.shape()), "; a primal of shape ", shape_str(primal.shape()), " needs ",
                shape_str(want));
  }
  Tensor out;
  {
    forward_ad::DisableLevel off(level);
    out = call1(op_def("alias"), {primal});
  }
  attach(out, level, std::move(coeffs));
  return out;
}

Series coefficients(const Tensor& t, int level) {
  const LevelSpec* s = spec_of(level);
  int order = s ? s->order : 0;
  if (t.defined() && t.impl()->autograd)
    for (auto& [l, c] : t.impl()->autograd->jets)
      if (l == level) return *c;
  return Series(order);
}

void propagate(const OpDef& op, const Attrs& attrs, const std::vector<Tensor>& inputs,
               std::vector<Tensor>& outputs) {
  if (specs.empty()) return;
  std::vector<int> levels;
  for (auto& t : inputs)
    if (t.impl()->autograd)
      for (auto& [l, _] : t.impl()->autograd->jets)
        if (forward_ad::level_enabled(l) && spec_of(l) &&
            std::find(levels.begin(), levels.end(), l) == levels.end())
          levels.push_back(l);
  for (int level : levels) {
    const LevelSpec& s = *spec_of(level);
    std::vector<Series> in(inputs.size(), Series(s.order));
    bool any = false;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (takes_part(op, i) && is_inexact(inputs[i].dtype())) {
        in[i] = coefficients(inputs[i], level);
        for (auto& c : in[i]) any |= c.defined();
      }
    if (!any || !op.differentiable) continue;
    std::vector<Series> out;
    {
      forward_ad::DisableLevel off(level);
      out = s.directions ? detail::propagate_directions(op, attrs, s, inputs, outputs, in)
                         : detail::run_rule(op, attrs, inputs, outputs, in, s.order);
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (!is_inexact(outputs[k].dtype())) continue;
      bool defined = false;
      for (int j = 0; j < s.order; ++j)
        if (out[k][j].defined()) {
          check_output(op, s, j + 1, out[k][j], outputs[k]);
          defined = true;
        }
      if (defined) attach(outputs[k], level, std::move(out[k]));
    }
  }
}

}  // namespace taylor

std::pair<Tensors, std::vector<Series>> jet(const Function& f, const Tensors& primals,
                                            const std::vector<Series>& series) {
  SPIRE_CHECK(series.size() == primals.size(), ValueError, "jet: ", series.size(), " series for ",
              primals.size(), " primals");
  int order = 0;
  for (auto& s : series) order = std::max(order, int(s.size()));
  SPIRE_CHECK(order >= 1, ValueError, "jet: every series is empty; give at least one coefficient");
  taylor::Level level({.order = order});
  Tensors xs(primals.size());
  for (size_t i = 0; i < primals.size(); ++i) {
    SPIRE_CHECK(series[i].empty() || is_inexact(primals[i].dtype()), DTypeError,
                "jet: primal ", i, " has dtype ", name(primals[i].dtype()),
                "; only floating point and complex inputs carry series");
    Series normalised(series[i].size());
    double factorial = 1;
    for (size_t k = 0; k < series[i].size(); ++k) {
      factorial *= double(k + 1);
      if (series[i][k].defined()) normalised[k] = mul(series[i][k], 1.0 / factorial);
    }
    xs[i] = series[i].empty() ? primals[i] : taylor::make_jet(primals[i], normalised, level.get());
  }
  Tensors outs = f(xs);
  std::vector<Series> out_series;
  for (auto& y : outs) {
    Series c = taylor::coefficients(y, level.get());
    double factorial = 1;
    for (int k = 0; k < order; ++k) {
      factorial *= double(k + 1);
      c[k] = c[k].defined() ? mul(c[k], factorial) : zeros_like(y);
    }
    out_series.push_back(std::move(c));
  }
  return {outs, out_series};
}

}  // namespace spire
