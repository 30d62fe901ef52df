// Job files (science/elec/job.h, job_run.h): every section parsed into the Problem and monitor
// specs it describes; errors that name the key with its table path and what is allowed; a job's
// run equal, bit for bit, to the same problem built and run through the C++ API, and its results
// file holding those numbers.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <variant>

#include "engine/core/error.h"
#include "engine/data/hdf5_util.h"
#include "science/elec/job.h"
#include "science/elec/job_run.h"
#include "tests/common/expect_error.h"
#include "tests/common/temp_dir.h"

namespace spire::elec {
namespace {

// Every section and most keys, as a user would write them.
const char* kFullJob = R"(
default_material = "glass"

[cell]
size = [8, 6]
resolution = 10
dimensions = "2d"
courant = 0.4
precision = "float32"
subpixel = false
subpixel_depth = 2

[boundary]
pml = { x = [1.0, 0.5] }
bloch = { y = 0.25 }
[boundary.pml_profile]
order = 4
reflection = 1e-6

[[material]]
name = "glass"
index = 1.5

[[material]]
name = "metalish"
epsilon = [2, 3, 4]
conductivity = 0.5
[[material.susceptibility]]
kind = "drude"
frequency = 1.2
gamma = 0.1
sigma = 2.0
[[material.susceptibility]]
kind = "debye"
tau = 3.0
delta_epsilon = [1, 2, 3]

[[material]]
name = "wall"
kind = "pec"

[[geometry]]
shape = "block"
center = [0, 0]
size = [inf, 1, inf]
material = "metalish"

[[geometry]]
shape = "sphere"
center = [1, 1]
radius = 0.5
material = "pec"

[[geometry]]
shape = "cylinder"
radius = 0.3
height = 2
axis = [0, 0, 1]
material = "wall"

[[geometry]]
shape = "prism"
vertices = [[0, 0], [1, 0], [0, 1]]
height = 1
material = "air"

[[source]]
component = "Ez"
center = [-2, 0]
amplitude = [1, -2]
[source.profile]
kind = "gaussian"
frequency = 0.15
fwidth = 0.1
cutoff = 4

[[source]]
component = "Ez"
center = [-2, 0]
size = [0, 2]
[source.profile]
kind = "continuous"
frequency = 0.2
end_time = 30
width = 2

[[plane_wave]]
direction = [1, 0]
polarization = [0, 0, 1]
center = [0, 0]
size = [2, 2]
[plane_wave.profile]
kind = "gaussian"
frequency = 0.3
fwidth = 0.2

[[port]]
component = "Ez"
center = [2, 0]
size = [0, 0, 1]
resistance = 75
fcen = 0.2
df = 0.1
nfreq = 3

[[monitor]]
kind = "dft_fields"
components = ["Ez", "Hy"]
center = [0, 0]
size = [1, 1]
frequencies = [0.1, 0.2]

[[monitor]]
kind = "flux"
name = "trans"
fcen = 0.15
df = 0.1
nfreq = 5
save_data = "incident.h5"
[[monitor.region]]
center = [2, 0]
size = [0, 2]
weight = -1

[[monitor]]
kind = "near2far"
box = { center = [0, 0], size = [2, 2] }
frequencies = [0.15]
epsilon = 2.25
[monitor.far_field]
radius = 100
phi = [0, 90, 180]

[[monitor]]
kind = "point"
center = [0.5, 0.5]

[[monitor]]
kind = "harminv"
component = "Ez"
center = [0.1, 0.2]
fcen = 0.15
df = 0.1
min_q = 10

[[monitor]]
kind = "snapshots"
file = "out/fields.h5"
interval = 2.0
components = ["Ez"]
single_precision = true

[run]
until_after_sources = 50
checkpoint_every = "30 min"
progress = 1

[output]
file = "results/run.h5"
)";

TEST(Job, ParsesEverySection) {
  const EmJob job = parse_em_job(kFullJob, "dir/full.toml", "dir");
  const Problem& p = job.problem;
  EXPECT_EQ(p.dimensions, Dimensions::two_tm);  // "2d" with Ez sources: TM
  EXPECT_EQ(p.cell_size.x, 8);
  EXPECT_EQ(p.cell_size.y, 6);
  EXPECT_EQ(p.resolution, 10);
  EXPECT_EQ(p.courant, 0.4);
  EXPECT_EQ(p.precision, Precision::float32);
  EXPECT_FALSE(p.subpixel.subpixel);
  EXPECT_EQ(p.subpixel.depth, 2);
  // Boundaries: pml 1.0 low and 0.5 high along x, bloch along y.
  EXPECT_EQ(p.boundaries.side(0, Side::low).kind, BoundaryKind::pml);
  EXPECT_EQ(p.boundaries.side(0, Side::low).thickness, 1.0);
  EXPECT_EQ(p.boundaries.side(0, Side::high).thickness, 0.5);
  EXPECT_EQ(p.boundaries.side(1, Side::low).kind, BoundaryKind::bloch);
  EXPECT_EQ(p.boundaries.bloch_k(1), 0.25);
  EXPECT_EQ(p.boundaries.pml_profile.order, 4);
  EXPECT_EQ(p.boundaries.pml_profile.reflection, 1e-6);
  // Materials and geometry.
  EXPECT_EQ(job.material_names, (std::vector<std::string>{"glass", "metalish", "wall"}));
  EXPECT_DOUBLE_EQ(p.geometry.default_medium().epsilon_diag.x, 2.25);
  ASSERT_EQ(p.geometry.size(), 4u);
  const Medium& m = p.geometry.media()[size_t(p.geometry.medium_index(0))];
  EXPECT_EQ(m.epsilon_diag.y, 3);
  EXPECT_EQ(m.D_conductivity_diag.x, 0.5 / 2);  // sigma / eps along each axis (medium.h)
  EXPECT_EQ(m.D_conductivity_diag.z, 0.5 / 4);
  ASSERT_EQ(m.E_susceptibilities.size(), 2u);
  EXPECT_EQ(m.E_susceptibilities[0].kind, Susceptibility::Kind::drude);
  EXPECT_EQ(m.E_susceptibilities[0].sigma_diag.y, 2.0);
  EXPECT_EQ(m.E_susceptibilities[1].kind, Susceptibility::Kind::debye);
  EXPECT_EQ(m.E_susceptibilities[1].tau, 3.0);
  EXPECT_EQ(m.E_susceptibilities[1].sigma_diag.z, 3.0);
  EXPECT_TRUE(p.geometry.media()[size_t(p.geometry.medium_index(1))].is_pec());
  EXPECT_TRUE(p.geometry.media()[size_t(p.geometry.medium_index(2))].is_pec());
  EXPECT_TRUE(std::holds_alternative<Block>(p.geometry.solid(0).shape()));
  EXPECT_TRUE(std::isinf(std::get<Block>(p.geometry.solid(0).shape()).size.x));
  EXPECT_EQ(std::get<Sphere>(p.geometry.solid(1).shape()).radius, 0.5);
  EXPECT_EQ(std::get<Cylinder>(p.geometry.solid(2).shape()).height, 2);
  EXPECT_EQ(std::get<Prism>(p.geometry.solid(3).shape()).vertices.size(), 3u);
  // Sources.
  ASSERT_EQ(p.sources.size(), 2u);
  EXPECT_EQ(p.sources[0].amplitude, std::complex<double>(1, -2));
  EXPECT_EQ(job.source_profiles[0].kind, "gaussian");
  EXPECT_EQ(job.source_profiles[0].cutoff, 4);
  const auto* g = dynamic_cast<const GaussianSource*>(p.sources[0].profile.get());
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->frequency(), 0.15);
  EXPECT_DOUBLE_EQ(g->fwidth(), 0.1);
  EXPECT_EQ(p.sources[1].size.y, 2);
  EXPECT_EQ(p.sources[1].profile->end_time(), 30);
  ASSERT_EQ(p.plane_waves.size(), 1u);
  EXPECT_EQ(p.plane_waves[0].polarization.z, 1);
  EXPECT_EQ(p.plane_waves[0].profile->frequency(), 0.3);
  ASSERT_EQ(p.ports.size(), 1u);
  EXPECT_EQ(p.ports[0].resistance, 75);
  EXPECT_EQ(p.ports[0].profile, nullptr);  // no [port.profile]: a passive port
  EXPECT_EQ(job.ports[0].frequencies, frequency_list(0.2, 0.1, 3));
  // Monitors, with their default names.
  ASSERT_EQ(job.monitors.size(), 6u);
  EXPECT_EQ(job.monitors[0].name, "dft_fields0");
  EXPECT_EQ(job.monitors[0].components, (std::vector<Component>{Component::Ez, Component::Hy}));
  EXPECT_EQ(job.monitors[1].name, "trans");
  EXPECT_EQ(job.monitors[1].frequencies.size(), 5u);
  EXPECT_EQ(job.monitors[1].regions[0].weight, -1);
  EXPECT_EQ(job.monitors[1].save_data, (std::filesystem::path("dir") / "incident.h5").string());
  EXPECT_EQ(job.monitors[2].regions.size(), 4u);  // the box's four faces in 2D
  EXPECT_EQ(job.monitors[2].epsilon, 2.25);
  EXPECT_EQ(job.monitors[2].far_field.radius, 100);
  EXPECT_EQ(job.monitors[2].far_field.phi, (std::vector<double>{0, 90, 180}));
  EXPECT_EQ(job.monitors[3].kind, MonitorKind::point);
  EXPECT_TRUE(job.monitors[3].components.empty());  // every component carried
  EXPECT_EQ(job.monitors[4].harminv.min_q, 10);
  EXPECT_EQ(job.monitors[5].every, 50);  // interval 2.0 / dt 0.04
  EXPECT_TRUE(job.monitors[5].single_precision);
  EXPECT_EQ(job.monitors[5].file, (std::filesystem::path("dir") / "out/fields.h5").string());
  // Run and output.
  EXPECT_EQ(job.run.until_after_sources, 50);
  EXPECT_EQ(job.run.checkpoint_seconds, 1800);
  EXPECT_EQ(job.run.progress_seconds, 1);
  EXPECT_EQ(job.output, (std::filesystem::path("dir") / "results/run.h5").string());
  EXPECT_EQ(job.run.checkpoint, (std::filesystem::path("dir") / "results/run.checkpoint.h5").string());
}

