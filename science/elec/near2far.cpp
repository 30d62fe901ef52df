// Near-to-far-field transform: equivalent currents and homogeneous-medium Green's functions
// (near2far.h).
#include "science/elec/near2far.h"

#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;
const cd kI(0, 1);

ComplexVec3 cross(const Vec3& a, const ComplexVec3& b) {
  return {a.y * b[2] - a.z * b[1], a.z * b[0] - a.x * b[2], a.x * b[1] - a.y * b[0]};
}
cd dot(const Vec3& a, const ComplexVec3& b) { return a.x * b[0] + a.y * b[1] + a.z * b[2]; }

// The scalar parts of the Green's functions for one separation r, shared by the electric and the
// magnetic current at that point (one exponential or one set of Hankel functions per pair).
struct Green {
  Vec3 n;        // rhat (in the plane in 2D)
  cd g, gp;      // g and dg/dr
  cd cj, cn;     // the dyadic part: cj v + cn (n.v) n, for v in the plane (3D: all of v)
  cd cz;         // 2D: the coefficient of v_z (g); 3D: unused
  bool planar;

  Green(const Vec3& r, double k, int dims) : planar(dims == 2) {
    if (!planar) {
      const double rr = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
      n = Vec3{r.x / rr, r.y / rr, r.z / rr};
      const double kr = k * rr;
      g = std::exp(cd(0, kr)) / (4 * kPi * rr);
      gp = (cd(0, k) - 1.0 / rr) * g;
      cj = g * (1.0 + kI / kr - 1.0 / (kr * kr));
      cn = g * (-1.0 - 3.0 * kI / kr + 3.0 / (kr * kr));
    } else {
      const double rho = std::hypot(r.x, r.y);
      n = Vec3{r.x / rho, r.y / rho, 0};
      const double x = k * rho;
      const cd h0(std::cyl_bessel_j(0.0, x), std::cyl_neumann(0.0, x));
      const cd h1(std::cyl_bessel_j(1.0, x), std::cyl_neumann(1.0, x));
      g = kI / 4.0 * h0;
      gp = -kI * k / 4.0 * h1;                  // H0' = -H1
      const cd gpp = -kI * k * k / 4.0 * (h0 - h1 / x);  // H1' = H0 - H1/x
      cj = g + gp / (k * k * rho);
      cn = gpp / (k * k) - gp / (k * k * rho);
      cz = g;
    }
  }
  // The dyadic part applied to v (E of J without i omega mu, H of M without i omega eps).
  ComplexVec3 dyadic(const ComplexVec3& v) const {
    const cd nv = dot(n, v);
    ComplexVec3 out{cj * v[0] + cn * nv * n.x, cj * v[1] + cn * nv * n.y, cj * v[2] + cn * nv * n.z};
    if (planar) out[2] = cz * v[2];
    return out;
  }
  // The curl part: g' rhat x v (H of J; minus E of M).
  ComplexVec3 curl(const ComplexVec3& v) const {
    const ComplexVec3 c = cross(n, v);
    return {gp * c[0], gp * c[1], gp * c[2]};
  }
};

// Adds the fields of an electric current j and a magnetic current m at the same point.
void add_fields(const Green& gr, const ComplexVec3& j, const ComplexVec3& m, double omega, double eps, double mu,
                PhasorFields& sum) {
  const ComplexVec3 dj = gr.dyadic(j), cj = gr.curl(j), dm = gr.dyadic(m), cm = gr.curl(m);
  const cd ie = kI * omega * mu, ih = kI * omega * eps;
  for (size_t c = 0; c < 3; ++c) {
    sum.E[c] += ie * dj[c] - cm[c];  // duality: E_M = -(curl part of M)
    sum.H[c] += cj[c] + ih * dm[c];
  }
}

// The 3D free-space sum over all sources for one far point, in plain real arithmetic (std::complex
// products check for NaN; this loop runs N_points x N_sources times). The constants i omega mu and
// i omega eps of the dyadic parts factor out of the sum and are applied once by the caller:
// returns sum D(J), sum g' n x J, sum D(M), sum g' n x M. Same formulas as Green above.
struct Cx {
  double r = 0, i = 0;
};
inline Cx mul(Cx a, Cx b) { return {a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r}; }

struct SourceArrays {
  std::vector<double> x, y, z;
  std::array<std::vector<Cx>, 3> j, m;
};

struct FreeSpaceSums {
  std::array<Cx, 3> dj, cj, dm, cm;
  bool on_surface = false;
};

