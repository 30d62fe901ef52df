// HDF5 output: what write_solutions stores reads back through read_solutions (values, coordinates,
// names, incomplete samples, coefficients, rejection counts); a write that fails leaves nothing
// under the name. (The dataset names and attributes as other readers see them are checked with
// h5py in tests/python/test_flow.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/core/error.h"
#include "science/flow/output.h"

namespace spire::flow {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("spire_flow_output_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// A made-up 1D solution: field f at snapshot k, point i = f + sin(x_i) cos(t_k) + 0.01 * sample.
Solution made_up(int fields, size_t nt, size_t nx, double sample, size_t reached) {
  Solution s;
  s.coords = {std::vector<double>(nx)};
  for (size_t i = 0; i < nx; ++i) s.coords[0][i] = -1 + 2.0 * double(i) / double(nx);
  for (size_t k = 0; k < reached; ++k) s.t.push_back(0.25 * double(k));
  for (int f = 0; f < fields; ++f) {
    std::vector<double> v;
    for (size_t k = 0; k < reached; ++k)
      for (size_t i = 0; i < nx; ++i) v.push_back(f + std::sin(s.coords[0][i]) * std::cos(s.t[k]) + 0.01 * sample);
    s.fields.push_back(v);
  }
  if (reached < nt) s.complete = false, s.stop_reason = "u is not finite at t = 1, x = 0.5";
  return s;
}

PdeJob job_with(const std::string& layout, const std::string& dtype, std::vector<std::string> fields) {
  PdeJob job;
  job.output.layout = layout;
  job.output.dtype = dtype;
  job.problem.fields = std::move(fields);
  job.toml = "# the job\n";
  job.seed = 42;
  job.where = "test";
  return job;
}

TEST(Output, RoundTripKeepsEveryValue) {
  TempDir dir;
  for (const char* layout : {"pdebench", "pdeformer", "both"}) {
    SolutionSet set;
    for (int s = 0; s < 3; ++s) set.solutions.push_back(made_up(1, 5, 8, s, 5));
    for (int s = 0; s < 3; ++s)
      set.coef.push_back({{"f0", {1.0 * s, 2.0, 3.0}}, {"kappa/value", {0.5 + s}}, {"kappa/type", {1.0}}});
    set.rejected = {{"not finite", 2}, {"checkerboard", 1}};
    const std::string path = dir / (std::string(layout) + ".h5");
    write_solutions(path, job_with(layout, "float64", {"u"}), set);
    SolutionSet back = read_solutions(path);
    EXPECT_EQ(back.fields, std::vector<std::string>{"u"});
    ASSERT_EQ(back.solutions.size(), 3u) << layout;
    for (size_t s = 0; s < 3; ++s) {
      EXPECT_EQ(back.solutions[s].t, set.solutions[s].t);
      EXPECT_EQ(back.solutions[s].coords, set.solutions[s].coords);
      EXPECT_EQ(back.solutions[s].fields, set.solutions[s].fields);  // float64: bit for bit
      EXPECT_TRUE(back.solutions[s].complete);
    }
    EXPECT_EQ(back.coef, set.coef);
    EXPECT_EQ(back.rejected, set.rejected);
  }
}

TEST(Output, Float32StoresToSinglePrecision) {
  TempDir dir;
  SolutionSet set;
  set.solutions.push_back(made_up(2, 4, 16, 0, 4));
  write_solutions(dir / "f32.h5", job_with("pdebench", "float32", {"w", "psi"}), set);
  SolutionSet back = read_solutions(dir / "f32.h5");
  EXPECT_EQ(back.fields, (std::vector<std::string>{"w", "psi"}));
  ASSERT_EQ(back.solutions.size(), 1u);
  for (size_t f = 0; f < 2; ++f)
    for (size_t i = 0; i < set.solutions[0].fields[f].size(); ++i) {
      const double v = set.solutions[0].fields[f][i];
      EXPECT_EQ(back.solutions[0].fields[f][i], double(float(v)));
    }
}

TEST(Output, AStoppedSampleKeepsItsSnapshotsAndItsReason) {
  TempDir dir;
  SolutionSet set;
  set.solutions.push_back(made_up(1, 6, 8, 0, 6));
  set.solutions.push_back(made_up(1, 6, 8, 1, 3));  // stopped after 3 of 6 snapshots
  write_solutions(dir / "stop.h5", job_with("pdebench", "float64", {"u"}), set);
  SolutionSet back = read_solutions(dir / "stop.h5");
  ASSERT_EQ(back.solutions.size(), 2u);
  EXPECT_TRUE(back.solutions[0].complete);
  EXPECT_EQ(back.solutions[0].t.size(), 6u);
  EXPECT_FALSE(back.solutions[1].complete);
  EXPECT_EQ(back.solutions[1].stop_reason, "u is not finite at t = 1, x = 0.5");
  EXPECT_EQ(back.solutions[1].t, set.solutions[1].t);
  EXPECT_EQ(back.solutions[1].fields, set.solutions[1].fields);
}

TEST(Output, AFailedWriteLeavesNothingUnderTheName) {
  TempDir dir;
  SolutionSet set;
  set.solutions.push_back(made_up(2, 4, 8, 0, 4));
  // The PDEformer layout holds one field: the write fails after the file was begun.
  const std::string path = dir / "two_fields.h5";
  try {
    write_solutions(path, job_with("pdeformer", "float64", {"w", "psi"}), set);
    FAIL() << "two fields in the PDEformer layout were accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("pdebench"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir.path));  // no temporary left behind either
  // A previous file under the name survives a failed write untouched.
  write_solutions(path, job_with("pdebench", "float64", {"w", "psi"}), set);
  const auto size = fs::file_size(path);
  EXPECT_THROW(write_solutions(path, job_with("pdeformer", "float64", {"w", "psi"}), set), ConfigError);
  EXPECT_EQ(fs::file_size(path), size);
  EXPECT_EQ(read_solutions(path).fields, (std::vector<std::string>{"w", "psi"}));
  // Mismatched samples are refused before anything is written.
  set.solutions.push_back(made_up(2, 4, 16, 0, 4));
  EXPECT_THROW(write_solutions(dir / "mixed.h5", job_with("pdebench", "float64", {"w", "psi"}), set), ValueError);
  EXPECT_FALSE(fs::exists(dir / "mixed.h5"));
}

TEST(Output, ReadingSomethingElseSaysWhat) {
  TempDir dir;
  EXPECT_THROW(read_solutions(dir / "missing.h5"), IOError);
  std::ofstream(dir / "text.h5") << "not hdf5";
  try {
    read_solutions(dir / "text.h5");
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::flow