TEST(Job, DefaultsFollowMeep) {
  const EmJob job = parse_em_job(R"(
[cell]
size = [4, 4, 4]
resolution = 5
[run]
until = 10
)", "box.toml");
  EXPECT_EQ(job.problem.dimensions, Dimensions::three);
  EXPECT_EQ(job.problem.courant, 0.5);
  EXPECT_EQ(job.problem.precision, Precision::float64);
  EXPECT_TRUE(job.problem.subpixel.subpixel);
  for (int a = 0; a < 3; ++a) EXPECT_EQ(job.problem.boundaries.side(a, Side::low).kind, BoundaryKind::pec);
  EXPECT_EQ(job.output, "box.h5");
  EXPECT_EQ(job.run.checkpoint, "box.checkpoint.h5");
  EXPECT_EQ(job.run.checkpoint_steps, 0);
  EXPECT_EQ(job.run.checkpoint_seconds, 0);
  // 1D: one number is a z coordinate.
  const EmJob one = parse_em_job(R"(
[cell]
size = [10]
dimensions = "1d"
resolution = 20
[[source]]
component = "Ex"
center = -2
[source.profile]
kind = "continuous"
frequency = 1
[run]
until = 5
checkpoint_every = 100
)", "line.toml");
  EXPECT_EQ(one.problem.cell_size.z, 10);
  EXPECT_EQ(one.problem.sources[0].center.z, -2);
  EXPECT_EQ(one.run.checkpoint_steps, 100);
}

