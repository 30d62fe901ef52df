#include "science/flow/chebyshev.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "science/flow/fftw_plans.h"
#include "science/flow/parser.h"
#include "science/flow/ultraspherical.h"

namespace spire::flow {

namespace {

// The smallest N >= n with N - 1 a product of 2, 3, 5 and 7 (REDFT00 of size N is a real DFT of
// size 2 (N - 1)).
int fftw_friendly(int n) {
  for (int N = n;; ++N) {
    int m = N - 1;
    for (int f : {2, 3, 5, 7})
      while (m % f == 0) m /= f;
    if (m == 1) return N;
  }
}

const char* order_word(int K) {
  static const char* words[] = {"zeroth", "first", "second", "third", "fourth", "fifth", "sixth"};
  return K < 7 ? words[K] : "high";
}

const char* side_name(int side) { return side == 0 ? "left" : "right"; }

// Scratch for the transforms, one per thread, grown once (aligned, so FFTW can use SIMD plans).
double* scratch(size_t n) {
  thread_local AlignedVector<double> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

class ChebyshevSpace final : public Space {
 public:
  explicit ChebyshevSpace(const Discretization& d) : d_(d) {
    n_[0] = d.nx;
    n_[1] = d.dealias == 1.0 ? d.nx : fftw_friendly(int(std::ceil(d.dealias * d.nx - 1e-9)));
    dxi_dx_ = 2.0 / (d.x1 - d.x0);
    for (int k = 0; k < 2; ++k) {
      const int N = n_[k];
      auto& x = x_[k];
      x.resize(size_t(N));
      // xi_j = -cos(pi j / (N - 1)), written as a sine so that the grid is symmetric to the bit
      const double mid = 0.5 * (d.x0 + d.x1), half = 0.5 * (d.x1 - d.x0);
      for (int j = 0; j < N; ++j) x[size_t(j)] = mid + half * std::sin(M_PI * (2 * j - (N - 1)) / (2.0 * (N - 1)));
      x.front() = d.x0;
      x.back() = d.x1;
      plan_[k] = &fft_plan(FftKind::Redft00, {N});
    }
  }

  const Discretization& discretization() const override { return d_; }
  std::vector<int> grid_shape(bool padded) const override { return {n_[padded]}; }
  size_t grid_size(bool padded) const override { return size_t(n_[padded]); }
  const std::vector<double>& coordinates(int axis, bool padded) const override {
    SPIRE_CHECK(axis == 0, ValueError, "chebyshev space: axis ", axis, " does not exist (1D, axis 0 is x)");
    return x_[padded];
  }
  int pencil_count(bool) const override { return 1; }
  int unknowns_per_pencil(bool padded) const override { return n_[padded]; }

  // On the increasing grid xi_j = -cos(pi j / (N-1)), u_j = sum_i c_i (-1)^i cos(pi i j / (N-1)),
  // which is REDFT00 of (-1)^i c_i with the inner coefficients halved.
  void forward(const double* grid, cplx* coeffs, bool padded) const override {
    const int N = n_[padded];
    double* y = scratch(size_t(N));
    plan_[padded]->r2r(grid, y);
    const double inner = 1.0 / (N - 1);
    for (int i = 0; i < N; ++i) {
      double v = y[i] * inner * ((i & 1) ? -1.0 : 1.0);
      if (i == 0 || i == N - 1) v *= 0.5;
      coeffs[i] = cplx(v, 0.0);
    }
  }
  void backward(const cplx* coeffs, double* grid, bool padded) const override {
    const int N = n_[padded];
    double* y = scratch(size_t(N));
    for (int i = 0; i < N; ++i) {
      double v = coeffs[i].real() * ((i & 1) ? -1.0 : 1.0);
      if (i != 0 && i != N - 1) v *= 0.5;
      y[i] = v;
    }
    plan_[padded]->r2r(y, grid);
  }
  void pad(const cplx* coeffs, cplx* padded) const override {
    std::copy(coeffs, coeffs + n_[0], padded);
    std::fill(padded + n_[0], padded + n_[1], cplx(0.0));
  }
  void truncate(const cplx* padded, cplx* coeffs) const override {
    std::copy(padded, padded + n_[0], coeffs);
  }

  // c'_{k-1} = c'_{k+1} + 2 k c_k from the top down, c'_0 halved; two running values carry the
  // recurrence so that in and out may be the same array.
  void differentiate(const cplx* in, cplx* out, int axis, int order, bool padded) const override {
    SPIRE_CHECK(axis == 0, ValueError, "chebyshev space: no derivative along axis ", axis, " (1D)");
    const int N = n_[padded];
    if (order == 0) {
      if (in != out) std::copy(in, in + N, out);
      return;
    }
    const cplx* src = in;
    for (int o = 0; o < order; ++o) {
      cplx above(0.0), here(0.0);  // c'_{k+1}, c'_k
      for (int k = N - 1; k >= 1; --k) {
        const cplx below = above + (2.0 * k * dxi_dx_) * src[k];
        out[k] = here;
        above = here;
        here = below;
      }
      out[0] = 0.5 * here;
      src = out;
    }
  }

  void matrices(int p, const Problem& problem, Eigen::MatrixXcd& M, Eigen::MatrixXcd& L) const override {
    check_problem(p, problem);
    const int n = n_[0];
    const int E = int(problem.equations.size()), F = int(problem.fields.size());
    M.setZero(Eigen::Index(E) * n, Eigen::Index(F) * n);
    L.setZero(Eigen::Index(E) * n, Eigen::Index(F) * n);
    std::vector<double> row(static_cast<size_t>(n));
    for (int e = 0; e < E; ++e) {
      const Equation& eq = problem.equations[size_t(e)];
      const int K = basis_order(eq);
      const auto bcs = checked_boundary_conditions(problem, e, K);
      // One sparse operator per derivative order, shared by every term of that order.
      std::vector<ultraspherical::Sparse> ops(size_t(K + 1));
      std::vector<bool> made(size_t(K + 1), false);
      auto add = [&](const std::vector<LinearTerm>& terms, Eigen::MatrixXcd& A) {
        for (const LinearTerm& t : terms) {
          if (!made[size_t(t.dx)]) ops[size_t(t.dx)] = ultraspherical::operator_matrix(t.dx, K, n);
          made[size_t(t.dx)] = true;
          double c = t.coefficient;
          for (int k = 0; k < t.dx; ++k) c *= dxi_dx_;
          const auto& op = ops[size_t(t.dx)];
          for (int col = 0; col < op.outerSize(); ++col)
            for (ultraspherical::Sparse::InnerIterator it(op, col); it; ++it)
              A(Eigen::Index(e) * n + it.row(), Eigen::Index(t.field) * n + col) += c * it.value();
        }
      };
      add(eq.mass, M);
      add(eq.linear, L);
      // The tau rows: the top K modes of C^(K) give way to the boundary conditions.
      const int field = eq.field;
      for (int r = 0; r < K; ++r) {
        const Eigen::Index i = Eigen::Index(e) * n + n - K + r;
        M.row(i).setZero();
        L.row(i).setZero();
        const BoundaryCondition& bc = *bcs[size_t(r)];
        ultraspherical::boundary_row(row.data(), n, bc.side, bc.a, bc.b, dxi_dx_);
        for (int j = 0; j < n; ++j) L(i, Eigen::Index(field) * n + j) = row[size_t(j)];
      }
    }
  }

  void rhs(int p, const Problem& problem, const std::vector<const cplx*>& F, double t,
           cplx* out) const override {
    check_problem(p, problem);
    const int n = n_[0];
    const int E = int(problem.equations.size());
    SPIRE_CHECK(int(F.size()) == E, ValueError, "chebyshev rhs: ", F.size(), " explicit terms for ",
                E, " equations");
    for (int e = 0; e < E; ++e) {
      const Equation& eq = problem.equations[size_t(e)];
      const int K = basis_order(eq);
      cplx* o = out + size_t(e) * size_t(n);
      if (F[size_t(e)])
        std::copy(F[size_t(e)], F[size_t(e)] + n, o);
      else
        std::fill(o, o + n, cplx(0.0));
      ultraspherical::convert(o, n, 0, K);
      if (K == 0) continue;
      // Same order as matrices(): left, then right (checked there; counted again here cheaply).
      int r = 0;
      for (int side = 0; side < 2; ++side)
        for (const BoundaryCondition& bc : problem.bcs)
          if (bc.field == eq.field && bc.side == side && r < K)
            o[n - K + r++] = cplx(bc.g ? evaluate_point(*bc.g, 0, 0, t, {}) : 0.0, 0.0);
      SPIRE_CHECK(r == K, ConfigError, "chebyshev rhs: equation ", e + 1, " has ", r,
                  " boundary conditions for ", K, " tau rows");
    }
  }

 private:
  void check_problem(int p, const Problem& problem) const {
    SPIRE_CHECK(p == 0, ValueError, "chebyshev space: pencil ", p, " does not exist (one pencil)");
    SPIRE_CHECK(problem.dims == 1, ConfigError,
                "the chebyshev basis is one-dimensional; the problem has ", problem.dims, " dimensions");
  }
  // The equation's x order, and at least that of each implicit term (x_order should already say).
  static int basis_order(const Equation& eq) {
    int K = eq.x_order;
    for (const auto* terms : {&eq.mass, &eq.linear})
      for (const LinearTerm& t : *terms) {
        SPIRE_CHECK(t.dy == 0, ConfigError, eq.where, ": dy has no meaning with the one-dimensional",
                    " chebyshev basis");
        K = std::max(K, t.dx);
      }
    return K;
  }

  Discretization d_;
  int n_[2];  // unpadded, padded
  double dxi_dx_;
  std::vector<double> x_[2];
  const FftPlan* plan_[2];  // cached for the process (fftw_plans.h)
};

}  // namespace

std::vector<const BoundaryCondition*> checked_boundary_conditions(const Problem& problem, int equation,
                                                                  int K) {
  const Equation& eq = problem.equations[size_t(equation)];
  const std::string name = problem.fields[size_t(eq.field)];
  const BoundaryCondition* by_side[2] = {nullptr, nullptr};
  for (const BoundaryCondition& bc : problem.bcs) {
    if (bc.field != eq.field) continue;
    SPIRE_CHECK(!by_side[bc.side], ConfigError, bc.where, ": a second ", side_name(bc.side),
                " boundary condition for ", name, " (one per side)");
    by_side[bc.side] = &bc;
  }
  std::vector<const BoundaryCondition*> out;
  std::vector<std::string> given, missing;
  for (int side = 0; side < 2; ++side) {
    if (by_side[side]) {
      out.push_back(by_side[side]);
      given.push_back(side_name(side));
    } else {
      missing.push_back(side_name(side));
    }
  }
  if (int(out.size()) == K) return out;

  std::string head = detail::cat("equation ", equation + 1, " (", name, ") ");
  if (K == 0)
    head += "has no x derivatives and needs no boundary conditions";
  else
    head += detail::cat("is ", order_word(K), " order in x and needs ", K, " boundary condition",
                        K == 1 ? " (left or right)" : K == 2 ? "s (left and right)" : "s");
  std::string gives = detail::cat("[bc] gives ", out.size(), given.empty() ? "" : ": ", detail::join(given));
  if (K > 2)
    throw ConfigError(detail::cat(head, ", but [bc] can give at most 2 (left and right); write it as a",
                                  " system of equations of at most second order in x"));
  if (int(out.size()) < K)
    throw ConfigError(detail::cat(head, "; ", gives, "; missing: ", detail::join(missing)));
  throw ConfigError(detail::cat(head, "; ", gives, K == 0 ? "; remove them" : "; one too many"));
}

std::unique_ptr<Space> make_chebyshev_space(const Discretization& d) {
  SPIRE_CHECK(d.basis == "chebyshev", ConfigError, "make_chebyshev_space: basis is '", d.basis, "'");
  SPIRE_CHECK(d.dims == 1, ConfigError, "discretization.basis = \"chebyshev\" is one-dimensional; the",
              " domain has ", d.dims, " dimensions (use fourier in 2D)");
  SPIRE_CHECK(!d.periodic, ConfigError, "discretization.basis = \"chebyshev\" needs domain.periodic =",
              " false (with [bc]); use fourier for periodic domains");
  SPIRE_CHECK(d.nx >= 4, ConfigError, "discretization.n = ", d.nx, " is too small for chebyshev (>= 4)");
  SPIRE_CHECK(d.dealias >= 1, ConfigError, "discretization.dealias = ", d.dealias, " must be >= 1");
  SPIRE_CHECK(d.x0 < d.x1 && std::isfinite(d.x0) && std::isfinite(d.x1), ConfigError, "domain.x = [",
              d.x0, ", ", d.x1, "] must be an interval with x0 < x1");
  return std::make_unique<ChebyshevSpace>(d);
}

}  // namespace spire::flow
