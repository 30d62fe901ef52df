// The cuda platform on a GPU (label cuda; the tests that need a device skip without one): whole
// Simulations on "cuda" against the same ones on "cpu".
//   - SPC/E water (SETTLE, PME) under Langevin dynamics, 100 steps from the same state and seed:
//     energies agree to 1e-6 relative (the noise is the cpu's bit for bit; what differs is the
//     rounding of fixed-point forces, which the dynamics amplifies slowly over 0.2 ps).
//   - Two cuda runs give the same bits (fixed-point sums): states, energies, virials.
//   - A checkpoint written on cuda restarts on the cpu and on cuda and continues the run.
//   - SHAKE/RATTLE clusters under velocity Verlet with Bussi and Nose-Hoover thermostats and
//     under Langevin dynamics, with the constraint virial in the pressure.
//   - The platform is registered, and names what it runs when asked for something else.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "science/sponge/bussi.h"
#include "science/sponge/checkpoint.h"
#include "science/sponge/constraints.h"
#include "science/sponge/job.h"
#include "science/sponge/langevin.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/nose_hoover.h"
#include "science/sponge/platform.h"
#include "science/sponge/velocities.h"
#include "science/sponge/velocity_verlet.h"
#include "tests/common/require_gpu.h"

namespace spire::sponge {
namespace {

std::string water_job(const std::string& platform) {
  return R"(units = "md"
[system]
water = { model = "spce", molecules = 216, seed = 5 }
[forces.lj]
cutoff = 0.8
[forces.coulomb]
method = "pme"
[integrator]
kind = "langevin"
dt = 0.002
temperature = 300.0
[velocities]
temperature = 300.0
[minimize]
max_iterations = 50
[run]
steps = 100
seed = 9
progress = 0
platform = ")" + platform + R"("
)";
}

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(a), std::abs(b)); }

double max_gap(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double gap = 0;
  for (size_t i = 0; i < a.size(); ++i) gap = std::max(gap, norm(a[i] - b[i]));
  return gap;
}

bool same_bits(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0;
}

// Energies per term, kinetic energy and pressure of two simulations at the same step, within `tol`
// relative (the pressure, a small difference of large terms, against the virial's size).
void expect_close(const Simulation& cpu, const Simulation& gpu, double tol, const char* what) {
  ASSERT_EQ(cpu.state().step, gpu.state().step) << what;
  const auto& a = cpu.forces().energies;
  const auto& b = gpu.forces().energies;
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].first, b[k].first) << what;
    std::printf("figure: %s, step %lld: %s cpu %.10g cuda %.10g (relative %.1e)\n", what,
                (long long)cpu.state().step, a[k].first.c_str(), a[k].second, b[k].second,
                relative(a[k].second, b[k].second));
    EXPECT_LT(relative(a[k].second, b[k].second), tol) << what << ": " << a[k].first;
  }
  const Observables &oa = cpu.observables(), &ob = gpu.observables();
  std::printf("figure: %s, step %lld: kinetic cpu %.10g cuda %.10g, pressure cpu %.6g cuda %.6g, max |dr| %.2e\n",
              what, (long long)cpu.state().step, oa.kinetic_energy, ob.kinetic_energy, oa.pressure, ob.pressure,
              max_gap(cpu.state().positions, gpu.state().positions));
  EXPECT_LT(relative(oa.kinetic_energy, ob.kinetic_energy), tol) << what;
  EXPECT_LT(std::abs(oa.pressure - ob.pressure), 1e3 * tol * (std::abs(oa.pressure) + 1e3)) << what;
  EXPECT_EQ(cpu.state().time, gpu.state().time) << what;
}

