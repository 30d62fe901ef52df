// Checkpoints (engine/nn/checkpoint.h): a run of 10 steps equals 5 steps, a save, a load into fresh
// objects and 5 more steps, bit for bit; errors for missing and corrupt files; no temp file left.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "engine/nn/checkpoint.h"
#include "engine/nn/functional/activation.h"
#include "engine/nn/functional/loss.h"
#include "engine/nn/layers/linear.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"
#include "engine/optim/adam.h"
#include "engine/optim/scheduler.h"

namespace spire {
namespace {

namespace F = nn::functional;
namespace fs = std::filesystem;

struct Net : nn::Module {
  std::shared_ptr<nn::Linear> l1, l2;
  explicit Net(uint64_t seed) : Module("Net") {
    Generator g(seed);
    l1 = register_module("l1", std::make_shared<nn::Linear>(4, 8, true, DType::Float32, &g));
    l2 = register_module("l2", std::make_shared<nn::Linear>(8, 1, true, DType::Float32, &g));
  }
  using Module::forward;
  Tensor forward(const Tensor& x) override { return (*l2)(F::relu((*l1)(x))); }
};

// Everything a training run holds.
struct TrainRun {
  std::shared_ptr<Net> net;
  std::unique_ptr<optim::Adam> opt;
  std::unique_ptr<optim::StepLR> sched;
  Generator data_gen;
  explicit TrainRun(uint64_t seed) : net(std::make_shared<Net>(seed)), data_gen(seed + 100, 3) {
    optim::AdamOptions o;
    o.lr = 0.05;
    opt = std::make_unique<optim::Adam>(net->parameters(), o);
    sched = std::make_unique<optim::StepLR>(*opt, 2, 0.5);
  }
  nn::CheckpointTargets targets() {
    nn::CheckpointTargets t;
    t.model = net.get();
    t.optimizer = opt.get();
    t.scheduler = sched.get();
    t.generators = {{"data", &data_gen}};
    return t;
  }
  // One step on a batch drawn from data_gen, with label noise from the default generator.
  void step() {
    Tensor x = uniform({8, 4}, -1.0, 1.0, DType::Float32, data_gen);
    Tensor y = sum(x * x, {1}, true) + normal({8, 1}, 0.0, 0.1);
    opt->zero_grad();
    F::mse_loss((*net)(x), y).backward();
    opt->step();
    sched->step();
  }
};

std::string temp_path(const char* name) {
  return (fs::temp_directory_path() / (std::string("spire_ckpt_") + std::to_string(::getpid()) + "_" + name)).string();
}

void expect_same(const optim::StateDict& a, const optim::StateDict& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& [ka, va] = a.items()[i];
    const auto& [kb, vb] = b.items()[i];
    EXPECT_EQ(ka, kb);
    ASSERT_EQ(va.index(), vb.index()) << ka;
    if (auto* t = std::get_if<Tensor>(&va)) EXPECT_EQ(t->to_vector(), std::get<Tensor>(vb).to_vector()) << ka;
    else if (auto* x = std::get_if<double>(&va)) EXPECT_EQ(*x, std::get<double>(vb)) << ka;
    else EXPECT_EQ(std::get<int64_t>(va), std::get<int64_t>(vb)) << ka;
  }
}

TEST(NnCheckpoint, ResumeIsBitForBit) {
  std::string path = temp_path("resume.h5");
  manual_seed(7);
  TrainRun straight(1);
  for (int i = 0; i < 10; ++i) straight.step();
  Tensor straight_next = uniform({5}, 0.0, 1.0, DType::Float64, straight.data_gen);
  Tensor straight_default = normal({3});

  manual_seed(7);
  TrainRun first(1);
  for (int i = 0; i < 5; ++i) first.step();
  nn::save_checkpoint(path, first.targets(), 2, 5, {{"note", "halfway"}, {"git", "abc123"}});
  EXPECT_FALSE(fs::exists(path + ".tmp-" + std::to_string(::getpid())));

  manual_seed(999);  // the default generator must come back from the file
  TrainRun resumed(42);   // other weights, other data stream: everything must come from the file
  nn::CheckpointInfo info = nn::load_checkpoint(path, resumed.targets());
  EXPECT_EQ(info.epoch, 2);
  EXPECT_EQ(info.step, 5);
  ASSERT_EQ(info.metadata.size(), 2u);
  EXPECT_EQ(info.metadata[0], (std::pair<std::string, std::string>{"note", "halfway"}));
  EXPECT_EQ(info.metadata[1].second, "abc123");
  EXPECT_EQ(resumed.opt->lr(), first.opt->lr());
  for (int i = 0; i < 5; ++i) resumed.step();

  auto ps = straight.net->named_parameters(), pr = resumed.net->named_parameters();
  ASSERT_EQ(ps.size(), pr.size());
  for (size_t i = 0; i < ps.size(); ++i) EXPECT_EQ(ps[i].second.to_vector(), pr[i].second.to_vector()) << ps[i].first;
  expect_same(straight.opt->state_dict(), resumed.opt->state_dict());
  expect_same(straight.sched->state_dict(), resumed.sched->state_dict());
  EXPECT_EQ(straight.opt->lr(), resumed.opt->lr());
  EXPECT_EQ(straight_next.to_vector(), uniform({5}, 0.0, 1.0, DType::Float64, resumed.data_gen).to_vector());
  EXPECT_EQ(straight_default.to_vector(), normal({3}).to_vector());
  fs::remove(path);
}

TEST(NnCheckpoint, RoundTripsDTypesAndOrder) {
  std::string path = temp_path("dtypes.h5");
  nn::CheckpointData d;
  nn::StateDict m;
  m.insert("z", from_vector<int32_t>({1, -2, 3}, {3}));
  m.insert("a", from_vector<c64>({{1, 2}, {3, -4}}, {2}));
  m.insert("b", from_vector<bool>({true, false}, {2}));
  m.insert("s", scalar_tensor(2.5, DType::Float64));
  d.model = m;
  optim::StateDict o;
  o.set("lr", 0.125);
  o.set("step_count", int64_t(3));
  d.optimizer = o;
  d.rng = {{"g", {1, 2, 3}}};
  optim::StateDict counters, buffer;
  counters.set("games", int64_t(7));
  buffer.set("values", from_vector<float>({0.5f, -1}, {2}));
  d.state = {{"run", counters}, {"buffer", buffer}};
  nn::write_checkpoint(path, d);
  nn::CheckpointData r = nn::read_checkpoint(path);
  ASSERT_TRUE(r.model && r.optimizer && !r.scheduler);
  ASSERT_EQ(r.state.size(), 2u);  // in the order written
  EXPECT_EQ(r.state[0].first, "run");
  EXPECT_EQ(r.state[0].second.integer("games"), 7);
  EXPECT_EQ(r.state[1].first, "buffer");
  EXPECT_EQ(r.state[1].second.tensor("values").to_vector(), (std::vector<double>{0.5, -1}));
  EXPECT_EQ(r.model->keys(), (std::vector<std::string>{"z", "a", "b", "s"}));
  EXPECT_EQ(r.model->at("a").dtype(), DType::Complex64);
  EXPECT_EQ(r.model->at("a").data<c64>()[1], c64(3, -4));
  EXPECT_EQ(r.model->at("b").dtype(), DType::Bool);
  EXPECT_EQ(r.model->at("b").to_vector(), (std::vector<double>{1, 0}));
  EXPECT_EQ(r.model->at("s").dim(), 0);
  EXPECT_EQ(r.model->at("z").to_vector(), (std::vector<double>{1, -2, 3}));
  EXPECT_EQ(r.optimizer->number("lr"), 0.125);
  EXPECT_TRUE(std::holds_alternative<int64_t>(r.optimizer->at("step_count")));
  ASSERT_EQ(r.rng.size(), 1u);
  EXPECT_EQ(r.rng[0].second.offset, 3u);
  fs::remove(path);
}

TEST(NnCheckpoint, ClearErrors) {
  std::string missing = temp_path("missing.h5");
  TrainRun run(1);
  try {
    nn::load_checkpoint(missing, run.targets());
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
  std::string corrupt = temp_path("corrupt.h5");
  std::ofstream(corrupt) << "not an hdf5 file";
  try {
    nn::load_checkpoint(corrupt, run.targets());
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
  // A truncated checkpoint is corrupt too.
  std::string whole = temp_path("whole.h5");
  nn::save_checkpoint(whole, run.targets());
  auto size = fs::file_size(whole);
  fs::copy_file(whole, corrupt, fs::copy_options::overwrite_existing);
  fs::resize_file(corrupt, size / 2);
  EXPECT_THROW(nn::load_checkpoint(corrupt, run.targets()), IOError);
  // A part that was not saved is named.
  nn::CheckpointTargets only_model;
  only_model.model = run.net.get();
  nn::save_checkpoint(whole, only_model);
  try {
    nn::load_checkpoint(whole, run.targets());
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("no optimizer state"), std::string::npos) << e.what();
  }
  // A model of other shapes: the module's own error names the key.
  auto other = std::make_shared<nn::Linear>(3, 2);
  nn::CheckpointTargets t;
  t.model = other.get();
  t.default_generator = false;
  EXPECT_THROW(nn::load_checkpoint(whole, t), ValueError);
  fs::remove(whole);
  fs::remove(corrupt);
}

}  // namespace
}  // namespace spire
