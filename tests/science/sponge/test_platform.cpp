// Platforms (science/sponge/platform.h) and a Simulation that runs its steps on one, tested without a
// GPU: this file registers "reference", a platform whose "device" is the cpu's own integrator
// stepping a private copy of the system, state and force field. A run on it must give the same
// bits as the plain cpu run, which checks everything the Simulation does around a device (chunks
// that end at every due report and callback, downloads into the host state, forces, integrator
// variables and constraint virial, uploads after modify_state() and restore(), the stop flag
// between chunks, checkpoints across platforms) independently of any device's arithmetic.
// Also: choosing a platform by name ("cpu", "cuda:1"), and the errors for names and indices.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/data/hdf5_util.h"
#include "science/sponge/checkpoint.h"
#include "science/sponge/job.h"
#include "science/sponge/platform.h"
#include "tests/common/temp_dir.h"
#include "tests/science/sponge/support_hdf5_read.h"

namespace spire::sponge {
namespace {

using fixtures::read_all;
using fixtures::TempDir;

// What the reference platform's devices did, for the chunking checks.
struct DeviceLog {
  int made = 0;
  int uploads = 0;
  std::vector<int64_t> chunk_ends;  // the device's step after each run()
  std::vector<int64_t> chunks;      // the steps of each run()
  void clear() { *this = DeviceLog(); }
};
DeviceLog& device_log() {
  static DeviceLog log;
  return log;
}

// How the test builds the device's integrator: like the host's (the factory sees the host one as an
// Integrator&, which it cannot copy).
std::function<std::shared_ptr<Integrator>()>& device_integrator_recipe() {
  static std::function<std::shared_ptr<Integrator>()> recipe;
  return recipe;
}

ForceField copy_terms(const ForceField& from) {
  ForceField ff(from.skin());
  for (const ForcePtr& t : from.terms()) ff.add(t);
  return ff;
}

// The cpu's step on a private copy: its own state, its own ForceField (its own neighbour list, the
// host's terms, which the host never evaluates while a device runs) and its own integrator.
class ReferenceDynamics : public DeviceDynamics {
 public:
  ReferenceDynamics(const System& system, const ForceField& forces, std::shared_ptr<Integrator> integrator, int device)
      : system_(system), forces_(copy_terms(forces)), integrator_(std::move(integrator)), device_(device) {}
  std::string device() const override { return "reference:" + std::to_string(device_) + " (the cpu, privately)"; }
  void upload(const State& state, const IntegratorState& variables) override {
    ++device_log().uploads;
    state_ = state;
    integrator_->load_state(variables);
    integrator_->prepare(system_, state_, forces_);
  }
  void run(int64_t steps) override {
    EXPECT_GE(steps, 1);
    for (int64_t k = 0; k < steps; ++k) integrator_->step(system_, state_, forces_);
    device_log().chunks.push_back(steps);
    device_log().chunk_ends.push_back(state_.step);
  }
  void download(State& state, ForceResult& forces, IntegratorState& variables, Mat3& constraint_virial) override {
    state = state_;
    forces = forces_.result();
    variables = integrator_->save_state();
    constraint_virial = integrator_->constraint_virial();
  }

