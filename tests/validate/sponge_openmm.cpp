// Validation of science/sponge's electrostatics and bonded terms against OpenMM, side by side.
//
// tests/validate/peers/sponge_openmm_reference.py builds a water box with a charged chain (orthorhombic
// and triclinic cells), evaluates it with OpenMM's Reference platform (double precision) term by
// term, and writes the systems, parameters and OpenMM's energies and forces to a text file. This
// program reads that file, evaluates the same terms with spire::sponge (PME, Ewald and reaction
// field through a ForceField and its neighbour list; harmonic bonds and angles; periodic
// torsions) and compares: energies to 1e-5 relative and forces to 1e-5 of their rms (the
// agreement is far closer; these are the bounds). It also checks that the mesh Spire picks
// for OpenMM's error tolerance is the one OpenMM's CPU platform picks.
//
//   python3 tests/validate/peers/sponge_openmm_reference.py /tmp/sponge_openmm.txt
//   sponge_openmm /tmp/sponge_openmm.txt
// or just `sponge_openmm` from the repository root: it runs the script itself (python3 with openmm).
//
// Prints `figure:` lines with both sides and `ok:`/`FAILED:` lines; exits 1 on any failure.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "science/sponge/bonded.h"
#include "science/sponge/ewald.h"
#include "science/sponge/force_field.h"
#include "science/sponge/pme.h"
#include "science/sponge/reaction_field.h"

using namespace spire::sponge;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok: " : "FAILED: ") << what << std::endl;
  if (!ok) ++failures;
}

struct Reference {
  std::string name;
  System system;
  State state;
  double cutoff = 0, alpha = 0, tolerance = 0, epsilon_rf = 0;
  std::array<int, 3> mesh{}, cpu_mesh{};
  std::map<std::string, double> energy;
  std::map<std::string, std::vector<Vec3>> forces;
};

[[noreturn]] void bad_file(const std::string& path, const std::string& what) {
  std::cerr << "sponge_openmm: " << path << ": " << what << std::endl;
  std::exit(2);
}

std::vector<Reference> read(const std::string& path) {
  std::ifstream in(path);
  if (!in) bad_file(path, "cannot open");
  std::vector<Reference> systems;
  std::string line, key;
  auto expect = [&](const std::string& want) {
    if (!(in >> key) || key != want) bad_file(path, "expected '" + want + "', found '" + key + "'");
  };
  while (in >> key) {
    if (key[0] == '#') {
      std::getline(in, line);
      continue;
    }
    if (key != "system") bad_file(path, "expected 'system', found '" + key + "'");
    Reference r;
    in >> r.name;
    expect("box");
    Vec3 v[3];
    for (auto& x : v) in >> x.x >> x.y >> x.z;
    r.state.box = Box::triclinic(v[0], v[1], v[2]);
    expect("cutoff");
    in >> r.cutoff;
    expect("pme");
    in >> r.alpha >> r.mesh[0] >> r.mesh[1] >> r.mesh[2] >> r.tolerance;
    expect("cpu_mesh");
    in >> r.cpu_mesh[0] >> r.cpu_mesh[1] >> r.cpu_mesh[2];
    expect("reaction_field");
    in >> r.epsilon_rf;
    expect("particles");
    int64_t n;
    in >> n;
    for (int64_t i = 0; i < n; ++i) {
      double q, m;
      Vec3 x;
      in >> q >> m >> x.x >> x.y >> x.z;
      r.system.add_particle(m, q, "X");
      r.state.positions.push_back(x);
    }
    Topology& t = r.system.topology;
    expect("exclusions");
    in >> n;
    t.exclusions.resize(size_t(n));
    for (auto& [i, j] : t.exclusions) in >> i >> j;
    t.normalize_exclusions();
    expect("pairs14");
    in >> n;
    t.pairs14.resize(size_t(n));
    for (auto& p : t.pairs14) {
      in >> p.i >> p.j >> p.coulomb_scale;
      p.lj_scale = 0.5;
    }
    expect("bonds");
    in >> n;
    t.bonds.resize(size_t(n));
    for (auto& b : t.bonds) in >> b.i >> b.j >> b.length >> b.k;
    expect("angles");
    in >> n;
    t.angles.resize(size_t(n));
    for (auto& a : t.angles) in >> a.i >> a.j >> a.k >> a.theta0 >> a.k_theta;
    expect("torsions");
    in >> n;
    t.torsions.resize(size_t(n));
    for (auto& d : t.torsions) in >> d.i >> d.j >> d.k >> d.l >> d.n >> d.phase >> d.k_phi;
    while (in >> key && key != "end") {
      std::string term;
      if (key == "energy") {
        in >> term >> r.energy[term];
      } else if (key == "forces") {
        in >> term >> n;
        auto& f = r.forces[term];
        f.resize(size_t(n));
        for (auto& x : f) in >> x.x >> x.y >> x.z;
      } else {
        bad_file(path, "unexpected '" + key + "'");
      }
    }
    if (!in) bad_file(path, "truncated");
    systems.push_back(std::move(r));
  }
  return systems;
}

