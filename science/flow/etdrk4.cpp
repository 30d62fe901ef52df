#include "science/flow/etdrk4.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::flow {

namespace {

class Etdrk4 : public Stepper {
 public:
  Etdrk4(Pencils& pencils, ExplicitTerms& terms) : terms_(terms) {
    SPIRE_CHECK(pencils.diagonal(), ConfigError,
                "scheme etdrk4 needs every pencil's M and L diagonal with dt() in every equation "
                "(a periodic problem without constraint equations or coupled implicit terms); use "
                "sbdf2, sbdf3, rk222 or rk443 for this problem");
    const std::vector<cplx> m = pencils.diagonal_M(), l = pencils.diagonal_L();
    const size_t N = m.size();
    c_.resize(N);
    inv_m_.resize(N);
    for (size_t k = 0; k < N; ++k) {
      inv_m_[k] = 1.0 / m[k];
      c_[k] = -l[k] / m[k];
    }
    for (auto* v : {&E_, &E2_, &Q_, &f1_, &f2_, &f3_, &Nu_, &Na_, &Nb_, &Nc_, &a_, &b_, &x_}) v->resize(N);
  }

  void step(cplx* X, double t, double h) override {
    if (h != h_) coefficients(h);
    const size_t N = c_.size();
    N_of(X, t, Nu_.data());
    for (size_t k = 0; k < N; ++k) a_[k] = mul(E2_[k], X[k]) + mul(Q_[k], Nu_[k]);
    N_of(a_.data(), t + h / 2, Na_.data());
    for (size_t k = 0; k < N; ++k) b_[k] = mul(E2_[k], X[k]) + mul(Q_[k], Na_[k]);
    N_of(b_.data(), t + h / 2, Nb_.data());
    for (size_t k = 0; k < N; ++k) x_[k] = mul(E2_[k], a_[k]) + mul(Q_[k], 2.0 * Nb_[k] - Nu_[k]);
    N_of(x_.data(), t + h, Nc_.data());
    for (size_t k = 0; k < N; ++k)
      X[k] = mul(E_[k], X[k]) + mul(f1_[k], Nu_[k]) + 2.0 * mul(f2_[k], Na_[k] + Nb_[k]) + mul(f3_[k], Nc_[k]);
  }

 private:
  void N_of(const cplx* X, double t, cplx* out) {
    terms_.evaluate(X, t, out);
    const size_t N = c_.size();
    for (size_t k = 0; k < N; ++k) out[k] = mul(out[k], inv_m_[k]);
  }

  // Kassam & Trefethen's contour means; the circle is whole because c may be complex (dispersive
  // terms), so no conjugate symmetry halves it.
  void coefficients(double h) {
    constexpr int points = 32;
    cplx r[points];
    for (int j = 0; j < points; ++j) r[j] = std::polar(1.0, 2 * M_PI * (j + 0.5) / points);
    for (size_t k = 0; k < c_.size(); ++k) {
      const cplx z = c_[k] * h;
      E_[k] = std::exp(z);
      E2_[k] = std::exp(z / 2.0);
      cplx q = 0, g1 = 0, g2 = 0, g3 = 0;
      for (int j = 0; j < points; ++j) {
        const cplx w = z + r[j], ew = std::exp(w), w3 = w * w * w;
        q += (std::exp(w / 2.0) - 1.0) / w;
        g1 += (-4.0 - w + ew * (4.0 - 3.0 * w + w * w)) / w3;
        g2 += (2.0 + w + ew * (w - 2.0)) / w3;
        g3 += (-4.0 - 3.0 * w - w * w + ew * (4.0 - w)) / w3;
      }
      Q_[k] = h * q / double(points);
      f1_[k] = h * g1 / double(points);
      f2_[k] = h * g2 / double(points);
      f3_[k] = h * g3 / double(points);
    }
    h_ = h;
  }

  ExplicitTerms& terms_;
  std::vector<cplx> c_, inv_m_, E_, E2_, Q_, f1_, f2_, f3_, Nu_, Na_, Nb_, Nc_, a_, b_, x_;
  double h_ = 0;
};

}  // namespace

std::unique_ptr<Stepper> make_etdrk4(Pencils& pencils, ExplicitTerms& terms) {
  return std::make_unique<Etdrk4>(pencils, terms);
}

}  // namespace spire::flow
