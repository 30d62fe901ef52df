#include "science/flow/pencils.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/core/error.h"
#include "science/flow/fourier.h"

namespace spire::flow {

bool lu_factor(cplx* A, int* piv, int n, double threshold) {
  // Squared moduli throughout: no hypot in the O(n^2) scans.
  double scale = 0;
  for (int i = 0; i < n * n; ++i) scale = std::max(scale, std::norm(A[i]));
  if (!(scale > 0) || !std::isfinite(scale)) return n == 0;
  // A pivot this small relative to the matrix is a structural zero blurred by rounding.
  const double tiny = 1e-28 * scale, keep = threshold * threshold;
  std::vector<int> nonzero;  // columns > k where the pivot row is not zero
  nonzero.reserve(n);
  for (int k = 0; k < n; ++k) {
    int best = k;
    const double diagonal = std::norm(A[k * n + k]);
    double big = diagonal;
    for (int i = k + 1; i < n; ++i) {
      double v = std::norm(A[i * n + k]);
      if (v > big) big = v, best = i;
    }
    if (!(big > tiny)) return false;
    // Threshold pivoting (as UMFPACK and SuperLU): the diagonal stays the pivot unless it is far
    // below the column's largest entry, so that sparse rows keep their sparsity.
    if (diagonal >= keep * big) best = k;
    piv[k] = best;
    if (best != k)
      for (int j = 0; j < n; ++j) std::swap(A[k * n + j], A[best * n + j]);
    const cplx inv = 1.0 / A[k * n + k];
    A[k * n + k] = inv;  // kept as its reciprocal: solves multiply (complex division is slow)
    const cplx* top = A + k * n;
    nonzero.clear();
    for (int j = k + 1; j < n; ++j)
      if (top[j] != cplx(0)) nonzero.push_back(j);
    for (int i = k + 1; i < n; ++i) {
      if (A[i * n + k] == cplx(0)) continue;
      const cplx l = mul(A[i * n + k], inv);
      A[i * n + k] = l;
      cplx* row = A + i * n;
      for (int j : nonzero) row[j] -= mul(l, top[j]);
    }
  }
  return true;
}

void lu_solve(const cplx* LU, const int* piv, int n, cplx* x) {
  for (int k = 0; k < n; ++k)
    if (piv[k] != k) std::swap(x[k], x[piv[k]]);
  for (int i = 1; i < n; ++i) {
    cplx s = x[i];
    const cplx* row = LU + i * n;
    for (int j = 0; j < i; ++j) s -= mul(row[j], x[j]);
    x[i] = s;
  }
  for (int i = n - 1; i >= 0; --i) {
    cplx s = x[i];
    const cplx* row = LU + i * n;
    for (int j = i + 1; j < n; ++j) s -= mul(row[j], x[j]);
    x[i] = mul(s, row[i]);
  }
}

Pencils::Pencils(const Problem& problem, const Space& space) : space_(space), problem_(problem) {
  fields_ = int(problem.fields.size());
  equations_ = int(problem.equations.size());
  unknowns_ = space.unknowns_per_pencil(false);
  const int P = space.pencil_count(false), u = unknowns_;
  SPIRE_CHECK(equations_ == fields_, ConfigError, "the problem has ", equations_, " equations for ", fields_,
              " fields; each field needs one equation");
  offset_.assign(1, 0);
  moffset_.assign(1, 0);
  // Sized here, so that a space compiled with other alignment flags need not reallocate them.
  Eigen::MatrixXcd M(equations_ * u, fields_ * u), L(equations_ * u, fields_ * u);
  std::vector<int> rows, cols;
  for (int p = 0; p < P; ++p) {
    M.setZero();
    L.setZero();
    space.matrices(p, problem, M, L);
    SPIRE_CHECK(M.rows() == equations_ * u && M.cols() == fields_ * u && L.rows() == M.rows() &&
                    L.cols() == M.cols(),
                ConfigError, "pencil ", p, ": matrices of ", M.rows(), "x", M.cols(), ", expected ",
                equations_ * u, "x", fields_ * u);
    rows.clear();
    cols.clear();
    std::vector<bool> dropped(fields_, false);
    for (int f = 0; f < fields_; ++f) {
      bool zero = true;
      for (int j = f * u; j < (f + 1) * u && zero; ++j)
        zero = !(M.col(j).array() != cplx(0)).any() && !(L.col(j).array() != cplx(0)).any();
      dropped[f] = zero;
      if (!zero)
        for (int j = f * u; j < (f + 1) * u; ++j) cols.push_back(j);
    }
    for (int e = 0; e < equations_; ++e) {
      if (dropped[problem.equations[e].field]) continue;
      for (int i = 0; i < u; ++i) rows.push_back(e * u + i);
    }
    for (int f = 0; f < fields_; ++f)
      if (dropped[f])
        for (int i = 0; i < u; ++i) dropped_.push_back(size_t(f) * space.coeff_size(false) + size_t(p) * u + i);
    SPIRE_CHECK(rows.size() == cols.size(), ConfigError, "pencil ", p, " has ", rows.size(),
                " equation rows for ", cols.size(), " unknowns after dropping the fields it does not determine");
    const int n = int(rows.size());
    if (n > 1) scalar_ = false;
    const size_t at = M_.size();
    M_.resize(at + size_t(n) * n);
    L_.resize(at + size_t(n) * n);
    using RowMajor = Eigen::Matrix<cplx, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    if (n == M.rows() && n == M.cols()) {  // nothing dropped: a transposing copy
      Eigen::Map<RowMajor>(M_.data() + at, n, n) = M;
      Eigen::Map<RowMajor>(L_.data() + at, n, n) = L;
    } else {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          M_[at + size_t(i) * n + j] = M(rows[i], cols[j]);
          L_[at + size_t(i) * n + j] = L(rows[i], cols[j]);
        }
    }
    rows_.insert(rows_.end(), rows.begin(), rows.end());
    cols_.insert(cols_.end(), cols.begin(), cols.end());
    offset_.push_back(offset_.back() + n);
    moffset_.push_back(moffset_.back() + n * n);
  }
  rhs_scratch_.resize(size_t(equations_) * u);
  identity_ = fields_ == 1 && u == 1 && size() == size_t(P);
  copy_rhs_ = dynamic_cast<const FourierSpace*>(&space) != nullptr;
  field_ptrs_.resize(fields_);