 private:
  System system_;
  ForceField forces_;
  std::shared_ptr<Integrator> integrator_;
  int device_;
  State state_;
};

const bool kRegistered = [] {
  register_platform("reference", [](const System& system, const ForceField& forces, const Integrator& integrator,
                                    uint64_t, int device) -> std::unique_ptr<DeviceDynamics> {
    std::shared_ptr<Integrator> own = device_integrator_recipe()();
    SPIRE_CHECK(own->name() == integrator.name(), ConfigError, "reference platform: the recipe makes ", own->name(),
                " for a host ", integrator.name());
    ++device_log().made;
    return std::make_unique<ReferenceDynamics>(system, forces, std::move(own), device);
  });
  return true;
}();

std::string config_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

void expect_same_bits(const State& a, const State& b) {
  ASSERT_EQ(a.positions.size(), b.positions.size());
  EXPECT_EQ(0, std::memcmp(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(Vec3)));
  EXPECT_EQ(0, std::memcmp(a.velocities.data(), b.velocities.data(), a.velocities.size() * sizeof(Vec3)));
  EXPECT_EQ(a.box, b.box);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.time, b.time);
}

void expect_same_results(const Simulation& a, const Simulation& b) {
  expect_same_bits(a.state(), b.state());
  EXPECT_EQ(a.forces().energies, b.forces().energies);
  EXPECT_EQ(a.forces().virial.m, b.forces().virial.m);
  EXPECT_TRUE(a.forces().forces == b.forces().forces);
  EXPECT_EQ(a.integrator().save_state(), b.integrator().save_state());
  EXPECT_EQ(a.observables().pressure_tensor.m, b.observables().pressure_tensor.m);  // with the constraint virial
  EXPECT_EQ(a.observables().conserved_energy, b.observables().conserved_energy);
}

testing::DoubleArray read_dataset(const std::string& path, const std::string& name) {
  data::Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  return testing::read_doubles(file, name);
}

// ---- choosing a platform ----

TEST(PlatformRegistry, ListsCpuFirstThenTheRegisteredOnesInNameOrder) {
  const std::vector<std::string> names = platforms();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "cpu");
  EXPECT_TRUE(std::is_sorted(names.begin() + 1, names.end()));
  EXPECT_EQ(std::count(names.begin(), names.end(), "reference"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "cpu"), 1);
}

TEST(PlatformChoice, ParsesANameAndAnOptionalDeviceIndex) {
  PlatformChoice c = parse_platform("cpu");
  EXPECT_EQ(c.name, "cpu");
  EXPECT_EQ(c.device, 0);
  c = parse_platform("reference");
  EXPECT_EQ(c.name, "reference");
  EXPECT_EQ(c.device, 0);
  c = parse_platform("reference:3");
  EXPECT_EQ(c.name, "reference");
  EXPECT_EQ(c.device, 3);
  EXPECT_EQ(parse_platform("reference:0").device, 0);
}

TEST(PlatformChoice, BadNamesAndIndicesAreNamedWithWhatThereIs) {
  const std::string known = detail::join(platforms());
  for (const char* text : {"gpu", "CPU", "", ":1", "nosuch:0"}) {
    const std::string message = config_error_of([&] { parse_platform(text); });
    EXPECT_NE(message.find(std::string("unknown platform '") + text + "'; this build has: " + known),
              std::string::npos)
        << text << ": " << message;
  }
  // cuda is a platform of its own library, which this test program does not load: without it
  // "cuda:..." is an unknown platform; with it, a bad index. Either way a ConfigError naming the text.
  for (const char* text : {"cuda:-1", "cuda:x"}) {
    const std::string message = config_error_of([&] { parse_platform(text); });
    EXPECT_NE(message.find(std::string("'") + text + "'"), std::string::npos) << message;
  }
  for (const char* text : {"reference:-1", "reference:x", "reference:", "reference:1x", "reference: 1",
                           "reference:+1", "reference:99999999999"}) {
    const std::string message = config_error_of([&] { parse_platform(text); });
    EXPECT_NE(message.find(std::string("platform '") + text +
                           "': the device index must be an integer >= 0, as in reference:0 or reference:1"),
              std::string::npos)
        << text << ": " << message;
  }
  EXPECT_NE(config_error_of([] { parse_platform("cpu:1"); }).find("platform 'cpu:1': cpu takes no device index"),
            std::string::npos);
}

