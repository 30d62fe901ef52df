// The evaluator (evaluate.h) compiles each expression tree once into a flat list of instructions on
// preallocated registers (grid values, coefficients, scalars), so a call allocates nothing and
// dispatches once per array operation, not once per point.
//
// Values live where they are cheapest: a field is available both as padded coefficients and as
// padded grid values (each computed at most once per call); a derivative stays in coefficient
// space, and so do the linear operations on it (sums, negation, scaling by a scalar), so that
// F = -dx(0.5 u^2) costs one backward and one forward transform, not two of each. Products and
// functions go to the grid. Subtrees without fields and without t are constants: their
// instructions run once, when the evaluator is built.
#include "science/flow/evaluate_program.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/core/error.h"

namespace spire::flow {

using namespace expr_program;

namespace {

enum class Fn { Sin, Cos, Tan, Exp, Log, Sqrt, Tanh, Sech, Abs, Sinh, Cosh };

Fn function_of(const std::string& name) {
  static const std::pair<const char*, Fn> table[] = {
      {"sin", Fn::Sin},   {"cos", Fn::Cos},   {"tan", Fn::Tan},   {"exp", Fn::Exp},
      {"log", Fn::Log},   {"sqrt", Fn::Sqrt}, {"tanh", Fn::Tanh}, {"sech", Fn::Sech},
      {"abs", Fn::Abs},   {"sinh", Fn::Sinh}, {"cosh", Fn::Cosh}};
  for (const auto& [n, f] : table)
    if (name == n) return f;
  throw ConfigError(detail::cat("unknown function '", name, "' (allowed: ", detail::join(functions()), ")"));
}

double apply(Fn f, double x) {
  switch (f) {
    case Fn::Sin: return std::sin(x);
    case Fn::Cos: return std::cos(x);
    case Fn::Tan: return std::tan(x);
    case Fn::Exp: return std::exp(x);
    case Fn::Log: return std::log(x);
    case Fn::Sqrt: return std::sqrt(x);
    case Fn::Tanh: return std::tanh(x);
    case Fn::Sech: return 1 / std::cosh(x);
    case Fn::Abs: return std::fabs(x);
    case Fn::Sinh: return std::sinh(x);
    case Fn::Cosh: return std::cosh(x);
  }
  return 0;
}


// x^n for a small integer n, by squaring.
inline double int_power(double x, int n) {
  const bool inverse = n < 0;
  unsigned m = inverse ? unsigned(-n) : unsigned(n);
  double r = 1, b = x;
  while (m) {
    if (m & 1) r *= b;
    b *= b;
    m >>= 1;
  }
  return inverse ? 1 / r : r;
}

// Integer exponents are multiplications here as on the grid, so that a constant folded at build
// time has the same bits as the same expression evaluated point by point.
bool small_integer(double p) { return p == std::round(p) && std::fabs(p) <= 64; }

double apply(Op op, double a, double b) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Pow: return small_integer(b) ? int_power(a, int(b)) : std::pow(a, b);
    default: return 0;
  }
}

template <class F>
void map1(double* d, const double* a, size_t n, F f) {
  for (size_t i = 0; i < n; ++i) d[i] = f(a[i]);
}

// d = f(a, b) where either operand may be a scalar (a pointer to one value).
template <class F>
void map2(double* d, const double* a, bool a_scalar, const double* b, bool b_scalar, size_t n, F f) {
  if (a_scalar) {
    const double s = *a;
    for (size_t i = 0; i < n; ++i) d[i] = f(s, b[i]);
  } else if (b_scalar) {
    const double s = *b;
    for (size_t i = 0; i < n; ++i) d[i] = f(a[i], s);
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = f(a[i], b[i]);
  }
}

}  // namespace

ExprProgram::Val ExprProgram::scalar_unary(int fn, const Val& a) {
  if (a.constant) return scalar_val(fn < 0 ? -scalars_[a.reg] : apply(Fn(fn), scalars_[a.reg]));
  Instr i{Code::SUnary, new_scalar(), a.reg};
  i.fn = fn;
  emit(i, false);
  return {Rep::Scalar, i.dst, false, false};
}