  if (u > 1) {
    // The x order of the equation that closes each field, as the tau method counts it.
    std::vector<int> order(fields_, 0);
    for (const Equation& eq : problem.equations) {
      int K = eq.x_order;
      for (const auto* terms : {&eq.mass, &eq.linear})
        for (const LinearTerm& t : *terms) K = std::max(K, t.dx);
      order[eq.field] = std::min(K, u);
    }
    perm_.resize(size());
    for (int p = 0; p < count(); ++p) {
      std::vector<std::pair<long, int>> key;
      for (int k = offset_[p]; k < offset_[p + 1]; ++k) {
        const int f = cols_[k] / u, i = cols_[k] % u;
        key.push_back({long(f) * u + (i - order[f] + u) % u, k});
      }
      std::sort(key.begin(), key.end());
      for (size_t j = 0; j < key.size(); ++j) perm_[offset_[p] + j] = key[j].second;
    }
    solve_scratch_.resize(size());
  }
  if (!scalar_)
    for (auto [dense, sparse] : {std::pair{&M_, &Ms_}, std::pair{&L_, &Ls_}}) {
      sparse->start.assign(1, 0);
      for (int p = 0; p < count(); ++p) {
        const int n = size(p);
        const cplx* A = dense->data() + moffset_[p];
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j)
            if (A[i * n + j] != cplx(0)) sparse->col.push_back(offset_[p] + j), sparse->val.push_back(A[i * n + j]);
          sparse->push_row();
        }
      }
    }

  // Constraint rows (M zero) paired with constrained columns (M zero) of the same count.
  for (int p = 0; p < count(); ++p) {
    const int n = size(p);
    const cplx* Mp = M_.data() + moffset_[p];
    const cplx* Lp = L_.data() + moffset_[p];
    Constraint c{p, {}, {}, {}, {}, {}};
    std::vector<int> zero_rows;
    std::vector<char> row_used(n, 0), col_used(n, 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (Mp[i * n + j] != cplx(0)) row_used[i] = col_used[j] = 1;
    for (int i = 0; i < n; ++i) {
      if (!row_used[i]) zero_rows.push_back(i);
      if (!col_used[i]) c.cols.push_back(i); else c.free_cols.push_back(i);
    }
    // Of the rows without dt, those that involve a constrained unknown: the others (a Chebyshev
    // pencil's boundary rows of evolved fields) constrain only the evolved unknowns.
    for (int i : zero_rows) {
      bool touches = false;
      for (int j : c.cols) touches = touches || Lp[i * n + j] != cplx(0);
      if (touches) c.rows.push_back(i);
    }
    if (c.rows.empty() || c.rows.size() != c.cols.size()) continue;
    const int m = int(c.rows.size());
    c.lu.resize(size_t(m) * m);
    c.piv.resize(m);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) c.lu[i * m + j] = Lp[c.rows[i] * n + c.cols[j]];
    if (lu_factor(c.lu.data(), c.piv.data(), m)) constraint_pencils_.push_back(std::move(c));
  }
}

