// Evaluator (evaluate.h): one compiled program (evaluate_program.h) for the explicit terms of all
// equations, run on the padded grid, then truncated into F.
#include "science/flow/evaluate.h"

#include <algorithm>

#include "engine/core/error.h"
#include "science/flow/evaluate_program.h"

namespace spire::flow {

struct Evaluator::Impl {
  size_t field_count;  // the problem is not kept: the program holds all that is needed of it
  std::map<std::string, double> parameters;
  const Space& space;
  ExprProgram program;
  // Per equation: where its F ends up (a coefficient register, or a scalar), or nothing.
  struct Output {
    enum { Zero, Coef, Scalar } kind = Zero;
    int reg = -1;
  };
  std::vector<Output> outputs;

  Impl(const Problem& p, const Space& s)
      : field_count(p.fields.size()), parameters(p.parameters), space(s), program(s, true, true) {
    program.field_count = int(p.fields.size());
    program.parameters = p.parameters;
    for (const Equation& eq : p.equations) {
      Output o;
      if (eq.rhs) {
        ExprProgram::Val v = program.compile(*eq.rhs);
        if (v.rep == ExprProgram::Rep::Scalar) {
          o.kind = Output::Scalar;
          o.reg = v.reg;
        } else {
          o.kind = Output::Coef;
          o.reg = program.output_of(v);
        }
      }
      outputs.push_back(o);
    }
    program.run_once();
  }
};

Evaluator::Evaluator(const Problem& problem, const Space& space)
    : impl_(std::make_unique<Impl>(problem, space)) {}

Evaluator::~Evaluator() = default;

void Evaluator::explicit_terms(const std::vector<const cplx*>& fields, double t,
                               const std::vector<cplx*>& F) {
  Impl& m = *impl_;
  SPIRE_CHECK(fields.size() >= m.field_count, ValueError, "explicit_terms: ", fields.size(),
              " field arrays for ", m.field_count, " fields");
  SPIRE_CHECK(F.size() >= m.outputs.size(), ValueError, "explicit_terms: ", F.size(), " outputs for ",
              m.outputs.size(), " equations");
  m.program.run(&fields, t);
  const size_t nc = m.space.coeff_size(false);
  for (size_t e = 0; e < m.outputs.size(); ++e) {
    const auto& o = m.outputs[e];
    cplx* out = F[e];
    switch (o.kind) {
      case Impl::Output::Coef: m.space.truncate(m.program.coef(o.reg), out); break;
      case Impl::Output::Scalar:
        std::fill(out, out + nc, cplx(0));
        out[0] = m.program.scalar(o.reg);
        break;
      case Impl::Output::Zero: std::fill(out, out + nc, cplx(0)); break;
    }
  }
}

std::vector<double> Evaluator::on_grid(const Expr& e, double t, bool padded) {
  ExprProgram p(impl_->space, padded, false);
  p.parameters = impl_->parameters;
  ExprProgram::Val v = p.compile(e);
  const int g = v.rep == ExprProgram::Rep::Scalar ? -1 : p.grid_of(v);
  p.run_once();
  p.run(nullptr, t);
  std::vector<double> out(impl_->space.grid_size(padded));
  if (g < 0) std::fill(out.begin(), out.end(), p.scalar(v.reg));
  else std::copy(p.grid(g), p.grid(g) + out.size(), out.begin());
  return out;
}

}  // namespace spire::flow