ExprProgram::Val ExprProgram::scalar_binary(Op op, const Val& a, const Val& b) {
  if (a.constant && b.constant) return scalar_val(apply(op, scalars_[a.reg], scalars_[b.reg]));
  Instr i{Code::SBinary, new_scalar(), a.reg, b.reg};
  i.op = op;
  emit(i, false);
  return {Rep::Scalar, i.dst, false, false};
}

ExprProgram::Val ExprProgram::grid_binary(Op op, Val a, Val b) {
  const bool constant = a.constant && b.constant;
  Instr i{Code::GBinary};
  i.op = op;
  i.ka = a.rep == Rep::Scalar;
  i.kb = b.rep == Rep::Scalar;
  i.a = i.ka ? a.reg : grid_of(a);
  i.b = i.kb ? b.reg : grid_of(b);
  // grid_of may have made new temporaries; the destination may reuse an operand's register.
  Val ga = i.ka ? a : Val{Rep::Grid, i.a, a.constant, a.owned || a.rep == Rep::Coef};
  Val gb = i.kb ? b : Val{Rep::Grid, i.b, b.constant, b.owned || b.rep == Rep::Coef};
  if (!i.ka && ga.owned && !ga.constant) {
    i.dst = ga.reg;
    release(gb);
  } else if (!i.kb && gb.owned && !gb.constant) {
    i.dst = gb.reg;
    release(ga);
  } else {
    i.dst = new_grid(constant);
    release(ga);
    release(gb);
  }
  emit(i, constant);
  return grid_val(i.dst, constant);
}

ExprProgram::Val ExprProgram::add_sub(Op op, Val a, Val b) {
  const bool constant = a.constant && b.constant;
  if (a.rep == Rep::Scalar && b.rep == Rep::Scalar) return scalar_binary(op, a, b);
  const bool a_grid = a.rep == Rep::Grid, b_grid = b.rep == Rep::Grid;
  const bool any_coef = a.rep == Rep::Coef || b.rep == Rep::Coef;
  // On the grid when that needs no transform; else in coefficient space.
  if ((a_grid || b_grid) && !any_coef) return grid_binary(op, a, b);
  if (a.rep == Rep::Scalar || b.rep == Rep::Scalar) {
    const Val& s = a.rep == Rep::Scalar ? a : b;
    const Val& c = a.rep == Rep::Scalar ? b : a;
    Instr i{Code::CAddScalar};
    i.a = coef_of(c);
    Val cc{Rep::Coef, i.a, c.constant, c.owned || c.rep == Rep::Grid};
    i.dst = reuse_coef(cc, constant);
    i.b = s.reg;
    const bool negate_c = op == Op::Sub && &c == &b, negate_s = op == Op::Sub && &s == &b;
    i.n = (negate_c ? 1 : 0) | (negate_s ? 2 : 0);
    emit(i, constant);
    if (i.dst != cc.reg) release(cc);
    return coef_val(i.dst, constant, band_of(c));
  }
  Instr i{op == Op::Add ? Code::CAdd : Code::CSub};
  i.a = coef_of(a);
  i.b = coef_of(b);
  Val ca{Rep::Coef, i.a, a.constant, a.owned || a.rep == Rep::Grid};
  Val cb{Rep::Coef, i.b, b.constant, b.owned || b.rep == Rep::Grid};
  if (ca.owned && !ca.constant) {
    i.dst = ca.reg;
    release(cb);
  } else if (cb.owned && !cb.constant) {
    i.dst = cb.reg;
    release(ca);
  } else {
    i.dst = new_coef(constant);
  }
  emit(i, constant);
  return coef_val(i.dst, constant, band_of(a) && band_of(b));
}

ExprProgram::Val ExprProgram::mul_div(Op op, Val a, Val b) {
  const bool constant = a.constant && b.constant;
  if (a.rep == Rep::Scalar && b.rep == Rep::Scalar) return scalar_binary(op, a, b);
  // An array scaled by a scalar stays where it is (coefficients scale linearly).
  const bool scale = (op == Op::Mul && (a.rep == Rep::Scalar || b.rep == Rep::Scalar)) ||
                     (op == Op::Div && b.rep == Rep::Scalar);
  if (scale) {
    const Val& s = a.rep == Rep::Scalar ? a : b;
    const Val& x = a.rep == Rep::Scalar ? b : a;
    if (x.rep == Rep::Coef || x.rep == Rep::Field) {
      Instr i{Code::CScale};
      i.a = coef_of(x);
      Val cx{Rep::Coef, i.a, x.constant, x.owned};
      i.dst = reuse_coef(cx, constant);
      i.b = s.reg;
      i.n = op == Op::Div ? 1 : 0;
      emit(i, constant);
      return coef_val(i.dst, constant, band_of(x));
    }
  }
  return grid_binary(op, a, b);
}

