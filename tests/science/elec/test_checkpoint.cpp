// Checkpoints and resume (science/elec/checkpoint.h): a run stopped half way and resumed from its
// checkpoint ends with the same bits as the run that was not stopped, in every field, CPML and
// polarisation array and every monitor's accumulators (and the same snapshots, split over a
// continuation file that the one XDMF sidecar lists); checkpoints come on their schedule; a
// finished run extends; checkpoints of another job, and files that are not checkpoints, are refused
// with errors that say why.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "science/elec/checkpoint.h"
#include "science/elec/job.h"
#include "science/elec/job_run.h"
#include "tests/common/expect_error.h"
#include "tests/common/temp_dir.h"

namespace spire::elec {
namespace {

namespace fs = std::filesystem;

// The run's scratch directory: spire_elec_ckpt_<tag>_<test>_<pid>.
struct TempDir : fixtures::TempDir {
  explicit TempDir(const std::string& tag) : fixtures::TempDir("spire_elec_ckpt_" + tag + "_") {}
};

// A 2D run with something in every piece of state: CPML on x, a Drude medium (polarisations), a
// Gaussian source, one monitor of every kind and a port's V and I. `cell` and `boundary` vary it (float32 and
// complex Bloch fields); `until` its length.
std::string resume_job(const std::string& cell = "", const std::string& boundary = "pml = { x = 1.0 }",
                       double until = 12.5) {
  return R"(
[cell]
size = [5, 3]
resolution = 8
dimensions = "2d_tm"
)" + cell + R"(
[boundary]
)" + boundary + R"(
[[material]]
name = "plasma"
epsilon = 2
[[material.susceptibility]]
kind = "drude"
frequency = 0.8
gamma = 0.2
sigma = 1.5
[[geometry]]
shape = "cylinder"
center = [0.8, 0]
radius = 0.5
material = "plasma"
[[source]]
component = "Ez"
center = [-1, 0.2]
[source.profile]
kind = "gaussian"
frequency = 0.4
fwidth = 0.3
[[port]]
component = "Ez"
center = [1.5, -0.5]
size = [0, 0, 1]
frequencies = [0.3, 0.45]
[[monitor]]
kind = "dft_fields"
components = ["Ez", "Hy"]
center = [0, 0]
size = [1, 1]
frequencies = [0.3, 0.5]
[[monitor]]
kind = "flux"
fcen = 0.4
df = 0.3
nfreq = 4
box = { center = [0, 0], size = [2.5, 2] }
[[monitor]]
kind = "near2far"
fcen = 0.4
df = 0.2
nfreq = 2
box = { center = [-1, 0.2], size = [1, 1] }
[monitor.far_field]
radius = 50
phi = [0, 45]
[[monitor]]
kind = "point"
center = [0.3, -0.4]
[[monitor]]
kind = "harminv"
component = "Ez"
center = [0.8, 0.1]
fcen = 0.4
df = 0.4
start_time = 3
[[monitor]]
kind = "snapshots"
name = "movie"
file = "fields.h5"
every = 20
components = ["Ez"]
[run]
until = )" + std::to_string(until) + "\n";
}

std::map<std::string, std::vector<double>> by_name(const SimulationState& s) {
  std::map<std::string, std::vector<double>> out;
  for (const StateArray& a : s) out[a.name] = a.values;
  return out;
}

// Every array of a and b but the snapshot bookkeeping (which differs by design: one part against
// two) has the same bits.
void expect_same_state(JobRun& a, JobRun& b) {
  const auto x = by_name(a.save_state()), y = by_name(b.save_state());
  size_t compared = 0, nonzero = 0;
  for (const auto& [name, values] : x) {
    if (name.rfind("monitors/snapshots", 0) == 0) continue;
    ASSERT_TRUE(y.count(name)) << name << " is missing from the resumed run";
    EXPECT_EQ(values, y.at(name)) << name << " differs";
    ++compared;
    for (double v : values) nonzero += v != 0;
  }
  EXPECT_GT(compared, 30u);
  EXPECT_GT(nonzero, 1000u);  // the fields and monitors hold something
}

RunOutcome run_to_end(JobRun& run, const std::string& checkpoint = "", int64_t every = 0,
                      int* written = nullptr) {
  RunControl c;
  c.checkpoint = checkpoint;
  c.checkpoint_steps = every;
  if (written) c.checkpoint_written = [written](const std::string&, int64_t) { ++*written; };
  return run_job(run, c);
}

// Runs the job in `dir` to step `stop_at`, stopped as Ctrl-C stops it (the flag set during that
// step), so that a checkpoint is written there.
void run_and_stop(JobRun& run, const std::string& checkpoint, int64_t stop_at) {
  std::atomic<bool> stop{false};
  run.simulation().add_step_callback(stop_at, [&](Simulation&) { stop = true; });
  RunControl c;
  c.checkpoint = checkpoint;
  c.stop = &stop;
  const RunOutcome out = run_job(run, c);
  EXPECT_FALSE(out.completed);
  EXPECT_EQ(run.simulation().steps(), stop_at);
  EXPECT_EQ(out.checkpoints, 1);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

struct Variant {
  const char* name;
  std::string cell, boundary;
};

class CheckpointResume : public ::testing::TestWithParam<Variant> {};

TEST_P(CheckpointResume, StoppedAndResumedEqualsUninterruptedBitForBit) {
  const Variant& v = GetParam();
  const std::string toml = resume_job(v.cell, v.boundary);
  TempDir whole("whole"), parts("parts");
  const EmJob job_a = parse_em_job(toml, "job.toml", whole.path());
  const EmJob job_b = parse_em_job(toml, "job.toml", parts.path());
  JobRun a(job_a);
  const int64_t total = a.total_steps();
  ASSERT_EQ(total, 200);
  run_to_end(a);

  const std::string checkpoint = parts.file("job.checkpoint.h5");
  {
    JobRun b(job_b);
    run_and_stop(b, checkpoint, 90);  // half way, off the snapshot schedule
  }  // b ends here, as a stopped process does
  JobRun c(job_b);
  restore_checkpoint(checkpoint, c);
  EXPECT_EQ(c.simulation().steps(), 90);
  EXPECT_EQ(c.simulation().time(), 90 * c.simulation().dt());
  const RunOutcome rest = run_to_end(c, checkpoint);
  EXPECT_TRUE(rest.completed);
  EXPECT_EQ(rest.steps, 110);
  expect_same_state(a, c);
  EXPECT_EQ(a.monitor("flux0").flux->flux(), c.monitor("flux0").flux->flux());
  ASSERT_NE(c.port_monitors()[0], nullptr);
  EXPECT_EQ(a.port_monitors()[0]->voltage(), c.port_monitors()[0]->voltage());
  EXPECT_EQ(a.port_monitors()[0]->current(), c.port_monitors()[0]->current());
  EXPECT_EQ(a.monitor("harminv0").harminv->series().values(Component::Ez),
            c.monitor("harminv0").harminv->series().values(Component::Ez));

  // Snapshots: the same steps and values, the resumed run's in a continuation file, all listed by
  // the one sidecar.
  a.finish();
  c.finish();
  const FieldSnapshotWriter& wa = *a.monitor("movie").snapshots;
  const FieldSnapshotWriter& wc = *c.monitor("movie").snapshots;
  EXPECT_EQ(wa.snapshots(), 10);
  EXPECT_EQ(wc.snapshots(), 10);
  ASSERT_EQ(wc.parts().size(), 2u);
  EXPECT_EQ(fs::path(wc.parts()[1]).filename().string(), "fields.1.h5");
  for (int64_t step = 20; step <= 200; step += 20) {
    const std::string in_c = step <= 90 ? wc.parts()[0] : wc.parts()[1];
    const FieldSnapshot x = read_field_snapshot(wa.path(), Component::Ez, step);
    const FieldSnapshot y = read_field_snapshot(in_c, Component::Ez, step);
    EXPECT_EQ(x.values, y.values) << "snapshot " << step;
    EXPECT_EQ(x.time, y.time);
  }
  std::ifstream sidecar(wc.xdmf_path());
  std::stringstream text;
  text << sidecar.rdbuf();
  EXPECT_EQ(count(text.str(), "<Grid Name=\"Ez_"), 10);
  EXPECT_EQ(count(text.str(), "fields.h5:/fields/Ez/"), 4);    // steps 20 .. 80
  EXPECT_EQ(count(text.str(), "fields.1.h5:/fields/Ez/"), 6);  // steps 100 .. 200
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(parts.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

INSTANTIATE_TEST_SUITE_P(
    Checkpoint, CheckpointResume,
    ::testing::Values(Variant{"float64_pml_drude", "", "pml = { x = 1.0 }"},
                      Variant{"float32_bloch", "precision = \"float32\"", "pml = { x = 1.0 }\nbloch = { y = 0.3 }"}),
    [](const ::testing::TestParamInfo<Variant>& info) { return std::string(info.param.name); });

TEST(Checkpoint, WrittenOnScheduleAndAtTheEnd) {
  TempDir dir("schedule");
  const EmJob job = parse_em_job(resume_job(), "job.toml", dir.path());
  JobRun run(job);
  int written = 0;
  const RunOutcome out = run_to_end(run, dir.file("c.h5"), 50, &written);
  EXPECT_TRUE(out.completed);
  EXPECT_EQ(written, 4);  // steps 50, 100, 150 and the end, 200
  EXPECT_EQ(out.checkpoints, 4);
  EXPECT_EQ(read_checkpoint(dir.file("c.h5")).steps, 200);
  // The job's own settings: checkpoint_every in steps or wall time.
  const EmJob timed = parse_em_job(resume_job() + "checkpoint_every = \"2 h\"\n", "job.toml", dir.path());
  EXPECT_EQ(run_control(timed).checkpoint_seconds, 7200);
  EXPECT_EQ(run_control(timed).checkpoint, dir.file("job.checkpoint.h5"));
}

TEST(Checkpoint, AFinishedRunExtendsWhenUntilIsRaised) {
  TempDir whole("whole"), parts("parts");
  const EmJob longer_a = parse_em_job(resume_job("", "pml = { x = 1.0 }", 25), "job.toml", whole.path());
  JobRun a(longer_a);
  run_to_end(a);
  const std::string checkpoint = parts.file("job.checkpoint.h5");
  {
    const EmJob shorter = parse_em_job(resume_job(), "job.toml", parts.path());
    JobRun b(shorter);
    EXPECT_TRUE(run_to_end(b, checkpoint).completed);  // to step 200, checkpointed there
  }
  const EmJob longer_b = parse_em_job(resume_job("", "pml = { x = 1.0 }", 25), "job.toml", parts.path());
  JobRun c(longer_b);
  restore_checkpoint(checkpoint, c);  // until is not part of the fingerprint
  EXPECT_EQ(c.simulation().steps(), 200);
  EXPECT_EQ(run_to_end(c, checkpoint).steps, 200);
  expect_same_state(a, c);
}

TEST(Checkpoint, AnotherJobsCheckpointIsRefused) {
  TempDir dir("refused");
  const EmJob job = parse_em_job(resume_job(), "job.toml", dir.path());
  const std::string checkpoint = dir.file("job.checkpoint.h5");
  {
    JobRun run(job);
    run_and_stop(run, checkpoint, 10);
  }
  const auto refused = [&](const std::string& from, const std::string& to, const std::vector<std::string>& words) {
    std::string toml = resume_job();
    const size_t at = toml.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    toml.replace(at, from.size(), to);
    const EmJob other = parse_em_job(toml, "job.toml", dir.path());
    JobRun run(other);
    expect_error_naming<ValueError>([&] { restore_checkpoint(checkpoint, run); }, words);
  };
  refused("epsilon = 2", "epsilon = 2.5", {checkpoint, "another job", "geometry", "[[material]]"});
  refused("frequency = 0.4\nfwidth", "frequency = 0.45\nfwidth", {"sources", "[[source]]"});
  refused("resolution = 8", "resolution = 10", {"cell", "[cell]"});
  refused("frequencies = [0.3, 0.5]", "frequencies = [0.3, 0.6]", {"monitors", "[[monitor]]"});
  refused("pml = { x = 1.0 }", "pml = { x = 0.5 }", {"boundaries"});
  // What may change: the analysis of the results, the platform, [run] and [output] settings.
  {
    std::string toml = resume_job() + "progress = 0\ncheckpoint_every = 7\n[output]\nfile = \"other.h5\"\n";
    toml.replace(toml.find("radius = 50"), 11, "radius = 80");
    const EmJob other = parse_em_job(toml, "job.toml", dir.path());
    JobRun run(other);
    EXPECT_NO_THROW(restore_checkpoint(checkpoint, run));
    EXPECT_EQ(run.simulation().steps(), 10);
  }
  // Not a checkpoint at all.
  JobRun run(job);
  expect_error_naming<IOError>([&] { restore_checkpoint(dir.file("none.h5"), run); }, {"none.h5", "no such file"});
  {
    std::ofstream junk(dir.file("junk.h5"));
    junk << "not hdf5";
  }
  expect_error_naming<IOError>([&] { restore_checkpoint(dir.file("junk.h5"), run); }, {"junk.h5", "not an HDF5"});
  run_to_end(run);
  run.finish();
  write_results(dir.file("results.h5"), run);
  expect_error_naming<IOError>([&] { restore_checkpoint(dir.file("results.h5"), run); },
                               {"results.h5", "not an electromagnetics checkpoint"});
}

TEST(Checkpoint, FingerprintLeavesOutWhatAResumeMayChange) {
  const EmJob a = parse_em_job(resume_job(), "a.toml");
  const EmJob b = parse_em_job(resume_job("platform = \"cpu\"", "pml = { x = 1.0 }", 99) +
                                   "checkpoint = \"elsewhere.h5\"\nprogress = 0\n",
                               "b.toml", "/some/other/folder");
  EXPECT_EQ(fingerprint_hash(job_fingerprint(a)), fingerprint_hash(job_fingerprint(b)));
  const std::vector<FingerprintPart> parts = job_fingerprint(a);
  std::vector<std::string> names;
  for (const FingerprintPart& p : parts) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cell", "boundaries", "geometry", "sources", "plane_waves", "ports",
                                             "monitors"}));
}

}  // namespace
}  // namespace spire::elec
