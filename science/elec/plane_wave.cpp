// Total-field/scattered-field plane waves (plane_wave.h).
//
// The corrections, derived from the Yee updates (fdtd_update.h, fdtd_row.cpp): a sample s of
// component c is updated as F_c(s) += scale_c(s) * sum_t sign_t (G_d(hi_t) - G_d(lo_t)), the two
// terms t of (curl G)_c = d_a G_b - d_b G_a (a = c+1, b = c+2 cyclic; G = H for E updates with
// backward differences, G = E for H updates with forward ones; scale_H < 0 carries the minus of
// Faraday's law). Every sample of every component is either total (its position lies in the box)
// or scattered. Where a difference reaches across the box surface, the neighbour holds the other
// kind of field, and the update must see its own kind: a total sample with a scattered neighbour n
// adds scale_c * coef * G_inc(n), a scattered sample with a total neighbour subtracts it (coef = +-
// sign_t for hi/lo). This needs no case analysis of faces, edges and corners: the corrected
// samples and their terms come from classifying neighbours. The solver adds source_factor(c, s) *
// weight * current with source_factor = -+scale_c(s) dx (electric/magnetic: fdtd_update.h), so
// weight = -+1/dx and current = the signed sum of incident neighbours reproduces the correction for
// any material, conductivity or stored-D update at the sample.
//
// The incident field comes from an auxiliary 1D Yee grid along the direction of propagation xi =
// k.(r - r0): E nodes at xi0 + m dxa, H nodes at xi0 + (m + 1/2) dxa, the same dt, the background
// eps and mu (eps dE/dt = -dH/dxi, mu dH/dt = -dE/dxi for E = E p, H = H (k x p)), a hard source at
// node 0, a CPML and a pec node at the far end. Along a lattice axis dxa = dx and the nodes fall on
// the main grid's sample planes: the auxiliary grid then is the main grid restricted to a plane
// wave, and the corrections cancel the incident field outside the box to rounding. Off axis, dxa
// is chosen so that the 1D grid's wavenumber at the profile's centre frequency equals the main
// grid's in that direction (matched numerical dispersion; Taflove & Hagness 3rd ed. 5.9), and the
// values at the samples' projections are interpolated linearly.
//
// Timing: the solver asks for magnetic currents at t_mid = t_n (they need E_inc^n) and electric
// ones at t_n + dt/2 (H_inc^{n+1/2}). The auxiliary grid advances lazily to whatever step a call
// needs (calls the solver skips while the wave is off cost nothing), so the several components'
// currents share one grid that steps once per step.
#include "science/elec/plane_wave.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }
double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
std::string str(const Vec3& v) { return detail::cat("(", v.x, ", ", v.y, ", ", v.z, ")"); }

// ---- The incident waveform -------------------------------------------------------------------
// g(t), the profile's instantaneous current: TimeProfile only gives the current averaged over an
// interval, (d(t + h/2) - d(t - h/2)) / h = g + h^2 g''/24 + O(h^4) for the analytic profiles, so
// Richardson's combination of h and h/2 removes the h^2 term. h is a hundredth of the profile's
// shortest time scale: the remaining error is ~1e-9 relative, the cancellation ~1e-14.
double waveform_step(const TimeProfile& profile) {
  double scale = profile.frequency() > 0 ? 1 / profile.frequency() : 1.0;
  if (const auto* g = dynamic_cast<const GaussianSource*>(&profile)) scale = std::min(scale, g->width());
  return 1e-2 * scale;
}
cd waveform(const TimeProfile& profile, double t, double h) {
  return (4.0 * profile.current(t, 0.5 * h) - profile.current(t, h)) / 3.0;
}

// ---- The wave's frame --------------------------------------------------------------------------
struct WaveFrame {
  Vec3 k, p, h;      // unit direction, unit polarization, k x p
  Vec3 r0;           // the corner of the box the wave enters first
  double index = 1;  // sqrt(eps mu): the background's slowness
  double impedance = 1;
};

Vec3 unit(Vec3 v, const char* what) {
  const double n = std::sqrt(dot(v, v));
  SPIRE_CHECK(std::isfinite(n) && n > 0, ValueError, "plane wave: ", what, " ", str(v), " must be a finite, non-zero vector");
  for (int a = 0; a < 3; ++a) {
    v[a] /= n;
    if (std::abs(v[a]) < 1e-13) v[a] = 0;  // a component at rounding level is none
  }
  return v;
}