ExprProgram::Val ExprProgram::power(Val a, Val b) {
  if (a.rep == Rep::Scalar && b.rep == Rep::Scalar) return scalar_binary(Op::Pow, a, b);
  const bool constant = a.constant && b.constant;
  if (b.rep == Rep::Scalar && b.constant) {
    const double p = scalars_[b.reg];
    if (small_integer(p)) {
      Instr i{Code::GPowInt};
      i.a = grid_of(a);
      Val ga{Rep::Grid, i.a, a.constant, a.owned || a.rep == Rep::Coef};
      i.dst = reuse_grid(ga, constant);
      i.n = int(p);
      emit(i, constant);
      return grid_val(i.dst, constant);
    }
    if (p == 0.5) {
      Instr i{Code::GCall};
      i.a = grid_of(a);
      Val ga{Rep::Grid, i.a, a.constant, a.owned || a.rep == Rep::Coef};
      i.dst = reuse_grid(ga, constant);
      i.fn = int(Fn::Sqrt);
      emit(i, constant);
      return grid_val(i.dst, constant);
    }
  }
  return grid_binary(Op::Pow, a, b);
}

// A derivative outside linear(): of a function of t alone (zero), or along an axis that does not
// exist here (the error).
ExprProgram::Val ExprProgram::derivative(const Expr& e) {
  int order[2] = {0, 0};
  const Expr* inner = &e;
  while (inner->op == Op::Diff) {
    SPIRE_CHECK(inner->index == 0 || (inner->index == 1 && space_.discretization().dims == 2), ConfigError,
                "d/d", inner->index == 2 ? "t" : "y", " cannot be evaluated here (allowed: dx",
                space_.discretization().dims == 2 ? ", dy)" : ")");
    ++order[inner->index];
    inner = inner->args[0].get();
  }
  Val a = compile(*inner);
  if (a.rep == Rep::Scalar) return scalar_val(0);  // derivative of a constant (or of f(t))
  const bool constant = a.constant;
  Instr i{Code::CDiff};
  i.a = coef_of(a);
  Val ca{Rep::Coef, i.a, a.constant, a.owned || a.rep == Rep::Grid};
  i.dst = reuse_coef(ca, constant);
  i.n = order[0];
  i.m = order[1];
  emit(i, constant);
  return coef_val(i.dst, constant, band_of(a));
}

ExprProgram::Val ExprProgram::negate(Val a) {
  if (a.rep == Rep::Scalar) return scalar_unary(-1, a);
  if (a.rep == Rep::Grid) {
    Instr i{Code::GNeg, reuse_grid(a, a.constant), a.reg};
    emit(i, a.constant);
    return grid_val(i.dst, a.constant);
  }
  Instr i{Code::CNeg};
  i.a = coef_of(a);
  i.dst = reuse_coef({Rep::Coef, i.a, a.constant, a.owned}, a.constant);
  emit(i, a.constant);
  return coef_val(i.dst, a.constant, band_of(a));
}