TEST(PlatformRegistry, RefusesCpuAndMalformedNamesAndNamesUnknownPlatforms) {
  auto factory = [](const System&, const ForceField&, const Integrator&, uint64_t,
                    int) -> std::unique_ptr<DeviceDynamics> { return nullptr; };
  EXPECT_THROW(register_platform("cpu", factory), ValueError);
  EXPECT_THROW(register_platform("Cuda", factory), ValueError);
  EXPECT_THROW(register_platform("cuda:0", factory), ValueError);
  EXPECT_THROW(register_platform("", factory), ValueError);
  EXPECT_THROW(register_platform("empty", nullptr), ValueError);
  const std::vector<std::string> names = platforms();
  EXPECT_EQ(std::count(names.begin(), names.end(), "empty"), 0);

  System system;
  system.add_particle(1, 0, "A");
  ForceField forces;
  const MdJob job = parse_md_job("units = \"lj\"\n[system]\nlattice = { density = 0.8, cells = [1, 1, 1] }\n"
                                 "[run]\nsteps = 1\n",
                                 "job.toml");
  std::shared_ptr<Integrator> integrator = make_integrator(job);
  EXPECT_NE(config_error_of([&] { make_device_dynamics({"cpu", 0}, system, forces, *integrator, 0); })
                .find("the cpu platform has no device dynamics"),
            std::string::npos);
  EXPECT_NE(config_error_of([&] { make_device_dynamics({"nosuch", 0}, system, forces, *integrator, 0); })
                .find("unknown platform 'nosuch'; this build has: " + detail::join(platforms())),
            std::string::npos);

  // A Simulation names an unknown platform when it is made, not at its first step.
  BuiltSystem built = build_system(job);
  SimulationOptions o;
  o.platform = {"nosuch", 0};
  const std::string message = config_error_of([&] {
    Simulation sim(built.system, built.state, make_force_field(job, built.system, built.state), integrator, o);
  });
  EXPECT_NE(message.find("unknown platform 'nosuch"), std::string::npos) << message;
}

// ---- a Simulation on a device platform ----

// 64 SPC/E waters (SETTLE), PME and Langevin dynamics, with every output, as a job; platform
// chosen in the job file.
std::string water_job(const std::string& platform) {
  return R"(units = "md"
[system]
water = { model = "spce", molecules = 64, seed = 3 }
[forces.lj]
cutoff = 0.5
[forces.coulomb]
method = "pme"
[integrator]
kind = "langevin"
dt = 0.002
temperature = 300.0
[velocities]
temperature = 300.0
[minimize]
max_iterations = 20
[run]
steps = 23
seed = 9
progress = 0
platform = ")" + platform + R"("
[output]
thermo = { interval = 3 }
h5md = { interval = 7, force = true }
checkpoint = { interval = 10 }
)";
}

struct CallbackRecord {
  int64_t step;
  double kinetic, pressure, conserved;
  friend bool operator==(const CallbackRecord&, const CallbackRecord&) = default;
};

