// Cubic lattices (lattice.h). Positions are (cell + basis) * constant, the operations LAMMPS's
// Lattice::lattice2box performs for an unrotated cubic lattice, so the coordinates agree with
// LAMMPS's create_atoms to the last bit.
#include "science/sponge/lattice.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::sponge {

LatticeType lattice_type(const std::string& name) {
  if (name == "sc") return LatticeType::sc;
  if (name == "bcc") return LatticeType::bcc;
  if (name == "fcc") return LatticeType::fcc;
  throw ConfigError(detail::cat("lattice: unknown lattice type '", name, "'; allowed: sc, bcc, fcc"));
}

std::string to_string(LatticeType type) {
  switch (type) {
    case LatticeType::sc: return "sc";
    case LatticeType::bcc: return "bcc";
    case LatticeType::fcc: return "fcc";
  }
  return "?";
}

Lattice Lattice::with_density(LatticeType type, double density) {
  SPIRE_CHECK(std::isfinite(density) && density > 0, ValueError, "lattice: density must be finite and > 0, got ",
              density);
  Lattice l{type, 1};
  // LAMMPS: scale = pow(nbasis / volume / scale, 1.0 / dimension), volume 1 for a cubic cell.
  l.constant = std::pow(double(l.basis().size()) / density, 1.0 / 3.0);
  return l;
}

Lattice Lattice::with_constant(LatticeType type, double constant) {
  SPIRE_CHECK(std::isfinite(constant) && constant > 0, ValueError,
              "lattice: lattice constant must be finite and > 0, got ", constant);
  return Lattice{type, constant};
}

std::vector<Vec3> Lattice::basis() const {
  switch (type) {
    case LatticeType::sc: return {{0, 0, 0}};
    case LatticeType::bcc: return {{0, 0, 0}, {0.5, 0.5, 0.5}};
    case LatticeType::fcc: return {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  }
  return {};
}

double Lattice::density() const { return double(basis().size()) / (constant * constant * constant); }

double Lattice::nearest_neighbor_distance() const {
  switch (type) {
    case LatticeType::sc: return constant;
    case LatticeType::bcc: return constant * std::sqrt(3.0) / 2;
    case LatticeType::fcc: return constant / std::sqrt(2.0);
  }
  return 0;
}

int Lattice::coordination() const {
  switch (type) {
    case LatticeType::sc: return 6;
    case LatticeType::bcc: return 8;
    case LatticeType::fcc: return 12;
  }
  return 0;
}

State create_lattice(const Lattice& lattice, int nx, int ny, int nz) {
  SPIRE_CHECK(nx > 0 && ny > 0 && nz > 0, ValueError, "lattice: cell counts must be > 0, got ", nx, " x ", ny,
              " x ", nz);
  SPIRE_CHECK(std::isfinite(lattice.constant) && lattice.constant > 0, ValueError,
              "lattice: lattice constant must be finite and > 0, got ", lattice.constant);
  const std::vector<Vec3> basis = lattice.basis();
  const double a = lattice.constant;
  State state;
  state.positions.reserve(size_t(nx) * ny * nz * basis.size());
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (const Vec3& b : basis) state.positions.push_back({(i + b.x) * a, (j + b.y) * a, (k + b.z) * a});
  state.velocities.assign(state.positions.size(), Vec3{});
  state.box = Box::orthorhombic(nx * a, ny * a, nz * a);
  return state;
}

System identical_particles(int64_t n, double mass, const std::string& type_name, const Units& units) {
  SPIRE_CHECK(n >= 0, ValueError, "identical_particles: count must be >= 0, got ", n);
  SPIRE_CHECK(std::isfinite(mass) && mass >= 0, ValueError, "identical_particles: mass must be finite and >= 0, got ",
              mass);
  System system;
  system.units = units;
  system.type_names = {type_name};
  system.mass.assign(size_t(n), mass);
  system.charge.assign(size_t(n), 0.0);
  system.type.assign(size_t(n), 0);
  return system;
}

}  // namespace spire::sponge