// One term through a ForceField (with its neighbour list when the term has a cutoff).
ForceResult evaluate(ForcePtr force, const Reference& r) {
  ForceField field(0.1);
  field.add(force);
  field.check(r.system, r.state);
  return field.compute(r.system, r.state);
}

void compare(const Reference& r, const std::string& term, const std::string& label, const ForceResult& ours,
             const std::string& our_term) {
  if (!r.energy.count(term)) return;
  const double theirs = r.energy.at(term), mine = ours.energy_of(our_term);
  const double rel = std::fabs(mine - theirs) / std::max(std::fabs(theirs), 1e-300);
  const auto& f = r.forces.at(term);
  double rms = 0, worst = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    rms += norm2(f[i]);
    worst = std::max(worst, norm(ours.forces[i] - f[i]));
  }
  rms = std::sqrt(rms / double(f.size()));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "figure: %s %s: Spire %.10f kJ/mol, OpenMM %.10f kJ/mol, relative difference %.1e; forces: "
                "largest difference %.1e of the rms force %.3g kJ/mol/nm",
                r.name.c_str(), label.c_str(), mine, theirs, rel, rms > 0 ? worst / rms : 0.0, rms);
  std::cout << buf << std::endl;
  check(rel <= 1e-5, r.name + " " + label + " energy within 1e-5 relative of OpenMM's");
  check(worst <= 1e-5 * rms, r.name + " " + label + " forces within 1e-5 of the rms force of OpenMM's");
}

std::string reference_file(int argc, char** argv) {
  if (argc > 1) return argv[1];
  namespace fs = std::filesystem;
  const fs::path script = fs::path(__FILE__).parent_path() / "peers" / "sponge_openmm_reference.py";
  const fs::path out = fs::temp_directory_path() / ("sponge_openmm_" + std::to_string(::getpid()) + ".txt");
  const std::string command = "python3 '" + script.string() + "' '" + out.string() + "'";
  std::cout << "running " << command << std::endl;
  if (std::system(command.c_str()) != 0) {
    std::cerr << "sponge_openmm: the reference script failed (needs python3 with openmm; or pass a file written by "
                 "it)" << std::endl;
    std::exit(2);
  }
  return out.string();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = reference_file(argc, argv);
  for (const Reference& r : read(path)) {
    std::cout << r.name << ": " << r.system.size() << " particles, cutoff " << r.cutoff << " nm, alpha " << r.alpha
              << "/nm, mesh " << r.mesh[0] << "x" << r.mesh[1] << "x" << r.mesh[2] << std::endl;
    // PME with OpenMM's alpha and mesh, given explicitly.
    compare(r, "coulomb_pme", "PME Coulomb", evaluate(std::make_shared<PmeCoulomb>(
                                                 PmeOptions{.cutoff = r.cutoff, .alpha = r.alpha, .grid = r.mesh}), r),
            "coulomb");
    // PME from the tolerance alone: Spire's alpha and mesh must be OpenMM's.
    auto pme = std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = r.cutoff, .tolerance = r.tolerance});
    const ForceResult from_tolerance = evaluate(pme, r);
    std::cout << "figure: " << r.name << " PME mesh for tolerance " << r.tolerance << ": Spire " << pme->grid()[0]
              << "x" << pme->grid()[1] << "x" << pme->grid()[2] << ", OpenMM CPU platform " << r.cpu_mesh[0] << "x"
              << r.cpu_mesh[1] << "x" << r.cpu_mesh[2] << std::endl;
    check(pme->grid() == r.cpu_mesh, r.name + " PME mesh from the tolerance is OpenMM's CPU platform's");
    check(std::fabs(pme->alpha() - r.alpha) <= 1e-14 * r.alpha, r.name + " alpha from the tolerance is OpenMM's");
    if (pme->grid() == r.mesh) compare(r, "coulomb_pme", "PME Coulomb (mesh from the tolerance)", from_tolerance, "coulomb");
    compare(r, "coulomb_ewald", "Ewald Coulomb",
            evaluate(std::make_shared<EwaldCoulomb>(EwaldOptions{.cutoff = r.cutoff, .tolerance = r.tolerance}), r),
            "coulomb");
    compare(r, "coulomb_rf", "reaction-field Coulomb",
            evaluate(std::make_shared<ReactionFieldCoulomb>(
                         ReactionFieldOptions{.cutoff = r.cutoff, .epsilon_solvent = r.epsilon_rf}),
                     r),
            "coulomb");
    compare(r, "bonds", "harmonic bonds", evaluate(std::make_shared<HarmonicBonds>(), r), "bonds");
    compare(r, "angles", "harmonic angles", evaluate(std::make_shared<HarmonicAngles>(), r), "angles");
    compare(r, "torsions", "periodic torsions", evaluate(std::make_shared<PeriodicTorsions>(), r), "torsions");
  }
  if (argc <= 1) std::filesystem::remove(path);
  std::cout << (failures ? "FAILED: " : "ok: ") << failures << " failures" << std::endl;
  return failures ? 1 : 0;
}