TEST(PlatformSimulation, WaterRunOnADeviceGivesTheCpuRunsBitsAndFiles) {
  TempDir cpu_dir("platform_cpu_"), device_dir("platform_device_");
  const MdJob cpu_job = parse_md_job(water_job("cpu"), "cpu.toml");
  const MdJob device_job = parse_md_job(water_job("reference"), "device.toml");
  EXPECT_EQ(device_job.run.platform.name, "reference");
  device_integrator_recipe() = [&] { return make_integrator(device_job); };
  device_log().clear();

  std::ostringstream cpu_log, device_log_text;
  JobRun cpu = start_job(cpu_job, cpu_dir.file(""), false, &cpu_log);
  JobRun device = start_job(device_job, device_dir.file(""), false, &device_log_text);
  std::vector<CallbackRecord> cpu_seen, device_seen;
  auto record = [](std::vector<CallbackRecord>& out) {
    return [&out](Simulation& s) {
      const Observables& o = s.observables();
      out.push_back({s.state().step, o.kinetic_energy, o.pressure, o.conserved_energy});
    };
  };
  cpu.simulation->add_callback(5, record(cpu_seen));
  device.simulation->add_callback(5, record(device_seen));

  // Two runs (11 + 12 steps), as a resumed job would make.
  for (int64_t steps : {11, 12}) {
    cpu.simulation->run(steps);
    device.simulation->run(steps);
    expect_same_results(*cpu.simulation, *device.simulation);
  }
  EXPECT_EQ(device.simulation->state().step, 23);
  EXPECT_EQ(device.simulation->device(), "reference:0 (the cpu, privately)");
  EXPECT_NE(device.simulation->observables().pressure_tensor.m, Mat3().m);
  EXPECT_EQ(cpu_seen, device_seen);
  EXPECT_EQ(cpu_seen.size(), 4u);  // steps 5, 10, 15, 20
  EXPECT_EQ(device_log().made, 1);
  EXPECT_EQ(device_log().uploads, 1);  // nothing on the host changed the state

  // Chunks end exactly where the host had something to do: a thermo row (3), a callback (5), a
  // frame (7), a checkpoint (10), the end of each run (11, 23); and nowhere else.
  std::vector<int64_t> expected;
  for (int64_t s = 1; s <= 23; ++s)
    if (s % 3 == 0 || s % 5 == 0 || s % 7 == 0 || s % 10 == 0 || s == 11 || s == 23) expected.push_back(s);
  EXPECT_EQ(device_log().chunk_ends, expected);

  // The outputs, bit for bit: the log on the terminal, the thermo CSV, the trajectory, the checkpoint.
  EXPECT_EQ(cpu_log.str(), device_log_text.str());
  EXPECT_EQ(read_all(cpu_dir.file("thermo.csv")), read_all(device_dir.file("thermo.csv")));
  const std::string log_text = cpu_log.str();
  EXPECT_NE(log_text.find("\n        21 "), std::string::npos) << log_text;  // rows of steps 0, 3, ..., 21
  for (const char* name : {"particles/all/position/step", "particles/all/position/value",
                           "particles/all/velocity/value", "particles/all/force/value", "particles/all/box/edges/value",
                           "observables/potential_energy/value", "observables/pressure/value",
                           "observables/temperature/value"})
    EXPECT_EQ(read_dataset(cpu_dir.file("trajectory.h5"), name), read_dataset(device_dir.file("trajectory.h5"), name))
        << name;
  EXPECT_EQ(read_dataset(device_dir.file("trajectory.h5"), "particles/all/position/step").v,
            (std::vector<double>{0, 7, 14, 21}));
  const Checkpoint a = read_checkpoint(checkpoint_path(cpu_job, cpu_dir.file("")));
  const Checkpoint b = read_checkpoint(checkpoint_path(device_job, device_dir.file("")));
  EXPECT_EQ(b.state.step, 23);  // the end of the run
  expect_same_bits(a.state, b.state);
  EXPECT_EQ(a.integrator_state, b.integrator_state);
}

// in.lj's fluid (256 atoms) under velocity Verlet with a thermostat: its variables travel between
// host and device; no reporter but the final checkpoint, so chunks are as long as allowed.
std::string lj_job(const std::string& platform, const std::string& thermostat) {
  return R"(units = "lj"
[system]
lattice = { kind = "fcc", density = 0.8442, cells = [4, 4, 4] }
[forces.lj]
cutoff = 2.5
[integrator]
thermostat = { kind = ")" + thermostat + R"(", temperature = 1.44, tau = 0.1 }
[velocities]
temperature = 1.44
[run]
steps = 250
seed = 4
progress = 0
platform = ")" + platform + R"("
)";
}