FreeSpaceSums free_space_sums(const Vec3& x, const SourceArrays& s, double k) {
  FreeSpaceSums out;
  const double inv4pi = 1 / (4 * kPi);
  for (size_t q = 0; q < s.x.size(); ++q) {
    const double rx = x.x - s.x[q], ry = x.y - s.y[q], rz = x.z - s.z[q];
    const double r2 = rx * rx + ry * ry + rz * rz;
    if (r2 == 0) {
      out.on_surface = true;
      continue;
    }
    const double rr = std::sqrt(r2), inv = 1 / rr;
    const double n[3] = {rx * inv, ry * inv, rz * inv};
    const double kr = k * rr, a = inv * inv4pi;
    const Cx g{a * std::cos(kr), a * std::sin(kr)};
    const double p = 1 / kr, p2 = p * p;
    const Cx cj = mul(g, Cx{1 - p2, p});
    const Cx cn = mul(g, Cx{-1 + 3 * p2, -3 * p});
    const Cx gp = mul(g, Cx{-inv, k});
    for (int kind = 0; kind < 2; ++kind) {
      const std::array<std::vector<Cx>, 3>& v = kind == 0 ? s.j : s.m;
      const Cx v0 = v[0][q], v1 = v[1][q], v2 = v[2][q];
      const Cx nv{n[0] * v0.r + n[1] * v1.r + n[2] * v2.r, n[0] * v0.i + n[1] * v1.i + n[2] * v2.i};
      const Cx cnv = mul(cn, nv);
      const Cx vv[3] = {v0, v1, v2};
      // n x v
      const Cx c[3] = {{n[1] * v2.r - n[2] * v1.r, n[1] * v2.i - n[2] * v1.i},
                       {n[2] * v0.r - n[0] * v2.r, n[2] * v0.i - n[0] * v2.i},
                       {n[0] * v1.r - n[1] * v0.r, n[0] * v1.i - n[1] * v0.i}};
      std::array<Cx, 3>& d = kind == 0 ? out.dj : out.dm;
      std::array<Cx, 3>& cc = kind == 0 ? out.cj : out.cm;
      for (int e = 0; e < 3; ++e) {
        const Cx t = mul(cj, vv[e]);
        d[size_t(e)].r += t.r + cnv.r * n[e];
        d[size_t(e)].i += t.i + cnv.i * n[e];
        const Cx u = mul(gp, c[e]);
        cc[size_t(e)].r += u.r;
        cc[size_t(e)].i += u.i;
      }
    }
  }
  return out;
}

// Gauss-Legendre nodes and weights on [-1, 1] (Newton on the three-term recurrence).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
  x.assign(size_t(n), 0);
  w.assign(size_t(n), 0);
  for (int i = 0; i < n; ++i) {
    double z = std::cos(kPi * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = z;
      for (int l = 2; l <= n; ++l) {
        const double p2 = ((2 * l - 1) * z * p1 - (l - 1) * p0) / l;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1);
      const double step = p1 / dp;
      z -= step;
      if (std::abs(step) < 1e-15) break;
    }
    x[size_t(i)] = z;
    w[size_t(i)] = 2 / ((1 - z * z) * dp * dp);
  }
}

}  // namespace

PhasorFields green_fields(Vec3 x, Vec3 x0, const ComplexVec3& current, bool magnetic, double omega, double eps,
                          double mu, int dims) {
  SPIRE_CHECK(dims == 2 || dims == 3, ValueError, "green_fields: dims must be 2 or 3, got ", dims);
  SPIRE_CHECK(std::isfinite(omega) && omega > 0 && std::isfinite(eps) && eps > 0 && std::isfinite(mu) && mu > 0,
              ValueError, "green_fields: omega, eps and mu must be finite and > 0, got ", omega, ", ", eps, ", ", mu);
  const Vec3 r{x.x - x0.x, x.y - x0.y, dims == 3 ? x.z - x0.z : 0.0};
  const double dist = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  SPIRE_CHECK(dist > 0, ValueError, "green_fields: the field point coincides with the source");
  const double k = omega * std::sqrt(eps * mu);
  const Green gr(r, k, dims);
  const ComplexVec3 zero{};
  PhasorFields f;
  add_fields(gr, magnetic ? zero : current, magnetic ? current : zero, omega, eps, mu, f);
  return f;
}