namespace {
// Whether e is the same at every point (no field, no x, no y): a scalar, possibly of t.
bool scalar_valued(const Expr& e) {
  if (e.op == Op::Field || (e.op == Op::Coordinate && e.index != 2)) return false;
  for (const auto& a : e.args)
    if (!scalar_valued(*a)) return false;
  return true;
}

// One term of a linear combination: factor * (scalars...) * d^order leaf.
struct Term {
  double factor = 1;
  std::vector<std::pair<const Expr*, bool>> scalars;  // (expression, divides)
  int order[2] = {0, 0};
  const Expr* leaf = nullptr;  // nullptr: the constant 1
};

void fold(const Expr& s, bool divide, Term& t) {
  if (s.op == Op::Number) t.factor = divide ? t.factor / s.value : t.factor * s.value;
  else t.scalars.push_back({&s, divide});
}

void flatten(const Expr& e, Term t, int dims, std::vector<Term>& out) {
  switch (e.op) {
    case Op::Add: flatten(*e.args[0], t, dims, out); flatten(*e.args[1], t, dims, out); return;
    case Op::Sub:
      flatten(*e.args[0], t, dims, out);
      t.factor = -t.factor;
      flatten(*e.args[1], t, dims, out);
      return;
    case Op::Neg: t.factor = -t.factor; flatten(*e.args[0], t, dims, out); return;
    case Op::Diff:
      if (e.index == 0 || (e.index == 1 && dims == 2)) {
        ++t.order[e.index];
        flatten(*e.args[0], t, dims, out);
        return;
      }
      break;
    case Op::Mul:
      if (scalar_valued(*e.args[0])) {
        fold(*e.args[0], false, t);
        flatten(*e.args[1], t, dims, out);
        return;
      }
      if (scalar_valued(*e.args[1])) {
        fold(*e.args[1], false, t);
        flatten(*e.args[0], t, dims, out);
        return;
      }
      break;
    case Op::Div:
      if (scalar_valued(*e.args[1])) {
        fold(*e.args[1], true, t);
        flatten(*e.args[0], t, dims, out);
        return;
      }
      break;
    case Op::Number:
      if (t.order[0] || t.order[1]) return;  // the derivative of a constant
      t.factor *= e.value;
      out.push_back(t);
      return;
    default: break;
  }
  if ((t.order[0] || t.order[1]) && scalar_valued(e)) return;  // a derivative of a function of t
  t.leaf = &e;
  out.push_back(t);
}
}  // namespace

bool ExprProgram::linear_node(const Expr& e) const {
  if (scalar_valued(e)) return false;
  switch (e.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Neg: return true;
    case Op::Diff: return e.index == 0 || (e.index == 1 && space_.discretization().dims == 2);
    case Op::Mul: return scalar_valued(*e.args[0]) || scalar_valued(*e.args[1]);
    case Op::Div: return scalar_valued(*e.args[1]);
    default: return false;
  }
}

// Sums of derivatives are taken as derivatives of sums: -0.2 dx(u^2) + 0.05 dx(u^3) + dx(k dx(u))
// is dx(-0.2 u^2 + 0.05 u^3 + k dx(u)), one forward transform where term by term there are
// three. Terms of one derivative order are summed where they are (on the grid, as a rule), then
// each group is differentiated once in coefficient space.
ExprProgram::Val ExprProgram::linear(const Expr& e) {
  const int dims = space_.discretization().dims;
  std::vector<Term> terms;
  flatten(e, Term{}, dims, terms);
  std::vector<std::pair<int, int>> orders;  // in order of first appearance
  for (const Term& t : terms)
    if (std::find(orders.begin(), orders.end(), std::make_pair(t.order[0], t.order[1])) == orders.end())
      orders.push_back({t.order[0], t.order[1]});
  Val result;
  bool have_result = false;
  for (const auto& [ox, oy] : orders) {
    std::vector<const Term*> group;
    for (const Term& t : terms)
      if (t.order[0] == ox && t.order[1] == oy) group.push_back(&t);
    // A positive term first: -a + b becomes b - a, with no separate negation pass.
    std::stable_partition(group.begin(), group.end(), [](const Term* t) { return t->factor > 0; });
    // A derivative of one field: straight from its unpadded coefficients (pad and differentiate
    // in one pass), then the factor.
    const bool field_derivative =
        (ox || oy) && group.size() == 1 && group[0]->leaf && group[0]->leaf->op == Op::Field;
    Val sum;
    bool have_sum = false;
    for (const Term* tp : group) {
      const Term& t = *tp;
      Val v;
      if (field_derivative) {
        v = compile(*t.leaf);  // checks the field
        Instr i{Code::FieldDiff, new_coef(false), v.reg};
        i.n = ox;
        i.m = oy;
        emit(i, false);
        v = coef_val(i.dst, false, true);
      } else {
        v = t.leaf ? compile(*t.leaf) : scalar_val(1);
      }
      bool negative = false;
      if (t.scalars.empty() && std::fabs(t.factor) == 1) {
        negative = t.factor < 0;
      } else {
        Val c = scalar_val(t.factor);
        for (const auto& [s, divide] : t.scalars)
          c = scalar_binary(divide ? Op::Div : Op::Mul, c, compile(*s));
        v = mul_div(Op::Mul, c, v);
      }
      if (!have_sum) sum = negative ? negate(v) : v;
      else sum = add_sub(negative ? Op::Sub : Op::Add, sum, v);
      have_sum = true;
    }
    if ((ox || oy) && !field_derivative) {
      Instr i{Code::CDiff};
      i.a = coef_of(sum);
      Val cs{Rep::Coef, i.a, sum.constant, sum.owned || sum.rep == Rep::Grid};
      i.dst = reuse_coef(cs, sum.constant);
      i.n = ox;
      i.m = oy;
      emit(i, sum.constant);
      sum = coef_val(i.dst, sum.constant, band_of(sum));
    }
    result = have_result ? add_sub(Op::Add, result, sum) : sum;
    have_result = true;
  }
  return have_result ? result : scalar_val(0);
}