TEST(PlatformSimulation, LongRunsGoInChunksAndTheStopFlagIsReadBetweenThem) {
  for (const char* thermostat : {"nose_hoover", "bussi", "berendsen"}) {
    SCOPED_TRACE(thermostat);
    TempDir cpu_dir("platform_cpu_"), device_dir("platform_device_");
    const MdJob cpu_job = parse_md_job(lj_job("cpu", thermostat), "cpu.toml");
    const MdJob device_job = parse_md_job(lj_job("reference", thermostat), "device.toml");
    device_integrator_recipe() = [&] { return make_integrator(device_job); };
    device_log().clear();
    JobRun cpu = start_job(cpu_job, cpu_dir.file(""), false, nullptr);
    JobRun device = start_job(device_job, device_dir.file(""), false, nullptr);
    cpu.simulation->run(250);
    device.simulation->run(250);
    expect_same_results(*cpu.simulation, *device.simulation);
    EXPECT_EQ(device_log().chunks, (std::vector<int64_t>{100, 100, 50}));
    // The thermostat's variables came back from the device (they moved: the heat, the chain).
    const std::string key = std::string("thermostat.") + thermostat + ".";
    int saved = 0;
    for (const auto& [name, values] : device.simulation->integrator().save_state())
      if (name.rfind(key, 0) == 0) saved += std::any_of(values.begin(), values.end(), [](double v) { return v != 0; });
    EXPECT_GE(saved, 1) << "no moving " << key << " variables";
    const Checkpoint a = read_checkpoint(checkpoint_path(cpu_job, cpu_dir.file("")));
    const Checkpoint b = read_checkpoint(checkpoint_path(device_job, device_dir.file("")));
    expect_same_bits(a.state, b.state);
    EXPECT_EQ(a.integrator_state, b.integrator_state);
  }

  // A stop set by a callback (a due step, so a chunk ends there) ends both runs at that step.
  const MdJob cpu_job = parse_md_job(lj_job("cpu", "bussi"), "cpu.toml");
  const MdJob device_job = parse_md_job(lj_job("reference", "bussi"), "device.toml");
  device_integrator_recipe() = [&] { return make_integrator(device_job); };
  device_log().clear();
  std::atomic<bool> cpu_stop{false}, device_stop{false};
  MakeOptions cpu_options, device_options;
  cpu_options.stop = &cpu_stop;
  device_options.stop = &device_stop;
  std::unique_ptr<Simulation> cpu = make_simulation(cpu_job, cpu_options);
  std::unique_ptr<Simulation> device = make_simulation(device_job, device_options);
  cpu->add_callback(130, [&](Simulation&) { cpu_stop = true; });
  device->add_callback(130, [&](Simulation&) { device_stop = true; });
  cpu->run(250);
  device->run(250);
  EXPECT_TRUE(cpu->interrupted());
  EXPECT_TRUE(device->interrupted());
  EXPECT_EQ(device->state().step, 130);
  expect_same_results(*cpu, *device);
  EXPECT_EQ(device_log().chunks, (std::vector<int64_t>{100, 30}));
  // Set before a run: no step at all, on either.
  device->run(10);
  EXPECT_TRUE(device->interrupted());
  EXPECT_EQ(device->state().step, 130);
  // Cleared: the run goes on from where it was, as the uninterrupted one.
  cpu_stop = false, device_stop = false;
  cpu->run(70);
  device->run(70);
  EXPECT_FALSE(device->interrupted());
  expect_same_results(*cpu, *device);
  EXPECT_EQ(device_log().chunk_ends.back(), 200);
}