void Pencils::gather(const std::vector<const cplx*>& fields, cplx* X) const {
  const int u = unknowns_;
  const int P = count();
  if (identity_) {
    std::copy(fields[0], fields[0] + size(), X);
    return;
  }
  if (u == 1) {  // Fourier: the column is the field, the pencil the index
    for (int p = 0; p < P; ++p)
      for (int k = offset_[p]; k < offset_[p + 1]; ++k) X[k] = fields[cols_[k]][p];
    return;
  }
  for (int p = 0; p < P; ++p)
    for (int k = offset_[p]; k < offset_[p + 1]; ++k) {
      int c = cols_[k];
      X[k] = fields[c / u][size_t(p) * u + c % u];
    }
}

void Pencils::scatter(const cplx* X, const std::vector<cplx*>& fields) const {
  const int u = unknowns_;
  if (identity_) {
    std::copy(X, X + size(), fields[0]);
    return;
  }
  // Every coefficient is either a state unknown or one the gauge rule dropped.
  const size_t n = space_.coeff_size(false);
  for (size_t d : dropped_) fields[d / n][d % n] = 0;
  const int P = count();
  if (u == 1) {
    for (int p = 0; p < P; ++p)
      for (int k = offset_[p]; k < offset_[p + 1]; ++k) fields[cols_[k]][p] = X[k];
    return;
  }
  for (int p = 0; p < P; ++p)
    for (int k = offset_[p]; k < offset_[p + 1]; ++k) {
      int c = cols_[k];
      fields[c / u][size_t(p) * u + c % u] = X[k];
    }
}

void Pencils::gather_rhs(const std::vector<const cplx*>& F, double t, cplx* out) const {
  const int P = count();
  if (copy_rhs_) {
    const int u = unknowns_;
    if (identity_) {
      std::copy(F[0], F[0] + size(), out);
      return;
    }
    for (int p = 0; p < P; ++p)
      for (int k = offset_[p]; k < offset_[p + 1]; ++k) {
        const int r = rows_[k];
        out[k] = F[r / u][size_t(p) * u + r % u];
      }
    return;
  }
  cplx* full = rhs_scratch_.data();
  for (int p = 0; p < P; ++p) {
    if (size(p) == 0) continue;
    space_.rhs(p, problem_, F, t, full);
    for (int k = offset_[p]; k < offset_[p + 1]; ++k) out[k] = full[rows_[k]];
  }
}

