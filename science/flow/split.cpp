// The linear/nonlinear split, Dedalus-style: a term goes to the implicit side only when it is a
// constant times derivatives of one field; anything with a product of fields, a coefficient that
// varies in space or time, or no field at all is explicit.
#include "science/flow/split.h"

#include <cmath>

#include "engine/core/error.h"
#include "science/flow/parser.h"

namespace spire::flow::detail {

namespace {

ExprPtr node(Op op, std::vector<ExprPtr> args, const Span& span, int index = -1) {
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->index = index;
  e->args = std::move(args);
  e->span = span;
  return e;
}

ExprPtr constant(double v, const Span& span) {
  auto e = std::make_shared<Expr>();
  e->value = v;
  e->span = span;
  return e;
}

[[noreturn]] void fail(const Source& s, const Span& span, const std::string& message) {
  throw ConfigError(located_message(s.where, s.text, span, message));
}

const Expr* find_dt(const Expr& e) {
  if (e.op == Op::Diff && e.index == 2) return &e;
  for (const auto& a : e.args)
    if (const Expr* d = find_dt(*a)) return d;
  return nullptr;
}

template <class F>
void visit_nodes(const Expr& e, F&& f) {
  f(e);
  for (const auto& a : e.args) visit_nodes(*a, f);
}

ExprPtr with_span(const ExprPtr& e, const Span& span) {
  auto copy = std::make_shared<Expr>(*e);
  copy->span = span;
  for (auto& a : copy->args) a = with_span(a, span);
  return copy;
}

bool is_one(const Expr& e) { return e.op == Op::Number && e.value == 1; }

void expand_into(const ExprPtr& e, double c, const Source& source, std::vector<Term>& out) {
  const Expr& n = *e;
  switch (n.op) {
    case Op::Number:
      if (c * n.value != 0) out.push_back({c * n.value, constant(1, n.span)});
      return;
    case Op::Neg: expand_into(n.args[0], -c, source, out); return;
    case Op::Add:
      expand_into(n.args[0], c, source, out);
      expand_into(n.args[1], c, source, out);
      return;
    case Op::Sub:
      expand_into(n.args[0], c, source, out);
      expand_into(n.args[1], -c, source, out);
      return;
    case Op::Mul:
      if (n.args[0]->op == Op::Number) return expand_into(n.args[1], c * n.args[0]->value, source, out);
      if (n.args[1]->op == Op::Number) return expand_into(n.args[0], c * n.args[1]->value, source, out);
      break;
    case Op::Div:
      if (n.args[1]->op == Op::Number) {
        if (n.args[1]->value == 0) fail(source, n.args[1]->span, "division by zero: this constant is 0");
        return expand_into(n.args[0], c / n.args[1]->value, source, out);
      }
      break;
    case Op::Diff: {
      std::vector<Term> inner;
      expand_into(n.args[0], 1, source, inner);
      for (const Term& t : inner) {
        if (t.factor->op == Op::Number) continue;  // the derivative of a constant
        if (n.index == 2 && t.factor->op != Op::Field)
          fail(source, n.span, "dt may only be applied to a constant times a field (dt(u), dt(2*u)), not to " +
                                   to_string(*t.factor));
        out.push_back({c * t.coefficient, node(Op::Diff, {t.factor}, n.span, n.index)});
      }
      return;
    }
    default: break;
  }
  if (c != 0) out.push_back({c, e});
}

// Adds c to the entry for (field, dx, dy), so u + 2*u is one term 3*u.
void collect(std::vector<LinearTerm>& terms, const LinearTerm& t) {
  for (auto& s : terms)
    if (s.field == t.field && s.dx == t.dx && s.dy == t.dy) {
      s.coefficient += t.coefficient;
      return;
    }
  terms.push_back(t);
}

void drop_zeros(std::vector<LinearTerm>& terms) {
  std::erase_if(terms, [](const LinearTerm& t) { return t.coefficient == 0; });
}

}  // namespace

ExprPtr lower(const ExprPtr& e, const std::map<std::string, double>& parameters, int dims, const Source& source) {
  const Expr& n = *e;
  switch (n.op) {
    case Op::Number: case Op::Coordinate: case Op::Field: return e;
    case Op::Parameter: {
      auto p = parameters.find(n.name);
      if (p == parameters.end()) fail(source, n.span, "the parameter '" + n.name + "' has no value");
      return constant(p->second, n.span);
    }
    case Op::Laplacian: {
      const ExprPtr& a = n.args[0];
      ExprPtr xx = node(Op::Diff, {node(Op::Diff, {a}, n.span, 0)}, n.span, 0);
      if (dims < 2) return lower(xx, parameters, dims, source);
      ExprPtr yy = node(Op::Diff, {node(Op::Diff, {a}, n.span, 1)}, n.span, 1);
      return lower(node(Op::Add, {xx, yy}, n.span), parameters, dims, source);
    }
    default: break;
  }
  auto copy = std::make_shared<Expr>(n);
  bool all_constant = true;
  for (auto& a : copy->args) {
    a = lower(a, parameters, dims, source);
    all_constant = all_constant && a->op == Op::Number;
  }
  if (n.op == Op::Diff) {
    bool field_free = true;
    visit_nodes(*copy->args[0], [&](const Expr& m) { field_free = field_free && m.op != Op::Field && m.op != Op::Diff; });
    if (!field_free) return copy;
    // Exact, and spans kept at the dx for later messages.
    return lower(with_span(derivative(copy->args[0], n.index), n.span), parameters, dims, source);
  }
  if (!all_constant) return copy;
  double v = evaluate_point(*copy, 0, 0, 0);
  if (!std::isfinite(v)) fail(source, n.span, "this constant is not finite (" + to_string(*copy) + ")");
  return constant(v, n.span);
}

std::vector<Term> expand(const ExprPtr& e, const Source& source) {
  std::vector<Term> out;
  expand_into(e, 1, source, out);
  return out;
}

bool derivative_of_field(const Expr& e, int& field, int& dx, int& dy) {
  const Expr* n = &e;
  dx = dy = 0;
  while (n->op == Op::Diff && n->index != 2) {
    (n->index == 0 ? dx : dy)++;
    n = n->args[0].get();
  }
  if (n->op != Op::Field) return false;
  field = n->index;
  return true;
}

ExprPtr sum_of(const std::vector<Term>& terms) {
  ExprPtr acc;
  double constant_part = 0;
  bool has_constant = false;
  auto add = [&](double c, ExprPtr f) {
    double m = std::abs(c);
    ExprPtr a = m == 1 ? f : binary(Op::Mul, number(m), f);
    if (!acc) acc = c < 0 ? unary(Op::Neg, a) : a;
    else acc = binary(c < 0 ? Op::Sub : Op::Add, acc, a);
  };
  for (const Term& t : terms) {
    if (t.coefficient == 0) continue;
    if (is_one(*t.factor)) {
      constant_part += t.coefficient;
      has_constant = true;
    } else {
      add(t.coefficient, t.factor);
    }
  }
  if (has_constant && constant_part != 0) {
    if (!acc) return number(constant_part);
    acc = binary(constant_part < 0 ? Op::Sub : Op::Add, acc, number(std::abs(constant_part)));
  }
  return acc;
}

Split split(const ExprPtr& equation, const Source& source) {
  Split s;
  std::vector<Term> explicit_terms;
  for (const Term& t : expand(equation, source)) {
    const Expr& f = *t.factor;
    if (!std::isfinite(t.coefficient))
      fail(source, f.span, "the constant factor of this term is not finite (" + std::to_string(t.coefficient) + ")");
    int field = 0, dx = 0, dy = 0;
    if (f.op == Op::Diff && f.index == 2 && f.args[0]->op == Op::Field) {
      collect(s.mass, {f.args[0]->index, t.coefficient, 0, 0});
    } else if (derivative_of_field(f, field, dx, dy)) {
      collect(s.linear, {field, t.coefficient, dx, dy});
    } else {
      if (const Expr* d = find_dt(f))
        fail(source, d->span, "dt may appear only as a constant times dt(field), not inside " + to_string(f));
      explicit_terms.push_back({-t.coefficient, t.factor});
    }
  }
  drop_zeros(s.mass);
  drop_zeros(s.linear);
  s.rhs = sum_of(explicit_terms);
  return s;
}

namespace {
int order_below(const Expr& e, int axis) {
  if (e.op == Op::Field) return 0;
  int best = -1;  // -1: no field below
  for (const auto& a : e.args) best = std::max(best, order_below(*a, axis));
  if (best >= 0 && e.op == Op::Diff && e.index == axis) ++best;
  return best;
}
}  // namespace

int derivative_order(const Expr& e, int axis) { return std::max(0, order_below(e, axis)); }

}  // namespace spire::flow::detail