TEST(PlatformSimulation, CallbackChangesAreUploadedBeforeTheNextChunk) {
  const MdJob cpu_job = parse_md_job(water_job("cpu"), "cpu.toml");
  const MdJob device_job = parse_md_job(water_job("reference"), "device.toml");
  device_integrator_recipe() = [&] { return make_integrator(device_job); };
  device_log().clear();
  std::unique_ptr<Simulation> cpu = make_simulation(cpu_job);
  std::unique_ptr<Simulation> device = make_simulation(device_job);
  // Every 4th step: cool by half and push one water (SETTLE keeps it rigid on the next step).
  auto kick = [](Simulation& s) {
    State& st = s.modify_state();
    for (Vec3& v : st.velocities) v *= 0.5;
    for (int a = 0; a < 3; ++a) st.positions[size_t(a)].x += 0.01;
  };
  cpu->add_callback(4, kick);
  device->add_callback(4, kick);
  cpu->run(10);
  device->run(10);
  expect_same_results(*cpu, *device);
  EXPECT_EQ(device_log().uploads, 3);  // the start, steps 4 and 8
  EXPECT_EQ(device_log().chunk_ends, (std::vector<int64_t>{4, 8, 10}));

  // Between runs: the next run uploads first.
  cpu->modify_state().velocities[7].y += 0.3;
  device->modify_state().velocities[7].y += 0.3;
  cpu->run(3);
  device->run(3);
  expect_same_results(*cpu, *device);
  EXPECT_EQ(device_log().uploads, 5);  // and again for the callback at step 12
}

TEST(PlatformSimulation, CheckpointsRestartOnEitherPlatform) {
  TempDir dir("platform_checkpoint_");
  const MdJob cpu_job = parse_md_job(lj_job("cpu", "bussi"), "cpu.toml");
  const MdJob device_job = parse_md_job(lj_job("reference", "bussi"), "device.toml");
  device_integrator_recipe() = [&] { return make_integrator(device_job); };
  std::unique_ptr<Simulation> straight = make_simulation(cpu_job);
  straight->run(40);

  std::unique_ptr<Simulation> first = make_simulation(device_job);
  first->add_reporter(std::make_shared<CheckpointWriter>(dir.file("run.chk")), 20);
  first->run(20);
  for (const MdJob* job : {&cpu_job, &device_job}) {
    MakeOptions o;
    o.fresh = false;
    std::unique_ptr<Simulation> second = make_simulation(*job, o);
    device_log().clear();
    second->restore(dir.file("run.chk"));
    EXPECT_EQ(second->state().step, 20);
    second->run(20);
    expect_same_results(*straight, *second);
    if (job == &device_job) {
      EXPECT_EQ(device_log().uploads, 1);  // restore() uploads; run() does not again
    }
  }
  // And a checkpoint from the cpu continues on the device.
  std::unique_ptr<Simulation> cpu_first = make_simulation(cpu_job);
  cpu_first->run(20);
  cpu_first->save_checkpoint(dir.file("cpu.chk"));
  MakeOptions o;
  o.fresh = false;
  std::unique_ptr<Simulation> on_device = make_simulation(device_job, o);
  on_device->restore(dir.file("cpu.chk"));
  on_device->run(20);
  expect_same_results(*straight, *on_device);
}

TEST(PlatformSimulation, ProgressLinesNameTheDevice) {
  const MdJob job = parse_md_job(lj_job("reference", "bussi"), "device.toml");
  device_integrator_recipe() = [&] { return make_integrator(job); };
  BuiltSystem built = build_system(job);
  std::ostringstream out;
  SimulationOptions o;
  o.progress = &out;
  o.progress_seconds = 1e-12;  // a line after every chunk
  o.platform = parse_platform("reference:2");
  Simulation sim(built.system, built.state, make_force_field(job, built.system, built.state), make_integrator(job), o);
  EXPECT_EQ(sim.device(), "reference:2");  // before prepare(): no device yet, its name
  sim.run(150);
  const std::string text = out.str();
  EXPECT_NE(text.find("step 100 (100/150, 66.7%)"), std::string::npos) << text;
  EXPECT_NE(text.find("tau/day on reference:2 (the cpu, privately), ETA"), std::string::npos) << text;
  EXPECT_NE(text.find("150 steps in"), std::string::npos) << text;
  EXPECT_EQ(sim.device(), "reference:2 (the cpu, privately)");
}

}  // namespace
}  // namespace spire::sponge