ExprProgram::Val ExprProgram::compile(const Expr& e) {
  if (linear_node(e)) return linear(e);
  switch (e.op) {
    case Op::Number: return scalar_val(e.value);
    case Op::Coordinate: {
      if (e.index == 2) {
        Instr i{Code::ST, new_scalar()};
        emit(i, false);
        return {Rep::Scalar, i.dst, false, false};
      }
      SPIRE_CHECK(e.index == 0 || (e.index == 1 && space_.discretization().dims == 2), ConfigError,
                  "coordinate '", e.name, "' does not exist here (allowed: x",
                  space_.discretization().dims == 2 ? ", y, t)" : ", t)");
      Instr i{Code::Coordinate, new_grid(true)};
      i.n = e.index;
      emit(i, true);
      return {Rep::Grid, i.dst, true, false};
    }
    case Op::Field:
      SPIRE_CHECK(allow_fields_, ValueError, "expression uses field '", e.name,
                  "' where only x, y and t are allowed");
      SPIRE_CHECK(e.index >= 0 && e.index < field_count, ValueError, "field '", e.name, "' has index ",
                  e.index, "; the problem has ", field_count, " fields");
      return {Rep::Field, e.index, false, false};
    case Op::Neg: return negate(compile(*e.args[0]));
    case Op::Add:
    case Op::Sub: return add_sub(e.op, compile(*e.args[0]), compile(*e.args[1]));
    case Op::Mul:
    case Op::Div: return mul_div(e.op, compile(*e.args[0]), compile(*e.args[1]));
    case Op::Pow: return power(compile(*e.args[0]), compile(*e.args[1]));
    case Op::Call: {
      const Fn fn = function_of(e.name);
      Val a = compile(*e.args[0]);
      if (a.rep == Rep::Scalar) return scalar_unary(int(fn), a);
      Instr i{Code::GCall};
      i.a = grid_of(a);
      Val ga{Rep::Grid, i.a, a.constant, a.owned || a.rep == Rep::Coef};
      i.dst = reuse_grid(ga, a.constant);
      i.fn = int(fn);
      emit(i, a.constant);
      return grid_val(i.dst, a.constant);
    }
    case Op::Diff: return derivative(e);
    case Op::Laplacian: {
      auto d = [&](int axis) { return diff(axis, diff(axis, e.args[0])); };
      ExprPtr lowered = space_.discretization().dims == 2 ? binary(Op::Add, d(0), d(1)) : d(0);
      return compile(*lowered);
    }
    case Op::Parameter: {
      // Trees from parse_expression (initial values, coefficients) keep their parameters.
      const auto it = parameters.find(e.name);
      if (it != parameters.end()) return scalar_val(it->second);
      std::vector<std::string> known;
      for (const auto& [name, value] : parameters) known.push_back(name);
      throw ConfigError(detail::cat("unknown parameter '", e.name, "' (parameters: ",
                                    known.empty() ? std::string("none") : detail::join(known), ")"));
    }
  }
  throw ValueError("evaluate: unknown expression node");
}