// A small valid job, to be broken one part at a time: a 4 x 3 cell at resolution 10 ("2d": the
// source's component picks the polarization) with one source at the origin.
struct SmallJob {
  std::string cell;  // more [cell] keys
  std::string component = "Ez";
  std::string profile = "kind = \"gaussian\"\nfrequency = 0.5\nfwidth = 0.2\n";  // [source.profile]
  std::string extra;  // tables between the source and [run]
  std::string run = "until = 5\n";
};

std::string small_job_with(const SmallJob& j) {
  return "[cell]\nsize = [4, 3]\nresolution = 10\n" + j.cell + "\n[[source]]\ncomponent = \"" + j.component +
         "\"\ncenter = [0, 0]\n[source.profile]\n" + j.profile + j.extra + "\n[run]\n" + j.run;
}
// With tables added before [run].
std::string small_job(const std::string& extra = "") { return small_job_with({.extra = extra}); }

void expect_config_error(const std::string& toml, const std::vector<std::string>& words) {
  expect_error_naming<ConfigError>([&] { parse_em_job(toml, "job.toml"); }, words);
}

TEST(Job, ErrorsNameTheKeyAndWhatIsAllowed) {
  // The small job itself is fine.
  EXPECT_NO_THROW(parse_em_job(small_job(), "job.toml"));
  // Unknown keys: named, with their table and the allowed ones.
  expect_config_error(small_job_with({.cell = "resolutoin = 3"}), {"job.toml", "resolutoin", "[cell]", "resolution"});
  expect_config_error(small_job("[[monitor]]\nkind = \"flux\"\nfrequencies = [1]\nbox = { center = [0, 0], size = "
                                "[1, 1] }\nbogus = 1\n"),
                      {"bogus", "monitor[0]", "save_data"});
  expect_config_error(small_job() + "\n[output]\nfiel = \"x.h5\"\n", {"fiel", "[output]", "file"});
  // Wrong types and bad values, with the table path.
  expect_config_error(small_job_with({.cell = "courant = \"half\""}), {"cell.courant", "number"});
  expect_config_error(small_job_with({.cell = "precision = \"float16\""}), {"cell.precision", "float32", "float64"});
  expect_config_error(R"([cell]
size = [4, 3]
resolution = -1
[run]
until = 1
)", {"cell.resolution", "> 0", "-1"});
  expect_config_error(small_job_with({.cell = "courant = 0.8"}), {"courant", "stability limit"});
  expect_config_error(small_job_with({.profile = "kind = \"gaussian\"\nfrequency = 0.5\n"}),
                      {"source[0].profile", "fwidth"});
  expect_config_error(small_job_with({.component = "Eq"}), {"source[0].component", "Ex, Ey, Ez, Hx, Hy, Hz", "Eq"});
  // Materials and geometry.
  expect_config_error(small_job("[[geometry]]\nshape = \"sphere\"\nradius = 1\nmaterial = \"unobtainium\"\n"),
                      {"geometry[0].material", "unobtainium", "vacuum"});
  expect_config_error(small_job("[[geometry]]\nshape = \"cube\"\nsize = [1, 1]\nmaterial = \"pec\"\n"),
                      {"geometry[0].shape", "block", "prism", "cube"});
  expect_config_error(small_job("[[material]]\nname = \"pec\"\nepsilon = 2\n"), {"material[0].name", "built in"});
  expect_config_error(small_job("[[material]]\nname = \"m\"\nepsilon = -2\n"), {"material[0].epsilon", "> 0"});
  expect_config_error(small_job("[[material]]\nname = \"m\"\n[[material.susceptibility]]\nkind = \"lorentz\"\n"),
                      {"material[0].susceptibility[0].kind", "lorentzian", "drude", "debye"});
  // Boundaries.
  expect_config_error(small_job("[boundary]\nperiodic = [\"z\"]\n"), {"boundary.periodic", "\"z\"", "x, y"});
  expect_config_error(small_job("[boundary]\nperiodic = [\"x\"]\npml = 1\n"), {"pml", "x axis", "periodic"});
  expect_config_error(small_job("[boundary]\npec = [\"x\"]\npmc = [\"x\"]\n"), {"both pec and pmc"});
  expect_config_error(small_job("[boundary]\npmc = [\"y\"]\npml = 0.5\n"), {"y axis in pmc", "both its sides"});
  EXPECT_EQ(parse_em_job(small_job("[boundary]\npmc = [\"y\"]\npml = { x = 0.5, y = [0.5, 0] }\n"), "job.toml")
                .problem.boundaries.side(1, Side::high).kind,
            BoundaryKind::pmc);
  // Monitors.
  expect_config_error(small_job("[[monitor]]\nkind = \"point\"\nname = \"a\"\ncenter = [0, 0]\n[[monitor]]\nkind = "
                                "\"point\"\nname = \"a\"\ncenter = [1, 0]\n"),
                      {"two monitors", "\"a\""});
  expect_config_error(small_job("[[monitor]]\nkind = \"flux\"\nfrequencies = [0.1]\n"),
                      {"monitor[0]", "region", "box"});
  expect_config_error(small_job("[[monitor]]\nkind = \"dft_fields\"\ncomponents = [\"Ex\"]\ncenter = [0, 0]\n"
                                "frequencies = [0.1]\n"),
                      {"Ex", "2d_tm", "Ez, Hx, Hy"});
  expect_config_error(small_job("[[monitor]]\nkind = \"dft_fields\"\ncomponents = [\"Ez\"]\ncenter = [0, 0]\n"
                                "fcen = 0.1\n"),
                      {"monitor[0]", "fcen and nfreq"});
  // Run.
  expect_config_error(R"([cell]
size = [4, 3]
resolution = 10
dimensions = "2d_tm"
[run]
until = 1
until_after_sources = 2
)", {"[run]", "until", "not both"});
  expect_config_error(small_job() + "checkpoint_every = \"ten minutes\"\n", {"run.checkpoint_every", "30 min"});
  // "2d" needs the sources to say which polarization.
  const std::string second = "[[source]]\ncomponent = \"Hz\"\ncenter = [0, 0]\n[source.profile]\n" + SmallJob{}.profile;
  expect_config_error(small_job(second), {"source[0] (Ez)", "source[1] (Hz)", "2d_tm", "2d_te"});
  // TOML syntax errors: the file, line and column.
  expect_config_error("[cell\nsize = 1", {"job.toml:1:"});
}