TEST(CudaSponge, PlatformIsRegisteredAndNamesWhatItRuns) {
  const std::vector<std::string> names = platforms();
  ASSERT_NE(std::find(names.begin(), names.end(), "cuda"), names.end());
  EXPECT_EQ(parse_platform("cuda:1").device, 1);
  for (const char* bad : {"cuda:-1", "cuda:x", "cuda:"})
    try {
      parse_platform(bad);
      ADD_FAILURE() << bad;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("the device index must be an integer >= 0"), std::string::npos) << e.what();
    }
  // A barostat: refused when the simulation sets up, before any device work (so also without a GPU).
  std::string job = water_job("cuda");
  job.replace(job.find("temperature = 300.0\n[velocities]"), 0,
              "barostat = { kind = \"monte_carlo\", pressure = 1.0 }\n");
  std::unique_ptr<Simulation> sim = make_simulation(parse_md_job(job, "barostat.toml"), MakeOptions{false});
  try {
    sim->prepare();
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("barostat runs on the cpu platform only; the cuda platform runs "
                                         "velocity_verlet"),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaSponge, WaterLangevinFollowsTheCpu) {
  REQUIRE_GPU();
  std::unique_ptr<Simulation> cpu = make_simulation(parse_md_job(water_job("cpu"), "cpu.toml"));
  std::unique_ptr<Simulation> gpu = make_simulation(parse_md_job(water_job("cuda"), "cuda.toml"));
  cpu->prepare();
  gpu->prepare();
  EXPECT_EQ(gpu->device().rfind("cuda:0 (", 0), 0u) << gpu->device();
  EXPECT_TRUE(same_bits(cpu->state().positions, gpu->state().positions));
  expect_close(*cpu, *gpu, 1e-8, "water step 0");
  cpu->run(100);
  gpu->run(100);
  expect_close(*cpu, *gpu, 1e-6, "water after 100 langevin steps");
  EXPECT_LT(Constraints(gpu->system()).max_deviation(gpu->state().box, gpu->state().positions), 1e-9);
  EXPECT_LT(relative(cpu->integrator().save_state().at("integrator.heat")[0],
                     gpu->integrator().save_state().at("integrator.heat")[0]),
            1e-5);
  std::printf("figure: 648-atom SPC/E water, PME: cuda %.4g ns/day, cpu %.4g ns/day\n",
              gpu->speed_per_day() / 1000, cpu->speed_per_day() / 1000);
}

TEST(CudaSponge, TwoRunsGiveTheSameBits) {
  REQUIRE_GPU();
  const MdJob job = parse_md_job(water_job("cuda"), "cuda.toml");
  std::unique_ptr<Simulation> a = make_simulation(job), b = make_simulation(job);
  std::vector<double> energies_a, energies_b;
  a->add_callback(10, [&](Simulation& s) { energies_a.push_back(s.observables().conserved_energy); });
  b->add_callback(10, [&](Simulation& s) { energies_b.push_back(s.observables().conserved_energy); });
  a->run(100);
  b->run(100);
  EXPECT_TRUE(same_bits(a->state().positions, b->state().positions));
  EXPECT_TRUE(same_bits(a->state().velocities, b->state().velocities));
  EXPECT_TRUE(same_bits(a->forces().forces, b->forces().forces));
  EXPECT_EQ(a->forces().energies, b->forces().energies);
  EXPECT_EQ(a->forces().virial.m, b->forces().virial.m);
  EXPECT_EQ(a->observables().pressure_tensor.m, b->observables().pressure_tensor.m);
  EXPECT_EQ(a->integrator().save_state(), b->integrator().save_state());
  EXPECT_EQ(energies_a, energies_b);
  EXPECT_EQ(energies_a.size(), 10u);
}

TEST(CudaSponge, CheckpointOnCudaRestartsOnTheCpuAndOnCuda) {
  REQUIRE_GPU();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "spire_sponge_cuda_checkpoint";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "run.chk").string();
  const MdJob gpu_job = parse_md_job(water_job("cuda"), "cuda.toml");
  const MdJob cpu_job = parse_md_job(water_job("cpu"), "cpu.toml");
  std::unique_ptr<Simulation> straight = make_simulation(gpu_job);
  straight->run(100);
  {
    std::unique_ptr<Simulation> first = make_simulation(gpu_job);
    first->add_reporter(std::make_shared<CheckpointWriter>(path), 50);
    first->run(50);
  }
  EXPECT_EQ(read_checkpoint(path).state.step, 50);
  for (const MdJob* job : {&cpu_job, &gpu_job}) {
    std::unique_ptr<Simulation> second = make_simulation(*job, MakeOptions{false});
    second->restore(path);
    EXPECT_EQ(second->state().step, 50);
    second->run(50);
    expect_close(*second, *straight, 1e-6, job == &cpu_job ? "restarted on the cpu" : "restarted on cuda");
  }
  std::filesystem::remove_all(dir);
}