int ExprProgram::coef_of(Val v) {
  switch (v.rep) {
    case Rep::Coef: return v.reg;
    case Rep::Field: {
      if (field_coef_.size() <= size_t(v.reg)) field_coef_.resize(v.reg + 1, -1);
      if (field_coef_[v.reg] < 0) {
        Instr i{Code::FieldCoef, new_coef(true)};
        i.n = v.reg;
        emit(i, false);
        field_coef_[v.reg] = i.dst;
      }
      return field_coef_[v.reg];
    }
    case Rep::Grid: {
      Instr i{Code::ToCoef, new_coef(v.constant), v.reg};
      emit(i, v.constant);
      release(v);
      return i.dst;
    }
    case Rep::Scalar: {
      Instr i{Code::CFromScalar, new_coef(v.constant), v.reg};
      emit(i, v.constant);
      return i.dst;
    }
  }
  return -1;
}

int ExprProgram::output_of(Val v) {
  if (v.rep != Rep::Grid || v.constant) return coef_of(v);
  Instr i{Code::ToCoef, new_coef(false), v.reg};
  i.n = 1;
  emit(i, false);
  release(v);
  return i.dst;
}

int ExprProgram::grid_of(Val v) {
  switch (v.rep) {
    case Rep::Grid: return v.reg;
    case Rep::Field: {
      if (field_grid_.size() <= size_t(v.reg)) field_grid_.resize(v.reg + 1, -1);
      if (field_grid_[v.reg] < 0) {
        const int c = coef_of(v);
        Instr i{Code::ToGrid, new_grid(true), c};
        i.n = 2;  // padded field coefficients are band-limited
        emit(i, false);
        field_grid_[v.reg] = i.dst;
      }
      return field_grid_[v.reg];
    }
    case Rep::Coef: {
      Instr i{Code::ToGrid, new_grid(v.constant), v.reg};
      i.n = (v.owned && !v.constant ? 1 : 0) | (v.band ? 2 : 0);
      emit(i, v.constant);
      release(v);
      return i.dst;
    }
    case Rep::Scalar: throw ValueError("evaluate: a scalar has no grid register");
  }
  return -1;
}