// The job of the equivalence test: a waveguide with a bend-like block, a flux plane and DFT fields.
const char* kRunJob = R"(
[cell]
size = [6, 4]
resolution = 8
dimensions = "2d_tm"
[boundary]
pml = 1.0
[[material]]
name = "core"
epsilon = 6
[[geometry]]
shape = "block"
center = [0, 0]
size = [inf, 1, inf]
material = "core"
[[source]]
component = "Ez"
center = [-1.5, 0]
size = [0, 1]
[source.profile]
kind = "gaussian"
frequency = 0.3
fwidth = 0.2
[[monitor]]
kind = "flux"
name = "through"
fcen = 0.3
df = 0.2
nfreq = 7
[[monitor.region]]
center = [1.5, 0]
size = [0, 2]
[[monitor]]
kind = "dft_fields"
name = "field"
components = ["Ez"]
center = [0, 0]
size = [2, 1]
frequencies = [0.25, 0.35]
[[monitor]]
kind = "point"
name = "probe"
center = [0.5, 0.25]
components = ["Ez", "Hx"]
[run]
until = 20
)";

Problem same_problem_by_api() {
  Problem p;
  p.dimensions = Dimensions::two_tm;
  p.cell_size = {6, 4, 0};
  p.resolution = 8;
  p.boundaries = Boundaries::pml(1.0);
  p.geometry.add(Block{{0, 0, 0}, {kInfinity, 1, kInfinity}}, Medium::dielectric(6));
  p.sources.push_back(current_sheet(Component::Ez, {-1.5, 0, 0}, {0, 1, 0}, std::make_shared<GaussianSource>(0.3, 0.2)));
  return p;
}