namespace {
void apply_scalar(const std::vector<cplx>& A, const cplx* X, cplx* out, double alpha, double beta) {
  const size_t N = A.size();
  if (beta == 0)
    for (size_t k = 0; k < N; ++k) out[k] = alpha * mul(A[k], X[k]);
  else
    for (size_t k = 0; k < N; ++k) out[k] = alpha * mul(A[k], X[k]) + beta * out[k];
}
}  // namespace

void Pencils::apply_M(const cplx* X, cplx* out, double alpha, double beta) const {
  if (scalar_) return apply_scalar(M_, X, out, alpha, beta);
  apply_sparse(Ms_, X, out, alpha, beta);
}
void Pencils::apply_L(const cplx* X, cplx* out, double alpha, double beta) const {
  if (scalar_) return apply_scalar(L_, X, out, alpha, beta);
  apply_sparse(Ls_, X, out, alpha, beta);
}

void Pencils::apply_sparse(const Sparse& A, const cplx* X, cplx* out, double alpha, double beta) {
  const int N = int(A.start.size()) - 1;
  for (int k = 0; k < N; ++k) {
    cplx s = 0;
    for (int e = A.start[k]; e < A.start[k + 1]; ++e) s += mul(A.val[e], X[A.col[e]]);
    out[k] = beta == 0 ? alpha * s : alpha * s + beta * out[k];
  }
}

bool Pencils::invertible(double a, double b) {
  try {
    factor(a, b);
    return true;
  } catch (const ConfigError&) {
    return false;
  }
}

int Pencils::factor(double a, double b) {
  for (size_t i = 0; i < factors_.size(); ++i)
    if (factors_[i].a == a && factors_[i].b == b) return int(i);
  // Keeps the cache small when a caller changes its step often: the oldest goes.
  if (factors_.size() >= 8) factors_.erase(factors_.begin());
  Factorisation f;
  f.a = a;
  f.b = b;
  const int P = count();
  if (scalar_) {
    f.lu.resize(size());
    for (int p = 0; p < P; ++p) {
      if (size(p) == 0) continue;
      const int k = offset_[p];
      cplx d = a * M_[k] + b * L_[k];
      double scale = std::abs(a * M_[k]) + std::abs(b * L_[k]);
      SPIRE_CHECK(std::abs(d) > 1e-14 * scale && std::isfinite(std::abs(d)), ConfigError,
                  "the implicit system is singular in pencil ", p,
                  ": its equation does not determine its field there (", a, " M + ", b, " L)");
      f.lu[k] = 1.0 / d;
    }
  } else {
    // Dense elimination per pencil (it skips zero multipliers, so a banded pencil costs about
    // n^2 times its bandwidth), then only the nonzeros of the factors are kept.
    f.lu.resize(size());
    f.piv.resize(size());
    f.lower.start.assign(1, 0);
    f.upper.start.assign(1, 0);
    std::vector<cplx> A;
    std::vector<int> piv;
    for (int p = 0; p < P; ++p) {
      const int n = size(p), o = offset_[p];
      A.resize(size_t(n) * n);
      piv.resize(n);
      const cplx *Mp = M_.data() + moffset_[p], *Lp = L_.data() + moffset_[p];
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const int c = perm_.empty() ? j : perm_[o + j] - o;
          A[i * n + j] = a * Mp[i * n + c] + b * Lp[i * n + c];
        }
      SPIRE_CHECK(lu_factor(A.data(), piv.data(), n, 0.1), ConfigError, "the implicit system is singular in pencil ",
                  p, ": its equations do not determine its fields there (", a, " M + ", b, " L)");
      for (int i = 0; i < n; ++i) {
        f.piv[o + i] = o + piv[i];
        f.lu[o + i] = A[i * n + i];
        for (int j = 0; j < i; ++j)
          if (A[i * n + j] != cplx(0)) f.lower.col.push_back(o + j), f.lower.val.push_back(A[i * n + j]);
        for (int j = i + 1; j < n; ++j)
          if (A[i * n + j] != cplx(0)) f.upper.col.push_back(o + j), f.upper.val.push_back(A[i * n + j]);
        f.lower.push_row();
        f.upper.push_row();
      }
    }
  }
  if (std::getenv("SPIRE_PENCIL_DEBUG"))
    std::fprintf(stderr, "factor(%g, %g): N = %zu, lower %zu, upper %zu nonzeros\n", a, b, size(), f.lower.col.size(), f.upper.col.size());
  factors_.push_back(std::move(f));
  return int(factors_.size()) - 1;
}

