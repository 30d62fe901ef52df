// Dataset generation: the file does not depend on the number of threads or on being resumed;
// rejections are counted as the samples' analytic blow-up times predict; the checkerboard measure
// against fields of known spectra.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <unistd.h>

#include "engine/core/error.h"
#include "science/flow/families.h"
#include "science/flow/generate.h"
#include "science/flow/generate_checks.h"
#include "science/flow/initial.h"
#include "science/flow/output.h"

namespace spire::flow {
namespace {

namespace fs = std::filesystem;

// Each test writes under its own temporary directory, removed afterwards.
class Generate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("spire_test_generate_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string temp_path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

PdeJob burgers_job() {
  PdeJob job;
  job.problem.equations = {"dt(u) + dx(0.5*u^2) - 0.05*dx(dx(u)) = 0"};
  job.discretization.nx = 32;
  job.discretization.x0 = 0, job.discretization.x1 = 1;
  job.time.t_end = 0.02, job.time.dt = 1e-3, job.time.snapshots = 3;
  job.initial = {{"u", "random"}};
  return job;
}

void expect_same(const SolutionSet& a, const SolutionSet& b) {
  ASSERT_EQ(a.solutions.size(), b.solutions.size());
  for (size_t s = 0; s < a.solutions.size(); ++s) {
    EXPECT_EQ(a.solutions[s].t, b.solutions[s].t);
    ASSERT_EQ(a.solutions[s].fields, b.solutions[s].fields) << "sample " << s;  // bit for bit
  }
  EXPECT_EQ(a.coef, b.coef);
  EXPECT_EQ(a.rejected, b.rejected);
}

TEST_F(Generate, ThreadsGiveTheSameFile) {
  GenerateSettings settings;
  settings.samples = 7, settings.seed = 3, settings.threads = 1;
  std::string one = temp_path("one.h5"), two = temp_path("two.h5");
  GenerateReport r1 = generate(burgers_job(), one, settings);
  settings.threads = 2;
  GenerateReport r2 = generate(burgers_job(), two, settings);
  EXPECT_EQ(r1.accepted, 7);
  EXPECT_EQ(r2.accepted, 7);
  SolutionSet a = read_solutions(one), b = read_solutions(two);
  expect_same(a, b);
  EXPECT_NE(a.solutions[0].fields, a.solutions[1].fields);  // samples differ
  EXPECT_FALSE(fs::exists(one + ".partial"));               // the checkpoints are gone when done
}

TEST_F(Generate, ResumedRunEqualsAnUninterruptedOne) {
  GenerateSettings settings;
  settings.samples = 8, settings.seed = 5, settings.threads = 1;
  std::string whole = temp_path("whole.h5"), resumed = temp_path("resumed.h5");
  generate(burgers_job(), whole, settings);

  // A run with another seed leaves checkpoints that must not be taken.
  settings.threads = 2;
  GenerateSettings other = settings;
  other.seed = 6;
  auto stop_after = [](long k) {
    return [k](long done, long) {
      if (done >= k) throw std::runtime_error("stopped");
    };
  };
  EXPECT_THROW(generate(burgers_job(), resumed, other, stop_after(2)), std::runtime_error);
  EXPECT_THROW(generate(burgers_job(), resumed, settings, stop_after(3)), std::runtime_error);
  EXPECT_FALSE(fs::exists(resumed));  // nothing under the output name until it is whole
  EXPECT_TRUE(fs::exists(resumed + ".partial"));
  GenerateReport r = generate(burgers_job(), resumed, settings);
  EXPECT_GE(r.resumed, 3);
  EXPECT_LT(r.resumed, 8);
  expect_same(read_solutions(whole), read_solutions(resumed));

  // resume = false starts afresh and gives the same file
  EXPECT_THROW(generate(burgers_job(), resumed, settings, stop_after(2)), std::runtime_error);
  settings.resume = false;
  EXPECT_EQ(generate(burgers_job(), resumed, settings).resumed, 0);
  expect_same(read_solutions(whole), read_solutions(resumed));
}

// u_t = u^2 pointwise (no dealiasing, so the grid values follow the ODE): u = u0 / (1 - u0 t)
// passes the bound B at t = 1/u0 - 1/B, so a sample is rejected exactly when its largest initial
// value exceeds 1 / (t_end + 1/B).
TEST_F(Generate, RejectionsAreCountedAndReplaced) {
  PdeJob job;
  job.problem.equations = {"dt(u) = u^2"};
  job.discretization.nx = 16, job.discretization.dealias = 1;
  job.discretization.x0 = 0, job.discretization.x1 = 1;
  job.time.t_end = 1.0, job.time.dt = 1e-3, job.time.snapshots = 2, job.time.bound = 100;
  job.initial = {{"u", "random"}};
  GenerateSettings settings;
  settings.samples = 6, settings.seed = 1, settings.threads = 2;
  settings.checkerboard = 1;  // only blow-ups here
  std::string out = temp_path("rejections.h5");
  GenerateReport r = generate(job, out, settings);

  auto space = make_space(job.discretization);
  const double threshold = 1 / (1.0 + 1 / 100.0);
  long kept = 0, rejected = 0;
  std::vector<double> kept_maxima;
  for (uint64_t c = 0; kept < 6; ++c) {
    auto u = random_initial(job.random, *space, 1, c, 0);
    double top = *std::max_element(u.begin(), u.end());
    ASSERT_TRUE(top < 0.95 * threshold || top > 1.05 * threshold) << "sample " << c << " is too close to call";
    (top > threshold ? rejected : kept) += 1;
    if (top < threshold) kept_maxima.push_back(top);
  }
  ASSERT_GT(rejected, 0) << "choose a seed with some blow-ups";
  long counted = 0;
  for (auto& [reason, n] : r.rejected) {
    EXPECT_TRUE(reason == "beyond bound" || reason == "not finite") << reason;
    counted += n;
  }
  EXPECT_EQ(counted, rejected);
  EXPECT_EQ(r.accepted, 6);
  SolutionSet set = read_solutions(out);
  EXPECT_EQ(set.rejected, r.rejected);
  ASSERT_EQ(set.solutions.size(), 6u);
  for (size_t s = 0; s < 6; ++s) {  // the kept samples, in order: their first value at t = 0
    double top = -INFINITY;
    for (size_t i = 0; i < 16; ++i) top = std::max(top, set.solutions[s].fields[0][i]);
    EXPECT_DOUBLE_EQ(top, kept_maxima[s]);
  }
}

TEST_F(Generate, GivesUpWhenEverySampleIsRejected) {
  PdeJob job;
  job.problem.equations = {"dt(u) = u^2"};
  job.discretization.nx = 8, job.discretization.x0 = 0, job.discretization.x1 = 1;
  job.time.t_end = 1, job.time.dt = 1e-2, job.time.snapshots = 2, job.time.bound = 10;
  job.initial = {{"u", "2 + 0*x"}};  // blows up at t = 0.5, every time
  GenerateSettings settings;
  settings.samples = 2, settings.threads = 2;
  try {
    generate(job, temp_path("hopeless.h5"), settings);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("rejected"), std::string::npos) << e.what();
  }
}

// u_t = -k u^3 with k = 100 from u0 = 1.2: the explicit term is unstable at dt = 0.02 (dt 3 k u^2 ~ 9)
// and the run leaves the bound, although the exact solution u = (u0^-2 + 2 k t)^(-1/2) decays. With
// refine = 1 every sample is solved again at dt = 0.002 and kept, close to the exact solution;
// with refine = 0 they are all rejected; and a resumed run still counts them as refined.
TEST_F(Generate, RefineSolvesABlowUpAgainAtASmallerStep) {
  PdeJob job;
  job.problem.equations = {"dt(u) = -100*u^3"};
  job.discretization.nx = 8, job.discretization.x0 = 0, job.discretization.x1 = 1;
  job.time.t_end = 1, job.time.dt = 0.02, job.time.snapshots = 2, job.time.bound = 10;
  job.initial = {{"u", "1.2 + 0*x"}};
  GenerateSettings settings;
  settings.samples = 3, settings.threads = 2, settings.refine = 1;
  const std::string out = temp_path("refined.h5");
  GenerateReport r = generate(job, out, settings);
  EXPECT_EQ(r.accepted, 3);
  EXPECT_EQ(r.refined, 3);
  EXPECT_TRUE(r.rejected.empty());
  SolutionSet set = read_solutions(out);
  ASSERT_EQ(set.solutions.size(), 3u);
  const double exact = 1 / std::sqrt(1 / (1.2 * 1.2) + 2 * 100 * 1.0);
  for (double u : std::vector<double>(set.solutions[0].fields[0].end() - 8, set.solutions[0].fields[0].end()))
    EXPECT_NEAR(u, exact, 1e-2 * exact);  // SBDF2's error at dt = 0.002 is 0.15%

  // Stopped after two samples, then resumed: the checkpointed samples still count as refined.
  const std::string resumed = temp_path("resumed.h5");
  settings.threads = 1;
  EXPECT_THROW(generate(job, resumed, settings, [](long done, long) {
                 if (done >= 2) throw std::runtime_error("stopped");
               }),
               std::runtime_error);
  GenerateReport more = generate(job, resumed, settings);
  EXPECT_GE(more.resumed, 2);
  EXPECT_EQ(more.refined, 3);
  expect_same(set, read_solutions(resumed));

  settings.refine = 0;
  settings.samples = 1;
  EXPECT_THROW(generate(job, temp_path("unrefined.h5"), settings), ValueError);  // every candidate blows up
  settings.refine = 4;
  EXPECT_THROW(generate(job, temp_path("bad.h5"), settings), ConfigError);
}

TEST_F(Generate, FamilySamplesCarryTheirCoefficients) {
  PdeJob job;
  job.family = "pdeformer";
  job.discretization.nx = 32;
  job.time.t_end = 0.05, job.time.dt = 1e-3, job.time.snapshots = 3;
  GenerateSettings settings;
  settings.samples = 3, settings.seed = 2, settings.threads = 2;
  std::string out = temp_path("pdeformer.h5");
  GenerateReport r = generate(job, out, settings);
  SolutionSet set = read_solutions(out);
  ASSERT_EQ(set.solutions.size(), 3u);
  ASSERT_EQ(set.coef.size(), 3u);
  long candidates = r.accepted;
  for (auto& [reason, n] : r.rejected) candidates += n;
  // the coefficients are those of the kept candidates, drawn again here
  auto family = make_family("pdeformer", {});
  PdeJob base = job;
  base.seed = 2;
  size_t s = 0;
  for (long c = 0; c < candidates && s < 3; ++c) {
    FamilySample fs = family->sample(base, c);
    if (fs.coef == set.coef[s]) ++s;
  }
  EXPECT_EQ(s, 3u);
  EXPECT_EQ(set.coef[0].at("f0").size(), 4u);
}

TEST_F(Generate, NavierStokesFamilyIn2D) {
  PdeJob job;
  job.family = "navier_stokes_2d";
  job.family_keys = {{"k_max", 4}, {"nu", 1e-2}};
  Discretization& d = job.discretization;
  d.dims = 2, d.nx = d.ny = 16, d.x0 = d.y0 = 0, d.x1 = d.y1 = 1;
  job.time.t_end = 0.02, job.time.dt = 1e-3, job.time.snapshots = 3;
  GenerateSettings settings;
  settings.samples = 2, settings.threads = 2;
  std::string out = temp_path("ns.h5");
  generate(job, out, settings);
  SolutionSet set = read_solutions(out);
  ASSERT_EQ(set.solutions.size(), 2u);
  EXPECT_EQ(set.fields, (std::vector<std::string>{"w", "psi"}));
  for (const Solution& s : set.solutions) {
    ASSERT_EQ(s.fields[0].size(), 3u * 256u);
    // the vorticity equation is a sum of derivatives (u.grad w = div(u w)): its mean stays zero
    for (int k = 0; k < 3; ++k) {
      double mean = 0;
      for (int i = 0; i < 256; ++i) mean += s.fields[0][k * 256 + i] / 256;
      EXPECT_NEAR(mean, 0.0, 1e-12);
    }
  }
}

TEST_F(Generate, CheckerboardShare) {
  Discretization d;
  d.nx = 32, d.x0 = 0, d.x1 = 1;
  auto space = make_space(d);
  const auto& x = space->coordinates(0, false);
  std::vector<double> u(32);
  for (int i = 0; i < 32; ++i) u[i] = 0.6 * std::cos(2 * M_PI * 3 * x[i]) + 0.8 * std::sin(2 * M_PI * 14 * x[i]);
  EXPECT_NEAR(checkerboard_share(*space, u.data()), 0.64 / 1.0, 1e-12);  // 14 >= 7/8 * 16
  for (int i = 0; i < 32; ++i) u[i] = 1 + std::cos(2 * M_PI * 13 * x[i]);
  EXPECT_NEAR(checkerboard_share(*space, u.data()), 0.0, 1e-12);

  Discretization c;
  c.basis = "chebyshev", c.periodic = false, c.nx = 16;
  auto cheb = make_space(c);
  std::vector<double> v(16);
  const auto& xc = cheb->coordinates(0, false);
  for (int i = 0; i < 16; ++i) v[i] = std::cos(15 * std::acos(std::clamp(xc[i], -1.0, 1.0))) + 2 * xc[i];  // T15 + 2 T1
  EXPECT_NEAR(checkerboard_share(*cheb, v.data()), 1.0 / 5, 1e-10);

  Discretization s;
  s.dims = 2, s.nx = 16, s.ny = 16, s.x0 = s.y0 = 0, s.x1 = s.y1 = 1;
  auto square = make_space(s);
  std::vector<double> w(256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) w[i * 16 + j] = std::cos(2 * M_PI * i / 16.0) + std::cos(2 * M_PI * 7 * j / 16.0);
  EXPECT_NEAR(checkerboard_share(*square, w.data()), 0.5, 1e-12);
}

TEST_F(Generate, RejectionReasons) {
  Discretization d;
  d.nx = 8, d.x0 = 0, d.x1 = 1;
  auto space = make_space(d);
  Solution s;
  s.t = {0};
  s.fields = {std::vector<double>(8, 1.0)};
  EXPECT_EQ(rejection_reason(*space, s, 10, 0.01), "");
  s.fields[0][3] = 11;
  EXPECT_EQ(rejection_reason(*space, s, 10, 0.01), "beyond bound");
  s.fields[0][3] = NAN;
  EXPECT_EQ(rejection_reason(*space, s, 10, 0.01), "not finite");
  s.fields[0][3] = 1;
  for (int i = 0; i < 8; ++i) s.fields[0][i] = i % 2 ? 1 : -1;  // the grid-scale mode alone
  EXPECT_EQ(rejection_reason(*space, s, 10, 0.01), "checkerboard");
}

TEST_F(Generate, BadSettings) {
  GenerateSettings settings;
  settings.samples = 0;
  EXPECT_THROW(generate(burgers_job(), temp_path("bad.h5"), settings), ConfigError);
}

}  // namespace
}  // namespace spire::flow