Near2Far::Near2Far(const YeeLattice& lattice, const std::vector<FluxRegion>& regions, std::vector<double> frequencies,
                   double dt, double eps, double mu)
    : eps_(eps), mu_(mu), frequencies_(std::move(frequencies)) {
  SPIRE_CHECK(lattice.dimensions() != Dimensions::one, ValueError,
              "Near2Far: a 1D problem has no far field; use a 2D or 3D lattice");
  dims_ = lattice.dimensions() == Dimensions::three ? 3 : 2;
  SPIRE_CHECK(std::isfinite(eps) && eps > 0 && std::isfinite(mu) && mu > 0, ValueError,
              "Near2Far: the outside medium's eps and mu must be finite and > 0, got ", eps, " and ", mu);
  SPIRE_CHECK(!regions.empty(), ValueError, "Near2Far: no regions given; box_regions() gives a closed box");
  for (double f : frequencies_)
    SPIRE_CHECK(std::isfinite(f) && f > 0, ValueError, "Near2Far: frequencies must be finite and > 0, got ", f);
  for (const FluxRegion& r : regions) surfaces_.emplace_back(lattice, r, frequencies_, dt);
}

template <class Real>
void Near2Far::update(const FieldArrays<Real>& fields, double t) {
  for (SurfaceDft& s : surfaces_) s.update(fields, t);
}
template void Near2Far::update<float>(const FieldArrays<float>&, double);
template void Near2Far::update<double>(const FieldArrays<double>&, double);

std::vector<Near2Far::Source> Near2Far::sources(size_t f) const {
  std::vector<Source> out;
  std::vector<ComplexVec3> E, H;
  for (const SurfaceDft& s : surfaces_) {
    s.fields(f, E, H);
    Vec3 n;
    n[s.normal_axis()] = 1;
    const double scale = s.weight() * s.point_measure();
    for (size_t p = 0; p < E.size(); ++p) {
      Source src;
      src.x = s.points()[p];
      const ComplexVec3 j = cross(n, H[p]), m = cross(n, E[p]);
      for (int c = 0; c < 3; ++c) {
        src.j[size_t(c)] = scale * j[size_t(c)];
        src.m[size_t(c)] = -scale * m[size_t(c)];
      }
      out.push_back(src);
    }
  }
  return out;
}

std::vector<PhasorFields> Near2Far::far_fields(const std::vector<Vec3>& points) const {
  const size_t nf = frequencies_.size();
  std::vector<PhasorFields> out(points.size() * nf);
  for (size_t f = 0; f < nf; ++f) {
    const std::vector<Source> src = sources(f);
    const double omega = 2 * kPi * frequencies_[f], k = omega * std::sqrt(eps_ * mu_);
    const int64_t np = int64_t(points.size());
    SourceArrays soa;
    if (dims_ == 3)
      for (const Source& s : src) {
        soa.x.push_back(s.x.x);
        soa.y.push_back(s.x.y);
        soa.z.push_back(s.x.z);
        for (size_t c = 0; c < 3; ++c) {
          soa.j[c].push_back(Cx{s.j[c].real(), s.j[c].imag()});
          soa.m[c].push_back(Cx{s.m[c].real(), s.m[c].imag()});
        }
      }
    // Each point is summed by one thread in the sources' fixed order: the same bits on any thread count.
    // (No exception may leave an OpenMP region: a point on the surface is flagged, reported after.)
    std::vector<char> on_surface(points.size(), 0);
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t p = 0; p < np; ++p) {
      const Vec3& x = points[size_t(p)];
      PhasorFields sum;
      if (dims_ == 3) {
        const FreeSpaceSums t = free_space_sums(x, soa, k);
        on_surface[size_t(p)] = t.on_surface;
        const cd ie = kI * omega * mu_, ih = kI * omega * eps_;
        for (size_t c = 0; c < 3; ++c) {
          sum.E[c] = ie * cd(t.dj[c].r, t.dj[c].i) - cd(t.cm[c].r, t.cm[c].i);
          sum.H[c] = cd(t.cj[c].r, t.cj[c].i) + ih * cd(t.dm[c].r, t.dm[c].i);
        }
      } else {
        for (const Source& s : src) {
          const Vec3 r{x.x - s.x.x, x.y - s.x.y, 0.0};
          if (r.x == 0 && r.y == 0) {
            on_surface[size_t(p)] = 1;
            continue;
          }
          add_fields(Green(r, k, dims_), s.j, s.m, omega, eps_, mu_, sum);
        }
      }
      out[size_t(p) * nf + f] = sum;
    }
    for (size_t p = 0; p < points.size(); ++p)
      SPIRE_CHECK(!on_surface[p], ValueError, "Near2Far: the far-field point (", points[p].x, ", ", points[p].y, ", ",
                  points[p].z, ") coincides with a point of the near-field surface");
  }
  return out;
}

