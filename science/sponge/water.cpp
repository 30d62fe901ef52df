// Water models and the water box builder (water.h).
#include "science/sponge/water.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numbers>

#include "engine/core/error.h"
#include "science/sponge/md_random.h"

namespace spire::sponge {

namespace {

constexpr double kDegree = std::numbers::pi / 180;
// g/cm^3 to amu/nm^3: N_A amu per gram, 1e-21 cm^3 per nm^3.
constexpr double kGramPerCm3 = constants::kAvogadro * 1e-21;
// Orientations tried per molecule before the one with the widest clearance is kept.
constexpr int kAttempts = 32;
// Passes that re-draw molecules still too close to a neighbour once all are placed.
constexpr int kSweeps = 8;

struct Rotation {
  double m[3][3];
  Vec3 operator*(const Vec3& v) const {
    return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
  }
};

// A uniformly distributed rotation: a unit quaternion from four standard normals (isotropic in
// four dimensions, so uniform on the 3-sphere, which covers SO(3) uniformly).
Rotation random_rotation(uint64_t seed, uint64_t draw) {
  auto [w, x, y, z] = philox_normal4(seed, kWaterBoxStream, draw);
  double n = std::sqrt(w * w + x * x + y * y + z * z);
  w /= n, x /= n, y /= n, z /= n;
  return {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
           {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
           {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
}

}  // namespace

double WaterModel::d_hh() const { return 2 * r_oh * std::sin(0.5 * theta_hoh); }
double WaterModel::molar_mass() const { return mass_o + 2 * mass_h; }
double WaterModel::dipole() const { return 2 * charge_h * r_oh * std::cos(0.5 * theta_hoh); }

WaterModel WaterModel::spce() {
  return {.name = "spce", .charge_o = -0.8476, .charge_h = 0.4238, .sigma_o = 0.316557, .epsilon_o = 0.650194,
          .mass_o = 15.9994, .mass_h = 1.008, .r_oh = 0.1, .theta_hoh = 109.47 * kDegree};
}

WaterModel WaterModel::tip3p() {
  return {.name = "tip3p", .charge_o = -0.834, .charge_h = 0.417, .sigma_o = 0.31507524065751241,
          .epsilon_o = 0.635968, .mass_o = 15.99943, .mass_h = 1.007947, .r_oh = 0.09572,
          .theta_hoh = 104.52 * kDegree};
}

WaterModel WaterModel::by_name(const std::string& name) {
  std::string key = name;
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (key == "spce" || key == "spc/e") return spce();
  if (key == "tip3p") return tip3p();
  throw ConfigError(detail::cat("water: unknown water model '", name, "'; allowed: spce (or spc/e), tip3p"));
}

int add_water(System& system, const WaterModel& model, const std::string& residue_name, int residue_id) {
  const int64_t before = system.size();
  // Optional per-particle names stay either empty or complete.
  const bool names = system.atom_name.size() == size_t(before) || before == 0;
  const bool residues = system.residue_name.size() == size_t(before) || before == 0;
  const bool ids = system.residue_id.size() == size_t(before) || before == 0;
  int o = system.add_particle(model.mass_o, model.charge_o, kWaterOxygenType);
  int h1 = system.add_particle(model.mass_h, model.charge_h, kWaterHydrogenType);
  int h2 = system.add_particle(model.mass_h, model.charge_h, kWaterHydrogenType);
  if (names) system.atom_name.insert(system.atom_name.end(), {"OW", "HW1", "HW2"});
  if (residues) system.residue_name.insert(system.residue_name.end(), 3, residue_name);
  if (ids) system.residue_id.insert(system.residue_id.end(), 3, residue_id);
  Topology& t = system.topology;
  t.waters.push_back({o, h1, h2, model.r_oh, model.d_hh()});
  t.exclusions.insert(t.exclusions.end(), {{o, h1}, {o, h2}, {h1, h2}});
  return o;
}

WaterBox water_box(const WaterModel& model, const WaterBoxOptions& options) {
  const int64_t count = options.molecules;
  SPIRE_CHECK(count > 0, ValueError, "water_box: molecules must be > 0, got ", count);
  SPIRE_CHECK(3 * count <= std::numeric_limits<int>::max(), ValueError, "water_box: ", count,
              " molecules is more particles than an int index holds");
  SPIRE_CHECK(std::isfinite(options.density) && options.density > 0, ValueError,
              "water_box: density must be finite and > 0 g/cm^3, got ", options.density);
  SPIRE_CHECK(options.clash_distance >= 0, ValueError, "water_box: clash_distance must be >= 0, got ",
              options.clash_distance);

  const double volume = double(count) * model.molar_mass() / (options.density * kGramPerCm3);  // nm^3
  const double edge = std::cbrt(volume);
  int64_t n = 1;
  while (n * n * n < count) ++n;
  const int64_t sites = n * n * n;
  const double spacing = edge / double(n);

  WaterBox out;
  System& system = out.system;
  State& state = out.state;
  system.units = Units::md();
  state.box = Box::orthorhombic(edge, edge, edge);
  state.positions.reserve(size_t(3 * count));

  // The molecule's frame: oxygen at the origin, the HOH bisector along +y.
  const double half = 0.5 * model.theta_hoh;
  const Vec3 h1_body{model.r_oh * std::sin(half), model.r_oh * std::cos(half), 0};
  const Vec3 h2_body{-h1_body.x, h1_body.y, 0};

  // Sites taken evenly from the n^3 grid (every site when count is a cube).
  std::vector<int64_t> site_of(static_cast<size_t>(count)), occupant(static_cast<size_t>(sites), -1);
  for (int64_t m = 0; m < count; ++m) site_of[size_t(m)] = m * sites / count;
  // Sites within this many steps can hold an atom closer than the clash distance.
  const int64_t reach = int64_t(std::ceil((options.clash_distance + 2 * model.r_oh) / spacing));
  const bool check_all = 2 * reach + 1 >= n;
  // The smallest distance from `atoms` (molecule `self`'s candidate placement) to any atom of
  // the other molecules placed so far.
  auto clearance = [&](const Vec3 atoms[3], int64_t self) {
    double closest = std::numeric_limits<double>::infinity();
    auto against = [&](int64_t other) {
      if (other < 0 || other == self) return;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          closest = std::min(closest, norm(state.box.min_image(state.positions[size_t(3 * other + b)] - atoms[a])));
    };
    if (check_all) {
      for (int64_t other = 0; other < int64_t(state.positions.size()) / 3; ++other) against(other);
      return closest;
    }
    const int64_t site = site_of[size_t(self)];
    const int64_t i = site % n, j = site / n % n, k = site / (n * n);
    auto wrap = [n](int64_t c) { return (c % n + n) % n; };
    for (int64_t dk = -reach; dk <= reach; ++dk)
      for (int64_t dj = -reach; dj <= reach; ++dj)
        for (int64_t di = -reach; di <= reach; ++di)
          against(occupant[size_t((wrap(k + dk) * n + wrap(j + dj)) * n + wrap(i + di))]);
    return closest;
  };
  // Tries kAttempts orientations of molecule m (Philox draws from `first_draw` on) about its
  // oxygen `o`, keeping the first that clears the clash distance, else the one that comes
  // closest; `best` holds the placement to beat and its clearance on entry.
  auto orient = [&](int64_t m, const Vec3& o, uint64_t first_draw, Vec3 best[3], double& best_clearance) {
    for (int attempt = 0; attempt < kAttempts && best_clearance < options.clash_distance; ++attempt) {
      Rotation r = random_rotation(options.seed, first_draw + uint64_t(attempt));
      Vec3 atoms[3] = {o, o + r * h1_body, o + r * h2_body};
      double c = clearance(atoms, m);
      if (c > best_clearance) {
        best_clearance = c;
        std::copy(atoms, atoms + 3, best);
      }
    }
  };

  for (int64_t m = 0; m < count; ++m) {
    const int64_t site = site_of[size_t(m)];
    const int64_t i = site % n, j = site / n % n, k = site / (n * n);
    const Vec3 o{(double(i) + 0.5) * spacing, (double(j) + 0.5) * spacing, (double(k) + 0.5) * spacing};
    Vec3 best[3];
    double best_clearance = -1;
    orient(m, o, uint64_t(m) * kAttempts, best, best_clearance);
    add_water(system, model, options.residue_name, int(m + 1));
    state.positions.insert(state.positions.end(), best, best + 3);
    occupant[size_t(site)] = m;
  }
  // Molecules placed early saw few neighbours; those still too close to one are drawn again,
  // now against all of them, in a few sweeps (in molecule order, with fresh draws per sweep).
  for (int sweep = 1; sweep <= kSweeps; ++sweep) {
    bool clashes = false;
    for (int64_t m = 0; m < count; ++m) {
      Vec3* atoms = &state.positions[size_t(3 * m)];
      double c = clearance(atoms, m);
      if (c >= options.clash_distance) continue;
      clashes = true;
      Vec3 best[3] = {atoms[0], atoms[1], atoms[2]};
      orient(m, atoms[0], (uint64_t(sweep) * uint64_t(count) + uint64_t(m)) * kAttempts, best, c);
      std::copy(best, best + 3, atoms);
    }
    if (!clashes) break;
  }
  system.topology.normalize_exclusions();
  state.velocities.assign(state.positions.size(), Vec3{});
  return out;
}

}  // namespace spire::sponge