// Reads a dataset of doubles (or the r/i compound, as pairs) from a results file.
std::vector<double> read_dataset(const std::string& path, const std::string& name, bool complex_values = false) {
  data::Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EXPECT_GE(file.id, 0) << path;
  data::Hdf5Id ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  EXPECT_GE(ds.id, 0) << name;
  data::Hdf5Id space(H5Dget_space(ds), H5Sclose);
  std::vector<double> v(size_t(H5Sget_simple_extent_npoints(space)) * (complex_values ? 2 : 1));
  if (complex_values) {
    data::Hdf5Id t(H5Tcreate(H5T_COMPOUND, 16), H5Tclose);
    H5Tinsert(t, "r", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "i", 8, H5T_NATIVE_DOUBLE);
    EXPECT_GE(H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  } else {
    EXPECT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  }
  return v;
}

TEST(Job, RunEqualsTheSameProblemThroughTheApiAndItsResultsFileHoldsIt) {
  const fixtures::TempDir dir("spire_elec_job_");
  EmJob job = parse_em_job(kRunJob, "guide.toml", dir.path());
  JobRun run(job);
  EXPECT_EQ(run.total_steps(), 320);  // until 20 / dt 0.0625
  RunControl control;                 // no checkpoint, no progress
  const RunOutcome out = run_job(run, control);
  EXPECT_TRUE(out.completed);
  EXPECT_EQ(out.steps, 320);
  run.finish();
  write_results(job.output, run);

  Simulation sim = build(same_problem_by_api());
  Monitors monitors(sim);
  Flux& flux = monitors.add_flux({FluxRegion{{1.5, 0, 0}, {0, 2, 0}}}, frequency_list(0.3, 0.2, 7));
  DftFields& dft = monitors.add_dft_fields(Component::Ez, {0, 0, 0}, {2, 1, 0}, {0.25, 0.35});
  PointTimeSeries& probe = monitors.add_point_series({0.5, 0.25, 0}, {Component::Ez, Component::Hx});
  sim.run(20);
  ASSERT_EQ(sim.steps(), 320);

  // The same bits: the job is that problem, nothing more.
  EXPECT_EQ(run.monitor("through").flux->flux(), flux.flux());
  EXPECT_EQ(run.monitor("field").dfts[0]->data(), dft.data());
  EXPECT_EQ(run.monitor("probe").point->values(Component::Hx), probe.values(Component::Hx));
  double peak = 0;
  for (double f : flux.flux()) peak = std::max(peak, f);
  EXPECT_GT(peak, 0);  // something went through

  // The results file holds the same numbers.
  EXPECT_EQ(read_dataset(job.output, "monitors/through/flux"), flux.flux());
  EXPECT_EQ(read_dataset(job.output, "monitors/through/frequencies"), frequency_list(0.3, 0.2, 7));
  const std::vector<double> values = read_dataset(job.output, "monitors/field/Ez/values", true);
  const std::vector<std::complex<double>> expected = dft.data();
  ASSERT_EQ(values.size(), 2 * expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(values[2 * i], expected[i].real());
    EXPECT_EQ(values[2 * i + 1], expected[i].imag());
  }
  EXPECT_EQ(read_dataset(job.output, "monitors/probe/Ez"), probe.values(Component::Ez));
  EXPECT_EQ(read_dataset(job.output, "monitors/field/Ez/x"), dft.positions()[0]);
  data::Hdf5Id file(H5Fopen(job.output.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EXPECT_EQ(data::read_string_attribute(file, "format").value_or(""), "spire.elec.results");
  EXPECT_EQ(data::read_string_attribute(file, "job").value_or(""), kRunJob);
  EXPECT_NE(data::read_string_attribute(file, "dft_convention").value_or("").find("sqrt(2 pi)"), std::string::npos);
  data::Hdf5Id group(H5Gopen2(file, "monitors/through", H5P_DEFAULT), H5Gclose);
  EXPECT_EQ(data::read_string_attribute(group, "kind").value_or(""), "flux");
}

TEST(Job, BuildErrorsNameTheMonitor) {
  // A flux plane outside the cell: the monitor's error, with its name.
  const EmJob job = parse_em_job(small_job("[[monitor]]\nkind = \"flux\"\nname = \"far\"\nfrequencies = [0.5]\n"
                                           "[[monitor.region]]\ncenter = [9, 0]\nsize = [0, 1]\n"),
                                 "job.toml");
  expect_error_naming<ValueError>([&] { JobRun run(job); }, {"monitor \"far\"", "outside the cell"});
  // until_after_sources with a source that never ends.
  const EmJob cw = parse_em_job(
      small_job_with({.profile = "kind = \"continuous\"\nfrequency = 0.5\n", .run = "until_after_sources = 5\n"}),
      "cw.toml");
  JobRun run(cw);
  expect_error_naming<ValueError>([&] { run.total_steps(); }, {"until_after_sources", "end_time"});
}

}  // namespace
}  // namespace spire::elec