std::vector<PhasorFields> Near2Far::far_field(Vec3 x) const { return far_fields({x}); }

std::vector<double> Near2Far::radiated_power(double radius, Vec3 center, int n_theta) const {
  const char* who = "Near2Far::radiated_power";
  SPIRE_CHECK(std::isfinite(radius) && radius > 0, ValueError, who, ": the radius must be finite and > 0, got ",
              radius);
  SPIRE_CHECK(n_theta >= 0, ValueError, who, ": n_theta must be >= 0 (0 chooses), got ", n_theta);
  double extent = 0;
  for (const SurfaceDft& s : surfaces_)
    for (const Vec3& x : s.points()) {
      const double dz = dims_ == 3 ? x.z - center.z : 0.0;
      extent = std::max(extent, std::sqrt(std::pow(x.x - center.x, 2) + std::pow(x.y - center.y, 2) + dz * dz));
    }
  SPIRE_CHECK(radius > extent, ValueError, who, ": the ", dims_ == 3 ? "sphere" : "circle", " of radius ", radius,
              " does not enclose the near-field surface, which reaches ", extent, " from its center");
  double f_max = 0;
  for (double f : frequencies_) f_max = std::max(f_max, f);
  const double k_max = 2 * kPi * f_max * std::sqrt(eps_ * mu_);
  if (n_theta == 0) n_theta = std::max(12, int(std::ceil(k_max * extent)) + 10);
  // Quadrature points with their outward normals and weights (including radius^2 or radius).
  std::vector<Vec3> points, normals;
  std::vector<double> weights;
  if (dims_ == 3) {
    std::vector<double> mu_nodes, mu_weights;
    gauss_legendre(n_theta, mu_nodes, mu_weights);
    const int n_phi = 2 * n_theta;
    for (int i = 0; i < n_theta; ++i)
      for (int j = 0; j < n_phi; ++j) {
        const double st = std::sqrt(1 - mu_nodes[size_t(i)] * mu_nodes[size_t(i)]), ph = 2 * kPi * j / n_phi;
        const Vec3 n{st * std::cos(ph), st * std::sin(ph), mu_nodes[size_t(i)]};
        normals.push_back(n);
        points.push_back(Vec3{center.x + radius * n.x, center.y + radius * n.y, center.z + radius * n.z});
        weights.push_back(mu_weights[size_t(i)] * 2 * kPi / n_phi * radius * radius);
      }
  } else {
    const int n_phi = 2 * n_theta;
    for (int j = 0; j < n_phi; ++j) {
      const double ph = 2 * kPi * j / n_phi;
      const Vec3 n{std::cos(ph), std::sin(ph), 0};
      normals.push_back(n);
      points.push_back(Vec3{center.x + radius * n.x, center.y + radius * n.y, center.z});
      weights.push_back(2 * kPi / n_phi * radius);
    }
  }
  const std::vector<PhasorFields> fields = far_fields(points);
  const size_t nf = frequencies_.size();
  std::vector<double> power(nf, 0.0);
  for (size_t f = 0; f < nf; ++f)
    for (size_t p = 0; p < points.size(); ++p) {
      const PhasorFields& F = fields[p * nf + f];
      const Vec3& n = normals[p];
      double s = 0;
      for (int a = 0; a < 3; ++a) {
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        s += n[a] * (std::conj(F.E[size_t(b)]) * F.H[size_t(c)] - std::conj(F.E[size_t(c)]) * F.H[size_t(b)]).real();
      }
      power[f] += weights[p] * s;
    }
  return power;
}

FluxData Near2Far::data() const { return surface_data(surfaces_, frequencies_); }
void Near2Far::load_data(const FluxData& data) {
  load_surface_data(surfaces_, frequencies_, data, 1, "Near2Far::load_data");
}
void Near2Far::load_minus_data(const FluxData& data) {
  load_surface_data(surfaces_, frequencies_, data, -1, "Near2Far::load_minus_data");
}

void Near2Far::save_state(SimulationState& out, const std::string& prefix) const {
  save_surfaces_state(surfaces_, out, prefix);
}
void Near2Far::load_state(const SimulationState& in, const std::string& prefix) {
  load_surfaces_state(surfaces_, in, prefix);
}

}  // namespace spire::elec
