// Charged systems for the Coulomb tests (Ewald, PME, reaction field): ionic crystals with known
// Madelung constants, and random cells of charges with small molecules (exclusions, 1-4 pairs).
#pragma once
#include <cstdint>
#include <optional>
#include <random>

#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge::testing {

// Madelung constants per nearest-neighbour distance (Zucker, J. Phys. A 8, 1734 (1975); OEIS
// A085469 and A181152).
constexpr double kMadelungNaCl = 1.7475645946331821906;
constexpr double kMadelungCsCl = 1.7626747730709883980;

struct Charges {
  System system;
  State state;
};

// Rock salt: cells^3 conventional cells of edge 1 (r0 = 1/2), ions of charge +-1 shifted by
// `offset`, reduced units.
inline Charges rock_salt(int cells, Vec3 offset = {}) {
  Charges c;
  c.system.units = Units::lj();
  for (int x = 0; x < 2 * cells; ++x)
    for (int y = 0; y < 2 * cells; ++y)
      for (int z = 0; z < 2 * cells; ++z) {
        const bool cation = (x + y + z) % 2 == 0;
        c.system.add_particle(1.0, cation ? 1.0 : -1.0, cation ? "Na" : "Cl");
        c.state.positions.push_back(Vec3{0.5 * x, 0.5 * y, 0.5 * z} + offset);
      }
  c.state.box = Box::orthorhombic(cells, cells, cells);
  return c;
}

// Caesium chloride: cells^3 cubes of edge 1 (r0 = sqrt(3)/2), reduced units.
inline Charges cesium_chloride(int cells) {
  Charges c;
  c.system.units = Units::lj();
  for (int x = 0; x < cells; ++x)
    for (int y = 0; y < cells; ++y)
      for (int z = 0; z < cells; ++z) {
        c.system.add_particle(1.0, 1.0, "Cs");
        c.state.positions.push_back({double(x), double(y), double(z)});
        c.system.add_particle(1.0, -1.0, "Cl");
        c.state.positions.push_back({x + 0.5, y + 0.5, z + 0.5});
      }
  c.state.box = Box::orthorhombic(cells, cells, cells);
  return c;
}

enum class Cell { none, orthorhombic, triclinic };
inline Cell periodic_cell(bool triclinic) { return triclinic ? Cell::triclinic : Cell::orthorhombic; }

// n charges uniform in [-1, 1), shifted to the total `net_charge` when one is given, uniform in a
// 2.2 x 2.0 x 2.1 nm cell (Cell::none: the same region, no box), md units. Particles 0-3 and 4-7
// are chains with bonds of 0.15 nm, excluded with their 1-4 pairs (scales 0.8333, 0.5).
inline Charges random_charges(int n, Cell cell, std::optional<double> net_charge, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), qd(-1, 1);
  Charges r;
  r.system.units = Units::md();
  double total = 0;
  for (int i = 0; i < n; ++i) {
    const double q = qd(rng);
    total += q;
    r.system.add_particle(1.0, q, "X");
  }
  if (net_charge)
    for (int i = 0; i < n; ++i) r.system.charge[size_t(i)] += (*net_charge - total) / n;
  if (cell == Cell::orthorhombic) r.state.box = Box::orthorhombic(2.2, 2.0, 2.1);
  if (cell == Cell::triclinic) r.state.box = Box::triclinic({2.2, 0, 0}, {0.5, 2.0, 0}, {-0.4, 0.6, 2.1});
  for (int i = 0; i < n; ++i)
    r.state.positions.push_back(cell == Cell::none ? Vec3{2.2 * u(rng), 2.0 * u(rng), 2.1 * u(rng)}
                                                   : r.state.box.from_fractional({u(rng), u(rng), u(rng)}));
  for (int c = 0; c < 2; ++c)
    for (int k = 1; k < 4; ++k) {
      const int i = 4 * c + k;
      Vec3 step{u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5};
      r.state.positions[size_t(i)] = r.state.positions[size_t(i - 1)] + step * (0.15 / norm(step));
      r.system.topology.bonds.push_back({i - 1, i, 0.15, 1000.0});
    }
  r.system.topology.exclude_bonded(0.8333, 0.5);
  return r;
}

}  // namespace spire::sponge::testing
