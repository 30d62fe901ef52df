// The compiled form of an expression (evaluate.h's machinery): a flat list of instructions on
// preallocated registers, built once per expression tree and run once per call.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "science/flow/expr.h"
#include "science/flow/fftw_plans.h"
#include "science/flow/fourier.h"
#include "science/flow/space.h"

namespace spire::flow {

namespace expr_program {

enum class Code {
  ST,           // s[dst] = t
  SUnary,       // s[dst] = fn(s[a]) (fn < 0: negation)
  SBinary,      // s[dst] = s[a] op s[b]
  FieldCoef,    // c[dst] = pad(field n)
  FieldDiff,    // c[dst] = dx^n dy^m pad(field a)
  Coordinate,   // g[dst] = coordinate n (axis)
  GBinary,      // g[dst] = a op b; ka/kb: operand is a scalar register
  GNeg,         // g[dst] = -g[a]
  GCall,        // g[dst] = fn(g[a])
  GPowInt,      // g[dst] = g[a]^n
  CAdd,         // c[dst] = c[a] + c[b]
  CSub,         // c[dst] = c[a] - c[b]
  CScale,       // c[dst] = c[a] * s[b]  (n = 1: / s[b])
  CNeg,         // c[dst] = -c[a]
  CAddScalar,   // c[dst] = (n & 1 ? -c[a] : c[a]); c[dst][0] += (n & 2 ? -s[b] : s[b])
  CFromScalar,  // c[dst] = s[a] as a constant
  CDiff,        // c[dst] = dx^n dy^m c[a]
  ToCoef,       // c[dst] = forward(g[a]); n = 1: only the unpadded modes are read afterwards
  ToGrid,       // g[dst] = backward(c[a]); n & 1: c[a] is dead afterwards and may be overwritten;
                //   n & 2: c[a] is band-limited (FourierSpace::backward_band_limited)
};

struct Instr {
  Code code;
  int dst = -1, a = -1, b = -1;
  bool ka = false, kb = false;  // GBinary: operand a / b is a scalar register
  Op op = Op::Add;
  int fn = -1;
  int n = 0, m = 0;
};

}  // namespace expr_program

// One compiled program at one size of the space (padded for the explicit terms).
class ExprProgram {
 public:
  enum class Rep { Scalar, Grid, Coef, Field };
  struct Val {
    Rep rep = Rep::Scalar;
    int reg = -1;           // register (field index for Field)
    bool constant = true;   // no field and no t below
    bool owned = false;     // a temporary the consumer may overwrite or free
    bool band = false;      // Coef: zero beyond the unpadded modes (fields, and their derivatives and sums)
  };

  ExprProgram(const Space& space, bool padded, bool allow_fields)
      : space_(space), fourier_(dynamic_cast<const FourierSpace*>(&space)), padded_(padded),
        allow_fields_(allow_fields), ng_(space.grid_size(padded)), nc_(space.coeff_size(padded)) {}

  Val compile(const Expr& e);
  int field_count = 0;  // fields the compiled expressions may name
  std::map<std::string, double> parameters;  // values of Parameter nodes
  int coef_of(Val v);   // coefficient register holding v
  int grid_of(Val v);   // grid register holding v
  int output_of(Val v);  // coef_of for a value only truncate() reads (the unpadded modes)

  void run_once() {
    for (const expr_program::Instr& i : once_) exec(i);
  }
  void run(const std::vector<const cplx*>* fields, double t) {
    fields_ = fields;
    t_ = t;
    for (const expr_program::Instr& i : each_) exec(i);
  }

  double* grid(int r) { return grids_[r].data(); }
  cplx* coef(int r) { return coefs_[r].data(); }
  double scalar(int r) const { return scalars_[r]; }

 private:
  const Space& space_;
  const FourierSpace* fourier_;  // for its faster backward_destroying; null for other spaces
  bool padded_, allow_fields_;
  size_t ng_, nc_;
  std::vector<AlignedVector<double>> grids_;
  std::vector<AlignedVector<cplx>> coefs_;
  std::vector<double> scalars_;
  std::vector<int> free_grids_, free_coefs_;
  std::vector<expr_program::Instr> once_, each_;
  std::vector<int> field_coef_, field_grid_;
  const std::vector<const cplx*>* fields_ = nullptr;
  double t_ = 0;

  void emit(const expr_program::Instr& i, bool constant) { (constant ? once_ : each_).push_back(i); }

  int new_scalar(double v = 0) {
    scalars_.push_back(v);
    return int(scalars_.size()) - 1;
  }
  // Constants keep their registers for good; temporaries come from, and go back to, a pool.
  int new_grid(bool constant) {
    if (!constant && !free_grids_.empty()) {
      int r = free_grids_.back();
      free_grids_.pop_back();
      return r;
    }
    grids_.emplace_back(ng_);
    return int(grids_.size()) - 1;
  }
  int new_coef(bool constant) {
    if (!constant && !free_coefs_.empty()) {
      int r = free_coefs_.back();
      free_coefs_.pop_back();
      return r;
    }
    coefs_.emplace_back(nc_);
    return int(coefs_.size()) - 1;
  }
  void release(const Val& v) {
    if (!v.owned || v.constant) return;
    if (v.rep == Rep::Grid) free_grids_.push_back(v.reg);
    if (v.rep == Rep::Coef) free_coefs_.push_back(v.reg);
  }
  // The destination of a unary array operation on v: v's own register when it is a temporary.
  int reuse_grid(const Val& v, bool constant) {
    return v.owned && !v.constant && v.rep == Rep::Grid ? v.reg : new_grid(constant);
  }
  int reuse_coef(const Val& v, bool constant) {
    return v.owned && !v.constant && v.rep == Rep::Coef ? v.reg : new_coef(constant);
  }

  Val scalar_val(double v) { return {Rep::Scalar, new_scalar(v), true, false}; }
  Val grid_val(int r, bool constant) { return {Rep::Grid, r, constant, true}; }
  Val coef_val(int r, bool constant, bool band) { return {Rep::Coef, r, constant, true, band}; }
  static bool band_of(const Val& v) { return v.rep == Rep::Field || (v.rep == Rep::Coef && v.band); }

  Val scalar_unary(int fn, const Val& a);
  Val scalar_binary(Op op, const Val& a, const Val& b);
  Val add_sub(Op op, Val a, Val b);
  Val mul_div(Op op, Val a, Val b);
  Val power(Val a, Val b);
  Val grid_binary(Op op, Val a, Val b);
  Val derivative(const Expr& e);
  Val negate(Val a);
  // A sum of scalar multiples of derivatives (the linear nodes above the nonlinear leaves):
  // grouped by derivative order so each group costs one forward transform (see the .cpp).
  bool linear_node(const Expr& e) const;
  Val linear(const Expr& e);

  void exec(const expr_program::Instr& i);
};

}  // namespace spire::flow