// 27 "methanes" (SHAKE stars) and 27 three-atom rings (coupled constraints) with Lennard-Jones
// between molecules, in md units.
struct Clusters {
  System system;
  State state;
  Clusters() {
    system.units = Units::md();
    state.box = Box::orthorhombic(2.4, 2.4, 2.4);
    const double a = 0.109 / std::sqrt(3.0);
    const Vec3 tetra[4] = {{a, a, a}, {a, -a, -a}, {-a, a, -a}, {-a, -a, a}};
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y)
        for (int z = 0; z < 3; ++z) {
          const Vec3 site{0.8 * x + 0.1, 0.8 * y + 0.1, 0.8 * z + 0.1};
          const int c = system.add_particle(12.011, 0, "C");
          state.positions.push_back(site);
          for (const Vec3& d : tetra) {
            const int h = system.add_particle(1.008, 0, "H");
            state.positions.push_back(site + d);
            system.topology.constraints.push_back({c, h, 0.109});
          }
          const Vec3 r0 = site + Vec3{0.4, 0.4, 0.4};
          const int p = system.add_particle(14.007, 0, "N"), q = system.add_particle(15.999, 0, "O"),
                    r = system.add_particle(1.008, 0, "H");
          state.positions.push_back(r0);
          state.positions.push_back(r0 + Vec3{0.15, 0, 0});
          state.positions.push_back(r0 + Vec3{0.075, 0.15 * std::sqrt(3.0) / 2, 0});
          system.topology.constraints.push_back({p, q, 0.15});
          system.topology.constraints.push_back({q, r, 0.15});
          system.topology.constraints.push_back({r, p, 0.15});
        }
    system.topology.exclude_bonded(0.5, 0.5);  // within a molecule every pair is 1-2 or 1-3
    maxwell_boltzmann(system, state, 300, 17);
  }
  ForceField forces() const {
    ForceField ff(0.1);
    auto lj = std::make_shared<LennardJones>(0.9, LJCutoffMode::shifted);
    lj->set_type("C", 0.45, 0.34);
    lj->set_type("H", 0.06, 0.25);
    lj->set_type("N", 0.7, 0.32);
    lj->set_type("O", 0.65, 0.3);
    ff.add(lj);
    return ff;
  }
};

TEST(CudaSponge, ConstrainedClustersUnderEveryThermostatFollowTheCpu) {
  REQUIRE_GPU();
  const Clusters c;
  const std::function<std::shared_ptr<Integrator>()> integrators[] = {
      [] { return std::make_shared<VelocityVerlet>(0.002, std::make_shared<BussiThermostat>(300, 0.1, 7)); },
      [] { return std::make_shared<VelocityVerlet>(0.002, std::make_shared<NoseHooverChain>(300, 0.1)); },
      [] { return std::make_shared<LangevinMiddle>(0.002, 300, 5, 7); },
  };
  for (const auto& make : integrators) {
    SimulationOptions o;
    o.progress_seconds = 0;
    o.seed = 7;
    Simulation cpu(c.system, c.state, c.forces(), make(), o);
    o.platform = parse_platform("cuda");
    Simulation gpu(c.system, c.state, c.forces(), make(), o);
    cpu.run(100);
    gpu.run(100);
    const std::string what = "clusters, " + gpu.integrator().name();
    expect_close(cpu, gpu, 1e-6, what.c_str());
    const Constraints constraints(c.system);
    EXPECT_LT(constraints.max_deviation(gpu.state().box, gpu.state().positions), 1e-9) << what;
    EXPECT_LT(constraints.max_velocity_deviation(gpu.state().box, gpu.state().positions, gpu.state().velocities), 1e-8)
        << what;
    for (const auto& [key, values] : cpu.integrator().save_state())
      for (size_t k = 0; k < values.size(); ++k)
        EXPECT_LT(std::abs(values[k] - gpu.integrator().save_state().at(key)[k]), 1e-5 * (1 + std::abs(values[k])))
            << what << ": " << key;
  }
}

}  // namespace
}  // namespace spire::sponge