void ExprProgram::exec(const Instr& in) {
  double* s = scalars_.data();
  switch (in.code) {
    case Code::ST: s[in.dst] = t_; return;
    case Code::SUnary: s[in.dst] = in.fn < 0 ? -s[in.a] : apply(Fn(in.fn), s[in.a]); return;
    case Code::SBinary: s[in.dst] = apply(in.op, s[in.a], s[in.b]); return;
    case Code::FieldCoef: {
      const cplx* f = (*fields_)[in.n];
      if (padded_) space_.pad(f, coef(in.dst));
      else std::memcpy(static_cast<void*>(coef(in.dst)), f, nc_ * sizeof(cplx));
      return;
    }
    case Code::FieldDiff: {
      const cplx* f = (*fields_)[in.a];
      cplx* d = coef(in.dst);
      if (fourier_ && padded_) {
        fourier_->pad_derivative(f, d, in.n, in.m);
        return;
      }
      space_.pad(f, d);
      if (in.n) space_.differentiate(d, d, 0, in.n, padded_);
      if (in.m) space_.differentiate(d, d, 1, in.m, padded_);
      return;
    }
    case Code::Coordinate: {
      double* d = grid(in.dst);
      const auto& x = space_.coordinates(0, padded_);
      if (space_.discretization().dims == 1) {
        std::copy(x.begin(), x.end(), d);
        return;
      }
      const auto& y = space_.coordinates(1, padded_);
      for (size_t i = 0; i < x.size(); ++i)
        for (size_t j = 0; j < y.size(); ++j) d[i * y.size() + j] = in.n == 0 ? x[i] : y[j];
      return;
    }
    case Code::GBinary: {
      double* d = grid(in.dst);
      const double* a = in.ka ? &s[in.a] : grid(in.a);
      const double* b = in.kb ? &s[in.b] : grid(in.b);
      switch (in.op) {
        case Op::Add: map2(d, a, in.ka, b, in.kb, ng_, [](double x, double y) { return x + y; }); return;
        case Op::Sub: map2(d, a, in.ka, b, in.kb, ng_, [](double x, double y) { return x - y; }); return;
        case Op::Mul: map2(d, a, in.ka, b, in.kb, ng_, [](double x, double y) { return x * y; }); return;
        case Op::Div: map2(d, a, in.ka, b, in.kb, ng_, [](double x, double y) { return x / y; }); return;
        default: map2(d, a, in.ka, b, in.kb, ng_, [](double x, double y) { return std::pow(x, y); }); return;
      }
    }
    case Code::GNeg: map1(grid(in.dst), grid(in.a), ng_, [](double x) { return -x; }); return;
    case Code::GCall: {
      double* d = grid(in.dst);
      const double* a = grid(in.a);
      switch (Fn(in.fn)) {
        case Fn::Sin: map1(d, a, ng_, [](double x) { return std::sin(x); }); return;
        case Fn::Cos: map1(d, a, ng_, [](double x) { return std::cos(x); }); return;
        case Fn::Exp: map1(d, a, ng_, [](double x) { return std::exp(x); }); return;
        case Fn::Sqrt: map1(d, a, ng_, [](double x) { return std::sqrt(x); }); return;
        case Fn::Abs: map1(d, a, ng_, [](double x) { return std::fabs(x); }); return;
        case Fn::Tanh: map1(d, a, ng_, [](double x) { return std::tanh(x); }); return;
        default: {
          const Fn f = Fn(in.fn);
          map1(d, a, ng_, [f](double x) { return apply(f, x); });
          return;
        }
      }
    }
    case Code::GPowInt: {
      double* d = grid(in.dst);
      const double* a = grid(in.a);
      switch (in.n) {
        case 0: std::fill(d, d + ng_, 1.0); return;
        case 1: map1(d, a, ng_, [](double x) { return x; }); return;
        case 2: map1(d, a, ng_, [](double x) { return x * x; }); return;
        case 3: map1(d, a, ng_, [](double x) { return x * x * x; }); return;
        case 4: map1(d, a, ng_, [](double x) { double q = x * x; return q * q; }); return;
        default: {
          const int n = in.n;
          map1(d, a, ng_, [n](double x) { return int_power(x, n); });
          return;
        }
      }
    }
    case Code::CAdd: {
      cplx *d = coef(in.dst), *a = coef(in.a), *b = coef(in.b);
      for (size_t k = 0; k < nc_; ++k) d[k] = a[k] + b[k];
      return;
    }
    case Code::CSub: {
      cplx *d = coef(in.dst), *a = coef(in.a), *b = coef(in.b);
      for (size_t k = 0; k < nc_; ++k) d[k] = a[k] - b[k];
      return;
    }
    case Code::CScale: {
      cplx *d = coef(in.dst), *a = coef(in.a);
      const double f = in.n == 1 ? 1 / s[in.b] : s[in.b];
      for (size_t k = 0; k < nc_; ++k) d[k] = a[k] * f;
      return;
    }
    case Code::CNeg: {
      cplx *d = coef(in.dst), *a = coef(in.a);
      for (size_t k = 0; k < nc_; ++k) d[k] = -a[k];
      return;
    }
    case Code::CAddScalar: {
      cplx *d = coef(in.dst), *a = coef(in.a);
      if (in.n & 1)
        for (size_t k = 0; k < nc_; ++k) d[k] = -a[k];
      else if (d != a)
        std::memcpy(static_cast<void*>(d), a, nc_ * sizeof(cplx));
      d[0] += in.n & 2 ? -s[in.b] : s[in.b];
      return;
    }
    case Code::CFromScalar: {
      cplx* d = coef(in.dst);
      std::fill(d, d + nc_, cplx(0));
      d[0] = s[in.a];
      return;
    }
    case Code::CDiff: {
      const cplx* a = coef(in.a);
      cplx* d = coef(in.dst);
      if (in.n) {
        space_.differentiate(a, d, 0, in.n, padded_);
        a = d;
      }
      if (in.m) space_.differentiate(a, d, 1, in.m, padded_);
      return;
    }
    case Code::ToCoef:
      if (fourier_ && padded_ && in.n == 1) fourier_->forward_band_limited(grid(in.a), coef(in.dst));
      else space_.forward(grid(in.a), coef(in.dst), padded_);
      return;
    case Code::ToGrid:
      if (fourier_ && padded_ && (in.n & 2))
        fourier_->backward_band_limited(coef(in.a), grid(in.dst), in.n & 1);
      else if (fourier_ && (in.n & 1)) fourier_->backward_destroying(coef(in.a), grid(in.dst), padded_);
      else space_.backward(coef(in.a), grid(in.dst), padded_);
      return;
  }
}

}  // namespace spire::flow