// Checks what does not depend on the lattice: the profile, amplitude, background, direction and
// polarization (orthogonal).
WaveFrame frame_of(const PlaneWave& w) {
  SPIRE_CHECK(w.profile != nullptr, ValueError, "plane wave: no time profile given");
  SPIRE_CHECK(std::isfinite(w.amplitude.real()) && std::isfinite(w.amplitude.imag()), ValueError,
              "plane wave: amplitude must be finite, got ", w.amplitude);
  SPIRE_CHECK(std::isfinite(w.eps) && w.eps > 0 && std::isfinite(w.mu) && w.mu > 0, ValueError,
              "plane wave: the background eps and mu must be finite and > 0, got eps ", w.eps, " mu ", w.mu);
  WaveFrame f;
  f.k = unit(w.direction, "direction");
  f.p = unit(w.polarization, "polarization");
  const double c = dot(f.k, f.p);
  SPIRE_CHECK(std::abs(c) < 1e-9, ValueError, "plane wave: the polarization ", str(w.polarization),
              " is not orthogonal to the direction ", str(w.direction), " (cosine between them ", c,
              "); E of a plane wave is transverse");
  f.h = cross(f.k, f.p);
  for (int a = 0; a < 3; ++a) {
    if (std::abs(f.h[a]) < 1e-13) f.h[a] = 0;
    f.r0[a] = w.center[a] + (f.k[a] >= 0 ? -0.5 : 0.5) * w.size[a];
  }
  f.index = std::sqrt(w.eps * w.mu);
  f.impedance = std::sqrt(w.mu / w.eps);
  return f;
}