void Pencils::solve(int fi, const cplx* rhs, cplx* X) const {
  const Factorisation& f = factors_[fi];
  if (scalar_) {
    const size_t N = size();
    const cplx* inv = f.lu.data();
    for (size_t k = 0; k < N; ++k) X[k] = mul(rhs[k], inv[k]);
    return;
  }
  const int N = int(size());
  // Solves for the permuted unknowns y (x[perm[k]] = y[k]) in place of X, or in scratch.
  cplx* y = perm_.empty() ? X : solve_scratch_.data();
  if (y != rhs) std::copy(rhs, rhs + N, y);
  for (int k = 0; k < N; ++k)
    if (f.piv[k] != k) std::swap(y[k], y[f.piv[k]]);
  const Sparse &lo = f.lower, &up = f.upper;
  for (int k = 0; k < N; ++k) {
    cplx s = y[k];
    for (int e = lo.start[k]; e < lo.start[k + 1]; ++e) s -= mul(lo.val[e], y[lo.col[e]]);
    y[k] = s;
  }
  for (int k = N - 1; k >= 0; --k) {
    cplx s = y[k];
    for (int e = up.start[k]; e < up.start[k + 1]; ++e) s -= mul(up.val[e], y[up.col[e]]);
    y[k] = mul(s, f.lu[k]);
  }
  if (!perm_.empty())
    for (int k = 0; k < N; ++k) X[perm_[k]] = y[k];
}

bool Pencils::diagonal() const {
  for (int p = 0; p < count(); ++p) {
    const int n = size(p);
    const cplx* Mp = M_.data() + moffset_[p];
    const cplx* Lp = L_.data() + moffset_[p];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        if (i == j) {
          if (Mp[i * n + i] == cplx(0)) return false;
        } else if (Mp[i * n + j] != cplx(0) || Lp[i * n + j] != cplx(0)) {
          return false;
        }
      }
  }
  return true;
}

std::vector<cplx> Pencils::diagonal_M() const {
  std::vector<cplx> d(size());
  for (int p = 0; p < count(); ++p)
    for (int i = 0; i < size(p); ++i) d[offset_[p] + i] = M_[moffset_[p] + i * size(p) + i];
  return d;
}

std::vector<cplx> Pencils::diagonal_L() const {
  std::vector<cplx> d(size());
  for (int p = 0; p < count(); ++p)
    for (int i = 0; i < size(p); ++i) d[offset_[p] + i] = L_[moffset_[p] + i * size(p) + i];
  return d;
}

void Pencils::enforce_constraints(const cplx* rhs, cplx* X) const {
  std::vector<cplx> b;
  for (const Constraint& c : constraint_pencils_) {
    const int n = size(c.p), m = int(c.rows.size());
    const cplx* Lp = L_.data() + moffset_[c.p];
    cplx* x = X + offset_[c.p];
    const cplx* r = rhs + offset_[c.p];
    b.assign(m, cplx(0));
    for (int i = 0; i < m; ++i) {
      cplx s = r[c.rows[i]];
      for (int j : c.free_cols) s -= Lp[c.rows[i] * n + j] * x[j];
      b[i] = s;
    }
    lu_solve(c.lu.data(), c.piv.data(), m, b.data());
    for (int i = 0; i < m; ++i) x[c.cols[i]] = b[i];
  }
}

}  // namespace spire::flow