// ---- Numerical dispersion ----------------------------------------------------------------------
// The main lattice's wavenumber along the unit direction k at angular frequency omega (the Yee
// relation, analytic.h: (n/dt)^2 sin^2(omega dt/2) = sum_a sin^2(k k_a dx/2) / dx^2), by
// bisection on the branch below the lattice's cutoff; NaN beyond it.
double lattice_wavenumber(const Vec3& k, double omega, double dx, double dt, double index) {
  const double s = index * dx / dt * std::sin(0.5 * omega * dt);
  const double rhs = s * s;
  double kmax = 0;
  for (int a = 0; a < 3; ++a) kmax = std::max(kmax, std::abs(k[a]));
  auto lhs = [&](double kk) {
    double v = 0;
    for (int a = 0; a < 3; ++a) v += std::pow(std::sin(0.5 * kk * k[a] * dx), 2);
    return v;
  };
  double lo = 0, hi = kPi / (dx * kmax);
  if (lhs(hi) < rhs) return std::numeric_limits<double>::quiet_NaN();
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (lhs(mid) < rhs ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The auxiliary grid's cell: dx along a lattice axis (the same grid); otherwise the cell whose 1D
// relation sin(kk dxa/2)/dxa = (n/dt) sin(omega dt/2) gives the main lattice's wavenumber kk along
// k at the centre frequency; without one, the cell that matches the leading (kk dx)^2 error term,
// dx sqrt(sum k_a^4).
double matched_cell(const Vec3& k, double omega, double dx, double dt, double index) {
  int along = 0;
  for (int a = 0; a < 3; ++a) along += k[a] != 0 ? 1 : 0;
  if (along == 1) return dx;
  const double kk = omega > 0 ? lattice_wavenumber(k, omega, dx, dt, index) : std::nan("");
  if (!std::isfinite(kk)) return dx * std::sqrt(std::pow(k.x, 4) + std::pow(k.y, 4) + std::pow(k.z, 4));
  const double s = index / dt * std::sin(0.5 * omega * dt);
  double lo = 1e-9 * dx, hi = 2 * kPi / kk;  // sin(kk x/2)/x falls from kk/2 to 0 on (0, 2 pi/kk)
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (std::sin(0.5 * kk * mid) / mid > s ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// ---- The auxiliary grid ------------------------------------------------------------------------
// E node m at xi0 + m cell (m = 0..n-1), H node m at xi0 + (m + 1/2) cell (m = 0..n-2). Node 0 is
// the hard source, E_inc(xi0, t) = g(t - lead); the last `pml` cells are a CPML (sigma graded as
// u^3 to a normal-incidence reflection of 1e-12, alpha = 0.05 (1 - u) against near-DC fields,
// kappa = 1) in front of a pec node.
class IncidentLine {
 public:
  IncidentLine(std::shared_ptr<const TimeProfile> profile, double eps, double mu, double dt, double xi0, double cell,
               int64_t nodes, int pml, double lead)
      : xi0_(xi0), cell_(cell), profile_(std::move(profile)), dt_(dt), lead_(lead), h_step_(waveform_step(*profile_)),
        ce_(dt / (eps * cell)), ch_(dt / (mu * cell)) {
    e_.assign(size_t(nodes), 0.0);
    h_.assign(size_t(nodes - 1), 0.0);
    psi_e_ = e_;
    psi_h_ = h_;
    be_.assign(e_.size(), 0.0), ae_ = be_, bh_.assign(h_.size(), 0.0), ah_ = bh_;
    const double start = double(nodes - 1 - pml), v = 1 / std::sqrt(eps * mu);
    const double sigma_max = -4 * std::log(1e-12) * v / (2 * pml * cell), alpha_max = 0.05;
    auto fill = [&](double x, double& b, double& a) {
      const double u = std::clamp((x - start) / pml, 0.0, 1.0);
      const double sigma = sigma_max * u * u * u, alpha = alpha_max * (1 - u);
      b = std::exp(-(sigma + alpha) * dt);
      a = sigma > 0 ? sigma / (sigma + alpha) * (b - 1) : 0.0;
    };
    first_pml_ = int64_t(start) - 1;
    for (size_t m = 0; m < e_.size(); ++m) fill(double(m), be_[m], ae_[m]);
    for (size_t m = 0; m < h_.size(); ++m) fill(double(m) + 0.5, bh_[m], ah_[m]);
  }

  double xi0() const { return xi0_; }
  double cell() const { return cell_; }
  int64_t nodes() const { return int64_t(e_.size()); }
  const std::vector<cd>& e() const { return e_; }
  const std::vector<cd>& h() const { return h_; }

  // Advance until E holds E^n / H holds H^{n+1/2}.
  void reach_e(int64_t n) {
    check_forward(n < ne_, n, "E");
    while (ne_ < n) {
      if (nh_ < ne_) step_h();
      step_e();
    }
  }
  void reach_h(int64_t n) {
    check_forward(n < nh_, n, "H");
    while (nh_ < n) {
      if (ne_ < nh_ + 1) step_e();
      step_h();
    }
  }

  std::vector<double> save() const {
    std::vector<double> s{double(ne_), double(nh_)};
    for (const auto* v : {&e_, &h_, &psi_e_, &psi_h_})
      for (const cd& x : *v) s.push_back(x.real()), s.push_back(x.imag());
    return s;
  }
  void load(const std::vector<double>& s) {
    const size_t want = 2 + 4 * (e_.size() + h_.size());
    SPIRE_CHECK(s.size() == want, ValueError, "plane wave: the saved auxiliary grid has ", s.size(),
                " values, this wave's has ", want, " (a state saved from a different problem?)");
    ne_ = int64_t(s[0]), nh_ = int64_t(s[1]);
    size_t i = 2;
    for (auto* v : {&e_, &h_, &psi_e_, &psi_h_})
      for (cd& x : *v) x = {s[i], s[i + 1]}, i += 2;
  }

 private:
  void check_forward(bool behind, int64_t n, const char* what) const {
    SPIRE_CHECK(!behind, ValueError, "plane wave: asked for the incident ", what, " of step ", n,
                " after the auxiliary grid had passed it (E at step ", ne_, ", H at ", nh_,
                "+1/2); a run only goes forward (load_state restores a checkpoint)");
  }
  // H^{nh+1/2} from E^{ne}, ne = nh + 1 (or H^{1/2} from E^0 at the start).
  void step_h() {
    const size_t n = h_.size();
    for (size_t m = 0; m < n; ++m) {
      cd d = e_[m + 1] - e_[m];
      if (int64_t(m) >= first_pml_) {
        psi_h_[m] = bh_[m] * psi_h_[m] + ah_[m] * d;
        d += psi_h_[m];
      }
      h_[m] -= ch_ * d;
    }
    nh_ = ne_;
  }
  // E^{ne+1} from H^{ne+1/2}; node 0 driven, the last node a pec wall.
  void step_e() {
    const size_t n = e_.size();
    for (size_t m = 1; m + 1 < n; ++m) {
      cd d = h_[m] - h_[m - 1];
      if (int64_t(m) >= first_pml_) {
        psi_e_[m] = be_[m] * psi_e_[m] + ae_[m] * d;
        d += psi_e_[m];
      }
      e_[m] -= ce_ * d;
    }
    ++ne_;
    e_[0] = waveform(*profile_, double(ne_) * dt_ - lead_, h_step_);
    e_[n - 1] = 0.0;
  }

  double xi0_, cell_;
  std::shared_ptr<const TimeProfile> profile_;
  double dt_, lead_, h_step_, ce_, ch_;
  int64_t first_pml_ = 0;
  std::vector<cd> e_, h_, psi_e_, psi_h_;
  std::vector<double> be_, ae_, bh_, ah_;
  int64_t ne_ = 0, nh_ = -1;  // E at t = ne dt, H at (nh + 1/2) dt
};

// ---- The surface currents of one component ---------------------------------------------------
// For sample i, terms [offset[i], offset[i+1]) each read the auxiliary grid (E nodes for magnetic
// samples, H nodes for electric ones) at node + frac, times coef (the sign of the correction, of
// the difference, and the polarization's or k x p's component).
struct LineTerm {
  int64_t node;
  double frac;
  double coef;
};

class TfsfCurrents final : public DistributedCurrent {
 public:
  TfsfCurrents(std::shared_ptr<IncidentLine> line, bool electric, cd amplitude, double dt, double start, double end,
               std::vector<size_t> offset, std::vector<LineTerm> terms)
      : line_(std::move(line)), electric_(electric), amplitude_(amplitude), dt_(dt), start_(start), end_(end),
        offset_(std::move(offset)), terms_(std::move(terms)) {}

  void currents(double t_mid, double dt, cd* out) override {
    SPIRE_CHECK(std::abs(dt - dt_) <= 1e-12 * dt_, ValueError, "plane wave: the run steps with dt ", dt,
                ", the wave was added for dt ", dt_);
    const std::vector<cd>* field;
    if (electric_) {
      line_->reach_h(std::llround(t_mid / dt_ - 0.5));
      field = &line_->h();
    } else {
      line_->reach_e(std::llround(t_mid / dt_));
      field = &line_->e();
    }
    const cd* f = field->data();
    for (size_t i = 0; i + 1 < offset_.size(); ++i) {
      cd sum = 0;
      for (size_t t = offset_[i]; t < offset_[i + 1]; ++t) {
        const LineTerm& lt = terms_[t];
        const cd v = lt.frac == 0 ? f[lt.node] : (1 - lt.frac) * f[lt.node] + lt.frac * f[lt.node + 1];
        sum += lt.coef * v;
      }
      out[i] = amplitude_ * sum;
    }
  }
  double start_time() const override { return start_; }
  double end_time() const override { return end_; }
  std::vector<double> save_state() const override { return line_->save(); }
  void load_state(const std::vector<double>& state) override { line_->load(state); }

 private:
  std::shared_ptr<IncidentLine> line_;
  bool electric_;
  cd amplitude_;
  double dt_, start_, end_;
  std::vector<size_t> offset_;
  std::vector<LineTerm> terms_;
};

// ---- Setting up --------------------------------------------------------------------------------

// The wave's frame, checked against the problem's axes and components.
WaveFrame frame_on(const YeeLattice& lat, const PlaneWave& wave) {
  const std::string dims = to_string(lat.dimensions());
  const Vec3 k = unit(wave.direction, "direction");
  for (int a = 0; a < 3; ++a)
    SPIRE_CHECK(lat.has_axis(a) || k[a] == 0, ValueError, "plane wave: the direction ", str(wave.direction),
                " has a component along ", axis_name(a), ", which a ", dims, " problem lacks (",
                lat.dimensions() == Dimensions::one ? "1D waves travel along +-z" : "2D waves travel in the xy plane",
                ")");
  const WaveFrame f = frame_of(wave);
  for (int a = 0; a < 3; ++a) {
    SPIRE_CHECK(f.p[a] == 0 || lat.has(Component(a)), ValueError, "plane wave: the polarization ",
                str(wave.polarization), " has an E", axis_name(a), " component, which a ", dims,
                " problem does not carry (", lat.dimensions() == Dimensions::two_tm ? "TM: E along z"
                : lat.dimensions() == Dimensions::two_te ? "TE: E in the xy plane" : "1D: E along x", ")");
    SPIRE_CHECK(f.h[a] == 0 || lat.has(Component(3 + a)), ValueError, "plane wave: k x polarization ", str(f.h),
                " has an H", axis_name(a), " component, which a ", dims, " problem does not carry");
  }
  return f;
}

// The box's bounds, checked against the cell and its walls: the samples the corrections touch lie
// within half a cell of the box, and must be clear of the CPML (whose update has terms the
// corrections do not reproduce) and of any wrap through a wall.
struct Box {
  Vec3 lo, hi;
};
Box box_on(const Simulation& sim, const PlaneWave& wave) {
  const YeeLattice& lat = sim.lattice();
  const Vec3 cell = lat.size();
  const double dx = lat.dx(), tol = 1e-9 * dx;
  Box box;
  for (int a = 0; a < 3; ++a) {
    if (!lat.has_axis(a)) continue;
    const double c = wave.center[a], s = wave.size[a];
    SPIRE_CHECK(std::isfinite(c) && std::isfinite(s) && s > 0, ValueError, "plane wave: the total-field box needs a ",
                "finite center and a size > 0 along ", axis_name(a), ", got center ", c, " size ", s);
    const double lo = c - 0.5 * s, hi = c + 0.5 * s, half = 0.5 * cell[a];
    SPIRE_CHECK(lo >= -half - tol && hi <= half + tol, ValueError, "plane wave: the total-field box spans [", lo,
                ", ", hi, "] along ", axis_name(a), ", outside the cell [", -half, ", ", half, "]");
    const AxisBoundary& bc = sim.boundaries().axis[size_t(a)];
    const double low_edge = -half + bc.pml_low * dx, high_edge = half - bc.pml_high * dx;
    SPIRE_CHECK(lo >= low_edge + dx - tol, ValueError, "plane wave: the total-field box starts at ", lo, " along ",
                axis_name(a), ", within one cell (", dx, ") of ", bc.pml_low > 0 ? "the pml slab" : "the cell wall",
                " that ends at ", low_edge, "; keep the box at least one cell clear of it");
    SPIRE_CHECK(hi <= high_edge - dx + tol, ValueError, "plane wave: the total-field box ends at ", hi, " along ",
                axis_name(a), ", within one cell (", dx, ") of ", bc.pml_high > 0 ? "the pml slab" : "the cell wall",
                " that starts at ", high_edge, "; keep the box at least one cell clear of it");
    box.lo[a] = lo, box.hi[a] = hi;
  }
  return box;
}

// One correction before the auxiliary grid exists: sample `index` of `component` reads the
// incident field (H for an electric sample, E for a magnetic one) at xi, times coef.
struct RawTerm {
  Component component;
  int64_t index;
  double xi;
  double coef;
};

// Every sample whose curl stencil crosses the box surface, with its terms (header comment).
std::vector<RawTerm> surface_terms(const YeeLattice& lat, const Box& box, const WaveFrame& f) {
  const Vec3 cell = lat.size();
  const double dx = lat.dx(), tol = 1e-9 * dx;
  // Positions from unwrapped indices (yee.h's staggering), and which samples are total.
  auto position = [&](Component c, const std::array<int64_t, 3>& idx) {
    const Vec3 o = lat.offset(c);
    Vec3 p;
    for (int a = 0; a < 3; ++a)
      if (lat.has_axis(a)) p[a] = -0.5 * cell[a] + (double(idx[size_t(a)]) + o[a]) * dx;
    return p;
  };
  auto inside = [&](const Vec3& p) {
    for (int a = 0; a < 3; ++a)
      if (lat.has_axis(a) && (p[a] < box.lo[a] - tol || p[a] > box.hi[a] + tol)) return false;
    return true;
  };
  std::array<int64_t, 3> first{0, 0, 0}, last{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    if (lat.has_axis(a)) {
      first[size_t(a)] = std::max<int64_t>(0, int64_t(std::floor((box.lo[a] + 0.5 * cell[a]) / dx)) - 2);
      last[size_t(a)] = std::min<int64_t>(lat.n(a) - 1, int64_t(std::ceil((box.hi[a] + 0.5 * cell[a]) / dx)) + 2);
    }
  std::vector<RawTerm> raw;
  for (Component c : lat.components()) {
    const bool electric = is_electric(c);
    const int own = axis_of(c);
    for (int64_t i = first[0]; i <= last[0]; ++i)
      for (int64_t j = first[1]; j <= last[1]; ++j)
        for (int64_t l = first[2]; l <= last[2]; ++l) {
          const std::array<int64_t, 3> s{i, j, l};
          const bool total = inside(position(c, s));
          for (int t = 0; t < 2; ++t) {
            // (curl G)_c = d_a G_b - d_b G_a, a = own + 1, b = own + 2: term t differentiates along
            // `axis` the component along `src_axis`.
            const int axis = (own + 1 + t) % 3, src_axis = (own + 2 - t) % 3;
            const double sign = t == 0 ? 1.0 : -1.0;
            const Component src = Component((electric ? 3 : 0) + src_axis);
            const double inc = electric ? f.h[src_axis] : f.p[src_axis];
            if (!lat.has_axis(axis) || !lat.has(src) || inc == 0) continue;
            // E differences look back (backward), H differences forward.
            std::array<int64_t, 3> nb_hi = s, nb_lo = s;
            if (electric)
              --nb_lo[size_t(axis)];
            else
              ++nb_hi[size_t(axis)];
            for (const auto& [nb, coef] : {std::pair{nb_hi, sign}, std::pair{nb_lo, -sign}}) {
              const Vec3 p = position(src, nb);
              if (inside(p) == total) continue;
              raw.push_back({c, lat.index(i, j, l), dot(f.k, Vec3{p.x - f.r0.x, p.y - f.r0.y, p.z - f.r0.z}),
                             (total ? 1.0 : -1.0) * coef * inc});
            }
          }
        }
  }
  return raw;
}

// The corrections assume the background on both sides of the surface: a box face through an
// object would inject the wrong incident field there.
void check_background(const YeeLattice& lat, const MaterialArrays& m, const std::vector<RawTerm>& raw,
                      const PlaneWave& wave) {
  for (const RawTerm& r : raw) {
    const size_t ci = size_t(int(r.component)), idx = size_t(r.index);
    const bool electric = is_electric(r.component);
    const double want = electric ? wave.eps : wave.mu;
    const double have = m.inverse[ci][idx] > 0 ? 1 / m.inverse[ci][idx] : std::numeric_limits<double>::infinity();
    const int64_t i = r.index / (lat.n(1) * lat.n(2)), j = r.index / lat.n(2) % lat.n(1), l = r.index % lat.n(2);
    SPIRE_CHECK(std::abs(have / want - 1) < 1e-6, ValueError, "plane wave: the total-field box surface passes through ",
                "a medium with ", electric ? "eps " : "mu ", have, " (at the ", to_string(r.component), " sample ",
                str(lat.position(r.component, i, j, l)), "), not the wave's background ", electric ? "eps " : "mu ",
                want, "; the box must lie in the homogeneous background");
    SPIRE_CHECK(m.conductivity[ci].empty() || m.conductivity[ci][idx] == 0, ValueError,
                "plane wave: the total-field box surface passes through a conductive medium (at the ",
                to_string(r.component), " sample ", str(lat.position(r.component, i, j, l)),
                "); the background must be lossless");
  }
}

}  // namespace

void add_plane_wave(Simulation& sim, const PlaneWave& wave) {
  const YeeLattice& lat = sim.lattice();
  const WaveFrame f = frame_on(lat, wave);
  const Box box = box_on(sim, wave);
  std::vector<RawTerm> raw = surface_terms(lat, box, f);
  SPIRE_CHECK(!raw.empty(), ValueError, "plane wave: the total-field box ", str(wave.center), " +- ", str(wave.size),
              "/2 encloses no sample on this lattice");
  check_background(lat, sim.materials(), raw, wave);

  // The auxiliary grid: matched cell, nodes aligned with the lattice's sample planes, from two
  // cells before the first projection to the CPML beyond the last.
  const double dx = lat.dx(), dt = sim.dt(), omega = 2 * kPi * wave.profile->frequency();
  const double line_cell = matched_cell(f.k, omega, dx, dt, f.index);
  SPIRE_CHECK(dt <= f.index * line_cell * (1 + 1e-12), ValueError, "plane wave: the auxiliary grid's cell ",
              line_cell, " is below the 1D stability limit dt/n = ", dt / f.index, " for direction ",
              str(wave.direction));
  double xi_min = raw[0].xi, xi_max = raw[0].xi;
  for (const RawTerm& r : raw) xi_min = std::min(xi_min, r.xi), xi_max = std::max(xi_max, r.xi);
  Vec3 corner;
  for (int a = 0; a < 3; ++a)
    if (lat.has_axis(a)) corner[a] = -0.5 * lat.size()[a];
  const double xi_base = dot(f.k, Vec3{corner.x - f.r0.x, corner.y - f.r0.y, corner.z - f.r0.z});
  const double xi0 = xi_base + line_cell * std::floor((xi_min - 2 * line_cell - xi_base) / line_cell);
  constexpr int kLinePml = 80, kLineMargin = 5;
  const int64_t nodes = int64_t(std::ceil((xi_max - xi0) / line_cell)) + 1 + kLineMargin + kLinePml + 1;
  // Node 0 runs ahead of r0 by -xi0: at the centre frequency the lattice's phase velocity makes the
  // wave's phase at r0 that of g(t) (the continuum speed without a centre frequency).
  const double kk = omega > 0 ? lattice_wavenumber(f.k, omega, dx, dt, f.index) : std::nan("");
  const double lead = xi0 * (std::isfinite(kk) ? kk / omega : f.index);
  auto line = std::make_shared<IncidentLine>(wave.profile, wave.eps, wave.mu, dt, xi0, line_cell, nodes, kLinePml, lead);
  // On until the pulse has crossed the box at half the continuum speed (the lattice's group
  // velocity is lower than c/n, but not by half where the spectrum is resolved).
  const double start = wave.profile->start_time() + lead - 2 * dt;
  const double end = wave.profile->end_time() + lead + 2 * f.index * (xi_max - xi0) + 2 * dt;

  // One distributed source per corrected component, its samples in index order.
  std::stable_sort(raw.begin(), raw.end(), [](const RawTerm& a, const RawTerm& b) {
    return int(a.component) != int(b.component) ? int(a.component) < int(b.component) : a.index < b.index;
  });
  for (size_t r = 0; r < raw.size();) {
    const Component c = raw[r].component;
    const bool electric = is_electric(c);
    SourceSamples samples;
    samples.component = c;
    std::vector<size_t> offset;
    std::vector<LineTerm> terms;
    for (; r < raw.size() && raw[r].component == c; ++r) {
      if (samples.index.empty() || samples.index.back() != raw[r].index) {
        samples.index.push_back(raw[r].index);
        // source_factor * weight = scale_c: the correction is scale_c times the current.
        samples.weight.push_back((electric ? -1.0 : 1.0) / dx);
        offset.push_back(terms.size());
      }
      // Electric samples read H nodes (at half cells), magnetic ones E nodes; a projection within
      // 1e-9 cells of a node takes the node alone (exactly, along an axis).
      const double u = (raw[r].xi - xi0) / line_cell - (electric ? 0.5 : 0.0);
      double node = std::floor(u), frac = u - node;
      if (frac < 1e-9) frac = 0;
      if (frac > 1 - 1e-9) frac = 0, node += 1;
      terms.push_back({int64_t(node), frac, raw[r].coef});
    }
    offset.push_back(terms.size());
    samples.distributed = std::make_shared<TfsfCurrents>(line, electric, wave.amplitude, dt, start, end,
                                                         std::move(offset), std::move(terms));
    sim.add_source(std::move(samples));
  }
}

ComplexVec3 incident_e(const PlaneWave& wave, const Vec3& r, double t) {
  const WaveFrame f = frame_of(wave);
  const double xi = dot(f.k, Vec3{r.x - f.r0.x, r.y - f.r0.y, r.z - f.r0.z});
  const cd g = wave.amplitude * waveform(*wave.profile, t - f.index * xi, waveform_step(*wave.profile));
  return {g * f.p.x, g * f.p.y, g * f.p.z};
}

ComplexVec3 incident_h(const PlaneWave& wave, const Vec3& r, double t) {
  const WaveFrame f = frame_of(wave);
  const double xi = dot(f.k, Vec3{r.x - f.r0.x, r.y - f.r0.y, r.z - f.r0.z});
  const cd g = wave.amplitude * waveform(*wave.profile, t - f.index * xi, waveform_step(*wave.profile)) / f.impedance;
  return {g * f.h.x, g * f.h.y, g * f.h.z};
}

}  // namespace spire::elec
