// spire::train (engine/train/): fit against a closed-form least-squares answer, each callback's
// Keras / PyTorch rule step by step on scripted logs, checkpoint resume bit for bit, the logger's
// files read back, and the FLOPs of a training step against the analytic count of an MLP.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "engine/autodiff/mode.h"
#include "engine/data/dataset.h"
#include "engine/nn/checkpoint.h"
#include "engine/nn/containers.h"
#include "engine/nn/functional/loss.h"
#include "engine/nn/layers/activation.h"
#include "engine/nn/layers/linear.h"
#include "engine/nn/layers/sparse.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"
#include "engine/optim/adam.h"
#include "engine/optim/lbfgs.h"
#include "engine/optim/sgd.h"
#include "engine/train/train.h"
#include "tests/common/expect_error.h"

namespace spire {
namespace {

namespace fs = std::filesystem;
namespace F = nn::functional;
using train::Logs;

train::Loss mse() {
  return [](const Tensor& out, const Tensor& y) { return F::mse_loss(out, y); };
}

// A fresh folder per test, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("spire_train_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Noiseless linear data y = x w + 0.25, whose least-squares solution is (w, 0.25).
struct Regression {
  Tensor x, y;
  std::vector<double> w{1.5, -2.0, 0.5};
  explicit Regression(int64_t n = 64) {
    Generator g(0);
    x = normal({n, 3}, 0, 1, DType::Float64, g);
    y = matmul(x, from_vector<double>(w, {3, 1})) + 0.25;
  }
};

train::FitOptions quiet(int64_t epochs) {
  train::FitOptions o;
  o.epochs = epochs;
  o.verbose = train::Verbose::Never;
  return o;
}

// The weight of a one-parameter model, so that weights identify the epoch that set them.
struct Scalar1 : nn::Module {
  Tensor w;
  Scalar1() : Module("Scalar1") { w = register_parameter("w", zeros({1}, DType::Float64)); }
  using Module::forward;
  Tensor forward(const Tensor& x) override { return x * w; }
  void set(double v) {
    NoGradGuard g;
    w.set_data(full({1}, v, DType::Float64));
  }
  double get() const { return w.item<double>(); }
};

// --- fit ------------------------------------------------------------------------------------------

TEST(Fit, LinearRegressionReachesTheLeastSquaresSolution) {
  Regression r;
  Generator g(1);
  nn::Linear model(3, 1, true, DType::Float64, &g);
  optim::SGD opt(model.parameters(), {.lr = 0.1});
  auto ds = std::make_shared<data::ArrayDataset>(std::vector<Tensor>{r.x, r.y});
  data::DataLoader loader(ds, {.batch_size = 16, .shuffle = true, .seed = 1});
  data::DataLoader val(ds, {.batch_size = 64});
  train::History h = train::fit(model, mse(), opt, loader, &val, quiet(80));
  auto w = model.weight.to_vector();
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(w[size_t(i)], r.w[size_t(i)], 1e-6);
  EXPECT_NEAR(model.bias.item<double>(), 0.25, 1e-6);
  ASSERT_EQ(h.size(), 80u);
  EXPECT_EQ(h.epoch().front(), 0);
  EXPECT_EQ(h.epoch().back(), 79);
  EXPECT_LT(h["val_loss"].back(), 1e-12);
  EXPECT_GT(h["loss"].front(), h["loss"].back());
  for (double lr : h["lr"]) EXPECT_EQ(lr, 0.1);
  for (double t : h["time"]) EXPECT_GT(t, 0);
  EXPECT_EQ(h.keys(), (std::vector<std::string>{"loss", "val_loss", "lr", "train_time", "time"}));
  EXPECT_TRUE(model.is_training());  // validation's eval mode was undone
  // evaluate is the mean squared error over all samples.
  Logs e = train::evaluate(model, mse(), val);
  EXPECT_NEAR(e.at("loss"), F::mse_loss(model(r.x), r.y).item<double>(), 1e-15);
}

TEST(Fit, LBFGSGetsAClosure) {
  Regression r;
  Generator g(2);
  nn::Linear model(3, 1, true, DType::Float64, &g);
  optim::LBFGS opt(model.parameters(), {.line_search = optim::LineSearch::StrongWolfe});
  train::BatchList data({{r.x, r.y}});
  train::fit(model, mse(), opt, data, nullptr, quiet(3));
  // L-BFGS stops once the loss changes by less than tolerance_change = 1e-9, i.e. with the weights
  // about sqrt(1e-9) ~ 3e-5 from the minimum.
  auto w = model.weight.to_vector();
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(w[size_t(i)], r.w[size_t(i)], 1e-4);
  EXPECT_GT(opt.function_evaluations(), 3);  // several closure calls per step
}

TEST(Fit, SchedulerStepsPerEpochAndLrIsTheEpochs) {
  Regression r;
  nn::Linear model(3, 1, true, DType::Float64);
  optim::SGD opt(model.parameters(), {.lr = 1.0});
  optim::StepLR sched(opt, 1, 0.5);
  train::BatchList data({{r.x * 0.0, r.y * 0.0}});
  auto o = quiet(3);
  o.scheduler = &sched;
  train::History h = train::fit(model, mse(), opt, data, nullptr, o);
  EXPECT_EQ(h["lr"], (std::vector<double>{1.0, 0.5, 0.25}));
  EXPECT_EQ(opt.lr(), 0.125);
}

TEST(Fit, OneCycleStepsPerBatch) {
  Regression r;
  nn::Linear model(3, 1, true, DType::Float64);
  optim::SGD opt(model.parameters(), {.lr = 0.01, .momentum = 0.9});
  optim::OneCycleLR sched(opt, {.max_lr = 0.1, .epochs = 2, .steps_per_epoch = 4});
  train::BatchList data({{r.x, r.y}, {r.x, r.y}, {r.x, r.y}, {r.x, r.y}});
  auto o = quiet(2);
  o.scheduler = &sched;
  train::fit(model, mse(), opt, data, nullptr, o);
  EXPECT_EQ(sched.last_epoch(), 8);  // one step per batch
}

TEST(Fit, ClearErrors) {
  Regression r;
  nn::Linear model(3, 1, true, DType::Float64);
  optim::SGD opt(model.parameters(), {.lr = 0.1});
  train::BatchList data({{r.x, r.y}});
  auto o = quiet(-1);
  expect_error_naming<ValueError>([&] { train::fit(model, mse(), opt, data, nullptr, o); }, {"epochs", "-1"});
  train::BatchList empty({});
  expect_error_naming<ValueError>([&] { train::fit(model, mse(), opt, empty, nullptr, quiet(1)); }, {"no batches"});
  train::BatchList single({{r.x}});
  expect_error_naming<ValueError>([&] { train::fit(model, mse(), opt, single, nullptr, quiet(1)); },
                                  {"(inputs..., target)", "got 1"});
  expect_error_naming<ValueError>([] { train::metric("f1"); }, {"f1", "accuracy"});
  // A monitored key that is absent: the error names what the logs hold.
  auto o2 = quiet(1);
  o2.callbacks = {std::make_shared<train::EarlyStopping>()};
  expect_error_naming<train::MissingKeyError>([&] { train::fit(model, mse(), opt, data, nullptr, o2); },
                                              {"EarlyStopping", "'val_loss'", "available: loss, lr, time, train_time",
                                               "validation data"});
  expect_error_naming<ValueError>([] { train::EarlyStopping({.mode = "smallest"}); }, {"mode", "smallest", "auto"});
  // A loss of several values cannot be trained on.
  train::Loss none = [](const Tensor& out, const Tensor& y) { return F::mse_loss(out, y, F::Reduction::None); };
  expect_error_naming<ValueError>([&] { train::fit(model, none, opt, data, nullptr, quiet(1)); },
                                  {"one-element", "[64, 1]"});
}

TEST(Fit, MetricsAndMultipleOutputs) {
  // Two outputs: the loss and the metric take both.
  struct Two : nn::Module {
    Tensor w;
    Two() : Module("Two") { w = register_parameter("w", ones({1}, DType::Float64)); }
    Tensors forward(const Tensors& in) override { return {in[0] * w, in[1] * w}; }
  } model;
  optim::SGD opt(model.parameters(), {.lr = 0.0});
  Tensor a = from_vector<double>({1, 2}, {2}), b = from_vector<double>({3, 4}, {2}), y = zeros({2}, DType::Float64);
  train::BatchList data({{a, b, y}});
  train::Loss loss = [](const Tensors& outs, const Tensor& t) { return F::mse_loss(outs[0] + outs[1], t); };
  auto o = quiet(1);
  o.metrics = {{"first", [](const Tensors& outs, const Tensor&) { return outs[0].to_vector()[0]; }}};
  train::History h = train::fit(model, loss, opt, data, &data, o);
  EXPECT_DOUBLE_EQ(h["loss"][0], (16.0 + 36.0) / 2);
  EXPECT_DOUBLE_EQ(h["first"][0], 1.0);
  EXPECT_DOUBLE_EQ(h["val_first"][0], 1.0);
  // A one-output loss on a two-output model says so.
  expect_error_naming<ValueError>([&] { train::fit(model, mse(), opt, data, nullptr, quiet(1)); },
                                  {"one model output", "returned 2"});
}

TEST(Fit, Accuracy) {
  Tensor scores = from_vector<double>({2, 1, 0, 3, 1, 0, 0, 1}, {4, 2});
  EXPECT_EQ(train::accuracy(scores, from_vector<int64_t>({0, 1, 1, 1}, {4})), 0.75);
  EXPECT_EQ(train::accuracy(scores, from_vector<double>({1, 0, 0, 1, 0, 1, 0, 1}, {4, 2})), 0.75);  // one-hot
  EXPECT_EQ(train::accuracy(from_vector<double>({1, -1}, {2}), from_vector<double>({1, 1}, {2})), 0.5);
  EXPECT_EQ(train::accuracy(from_vector<double>({1, -1, -2}, {3, 1}), from_vector<double>({1, 0, 0}, {3, 1})), 1.0);
  EXPECT_EQ(train::metric("acc").name, "accuracy");
}

TEST(Fit, HistoryPadsWithNaN) {
  train::History h;
  h.append(0, {{"loss", 1.0}});
  h.append(1, {{"loss", 0.5}, {"flops", 7.0}});
  h.append(2, {{"flops", 8.0}});
  EXPECT_EQ(h.epoch(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(std::isnan(h["flops"][0]));
  EXPECT_EQ(h["flops"][1], 7.0);
  EXPECT_TRUE(std::isnan(h["loss"][2]));
  expect_error_naming<train::MissingKeyError>([&] { h["val_loss"]; }, {"val_loss", "loss, flops"});
}

// --- callbacks, step by step ----------------------------------------------------------------------

// Drives one callback over a scripted curve of `key` as fit would, setting the model's weight to
// the epoch number first; returns the epochs run.
int64_t drive(train::Callback& cb, Scalar1& model, optim::Optimizer& opt, const std::vector<double>& curve,
              const std::string& key = "val_loss") {
  cb.attach(&model, &opt, nullptr, {.epochs = int64_t(curve.size())});
  cb.on_train_begin();
  int64_t e = 0;
  for (; e < int64_t(curve.size()); ++e) {
    model.set(double(e));
    cb.on_epoch_begin(e);
    Logs logs{{"loss", 0.0}, {key, curve[size_t(e)]}};
    cb.on_epoch_end(e, logs);
    if (cb.stop_training()) {
      ++e;
      break;
    }
  }
  cb.on_train_end(train::History());
  return e;
}

TEST(EarlyStopping, PatienceAndRestoreBestWeights) {
  Scalar1 model;
  optim::SGD opt(model.parameters(), {.lr = 0.0});
  train::EarlyStopping es({.patience = 3, .restore_best_weights = true});
  // Best at epoch 2; epochs 3, 4, 5 do not improve: with patience 3 it stops after epoch 5.
  EXPECT_EQ(drive(es, model, opt, {5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 1.0, 0.5}), 6);
  EXPECT_EQ(es.best_epoch(), 2);
  EXPECT_EQ(es.stopped_epoch(), 5);
  EXPECT_EQ(es.best(), 3.0);
  EXPECT_EQ(model.get(), 2.0);  // the best epoch's weights are back
}

TEST(EarlyStopping, MinDeltaMaxModeBaselineStartFromEpoch) {
  Scalar1 model;
  optim::SGD opt(model.parameters(), {.lr = 0.0});
  // 4.8 is not below 5 - 0.5: epoch 1 waits, and with patience 1 training stops there.
  train::EarlyStopping delta({.min_delta = -0.5, .patience = 1});
  EXPECT_EQ(drive(delta, model, opt, {5.0, 4.8, 4.7, 1.0}), 2);
  EXPECT_EQ(delta.stopped_epoch(), 1);
  train::EarlyStopping max({.patience = 2, .mode = "max"});
  drive(max, model, opt, {1.0, 2.0, 1.5, 1.9, 3.0});
  EXPECT_EQ(max.stopped_epoch(), 3);
  EXPECT_EQ(max.best_epoch(), 1);
  // auto is max for accuracies.
  train::EarlyStopping acc({.monitor = "val_accuracy"});
  EXPECT_EQ(acc.mode(), "max");
  // Keras: improvements that do not beat the baseline still count towards patience...
  train::EarlyStopping base({.patience = 2, .baseline = 2.0});
  drive(base, model, opt, {3.0, 3.1, 3.2, 3.3});
  EXPECT_EQ(base.stopped_epoch(), 1);
  train::EarlyStopping plain({.patience = 2});
  drive(plain, model, opt, {3.0, 3.1, 3.2, 3.3});
  EXPECT_EQ(plain.stopped_epoch(), 2);
  // ...and an improving epoch never stops training; beating the baseline resets the count.
  train::EarlyStopping base2({.patience = 2, .baseline = 2.0});
  drive(base2, model, opt, {3.0, 2.5, 2.2, 1.5, 1.4, 1.6, 1.7, 1.8});
  EXPECT_EQ(base2.stopped_epoch(), 6);
  // Epochs before start_from_epoch are not looked at.
  train::EarlyStopping late({.patience = 1, .start_from_epoch = 2});
  drive(late, model, opt, {1.0, 5.0, 5.0, 4.0, 4.5});
  EXPECT_EQ(late.stopped_epoch(), 4);
  EXPECT_EQ(late.best_epoch(), 3);
}

TEST(EarlyStopping, RestoresAtTheEndWhenNotStopped) {
  Scalar1 model;
  optim::SGD opt(model.parameters(), {.lr = 0.0});
  train::EarlyStopping es({.patience = 5, .restore_best_weights = true});
  EXPECT_EQ(drive(es, model, opt, {3.0, 2.0, 4.0}), 3);
  EXPECT_FALSE(es.stopped_epoch().has_value());
  EXPECT_EQ(model.get(), 1.0);
}

TEST(ReduceLROnPlateau, FollowsPyTorchsRule) {
  Scalar1 model;
  optim::SGD opt(model.parameters(), {.lr = 1.0});
  train::ReduceLROnPlateau cb({.plateau = {.factor = 0.5, .patience = 2, .cooldown = 1, .min_lr = 0.2}});
  std::vector<double> curve{1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95};
  cb.attach(&model, &opt, nullptr, {});
  cb.on_train_begin();
  std::vector<double> lrs;
  for (size_t e = 0; e < curve.size(); ++e) {
    lrs.push_back(opt.lr());
    Logs logs{{"val_loss", curve[e]}};
    cb.on_epoch_end(int64_t(e), logs);
  }
  // After more than `patience` bad epochs lr = max(lr factor, min_lr), then a cooldown epoch; 0.89
  // improves on 0.9 by more than the relative threshold 1e-4.
  EXPECT_EQ(lrs, (std::vector<double>{1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25}));
}

TEST(ModelCheckpoint, BestOnlyFormattedNamesAtomic) {
  TempDir dir;
  Scalar1 model;
  optim::SGD opt(model.parameters(), {.lr = 0.0});
  train::ModelCheckpoint ck({.filepath = dir / "ck-{epoch:02d}-{val_loss:.1f}.h5", .save_best_only = true});
  drive(ck, model, opt, {3.0, 2.0, 2.5, 1.0, 1.5});
  ASSERT_EQ(ck.saved().size(), 3u);
  EXPECT_EQ(ck.saved()[2].first, 3);
  // Every file under its final name: no temporary is left behind.
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"ck-01-3.0.h5", "ck-02-2.0.h5", "ck-04-1.0.h5"}));
  Scalar1 fresh;
  train::load_weights(&fresh, dir / "ck-04-1.0.h5");
  EXPECT_EQ(fresh.get(), 3.0);  // the weights of epoch 3
  EXPECT_EQ(nn::read_checkpoint(dir / "ck-04-1.0.h5").epoch, 4);
  EXPECT_FALSE(nn::read_checkpoint(dir / "ck-04-1.0.h5").optimizer.has_value());
}

TEST(ModelCheckpoint, EveryNBatches) {
  TempDir dir;
  Scalar1 model;
  optim::SGD opt(model.parameters(), {.lr = 0.0});
  Tensor x = ones({2}, DType::Float64);
  train::BatchList data({{x, x}, {x, x}, {x, x}});
  auto cb = std::make_shared<train::ModelCheckpoint>(
      train::ModelCheckpointOptions{.filepath = dir / "s-{epoch}-{batch}.h5", .save_freq = 2});
  auto o = quiet(2);
  o.callbacks = {cb};
  train::fit(model, mse(), opt, data, nullptr, o);
  // Batches 2, 4 and 6 of the run: the 2nd of epoch 1, the 1st and 3rd of epoch 2.
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"s-1-2.h5", "s-2-1.h5", "s-2-3.h5"}));
}

TEST(Format, PythonsRules) {
  using train::format_fields;
  using train::python_repr;
  EXPECT_EQ(python_repr(3.0), "3.0");
  EXPECT_EQ(python_repr(0.1), "0.1");
  EXPECT_EQ(python_repr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(python_repr(1e-5), "1e-05");
  EXPECT_EQ(python_repr(1e16), "1e+16");
  EXPECT_EQ(python_repr(123456.0), "123456.0");
  EXPECT_EQ(python_repr(-2.5), "-2.5");
  EXPECT_EQ(python_repr(0.0001), "0.0001");
  EXPECT_EQ(python_repr(NAN), "nan");
  train::Fields f{{"epoch", int64_t(7)}, {"val_loss", 0.12345}, {"x", 3.14159}};
  EXPECT_EQ(format_fields("ck-{epoch:03d}-{val_loss:.3f}.h5", f), "ck-007-0.123.h5");
  EXPECT_EQ(format_fields("{x}|{epoch}|{x:>8.2f}|{x:+.1e}|{x:<6.1f}|{epoch:.2f}", f),
            "3.14159|7|    3.14|+3.1e+00|3.1   |7.00");
  EXPECT_EQ(format_fields("{val_loss:.1%} {{epoch}} {epoch:^5}", f), "12.3% {epoch}   7  ");
  expect_error_naming<train::MissingKeyError>([&] { format_fields("{val_acc}", f); }, {"val_acc", "epoch, val_loss, x"});
  expect_error_naming<ValueError>([&] { format_fields("{x:d}", f); }, {"'x'", "integers"});
  expect_error_naming<ValueError>([&] { format_fields("{x:q}", f); }, {"'x'", "q"});
}

TEST(ProgressBar, LinesAndRedraws) {
  std::string out;
  train::Stream capture{[&](const std::string& s) { out += s; }, false};
  Regression r;
  nn::Linear model(3, 1, true, DType::Float64);
  optim::SGD opt(model.parameters(), {.lr = 0.1});
  train::BatchList data({{r.x, r.y}});
  auto o = quiet(2);
  o.callbacks = {std::make_shared<train::ProgressBar>(train::ProgressBarOptions{.stream = capture, .force = true})};
  train::fit(model, mse(), opt, data, &data, o);
  std::regex line(R"(Epoch ([12])/2 1/1 \[=+\] \d+\.\ds \d+\.\d it/s loss: \d+\.\d{4} - val_loss: \d+\.\d{4} - lr: 0\.1)");
  std::istringstream lines(out);
  std::string l;
  int n = 0;
  while (std::getline(lines, l)) {
    EXPECT_TRUE(std::regex_match(l, line)) << l;
    ++n;
  }
  EXPECT_EQ(n, 2);
  // A terminal gets redraws with rate, ETA and running loss; a non-terminal nothing unless forced.
  out.clear();
  o.epochs = 1;
  o.callbacks = {std::make_shared<train::ProgressBar>(
      train::ProgressBarOptions{.stream = {capture.write, true}, .width = 10})};
  train::fit(model, mse(), opt, data, nullptr, o);
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(^\rEpoch 1/1 1/1 \[==========\] \d+\.\d it/s ETA 0:00 loss: \d+\.\d{4}\rEpoch 1/1)")))
      << out;
  out.clear();
  o.callbacks = {std::make_shared<train::ProgressBar>(train::ProgressBarOptions{.stream = capture})};
  train::fit(model, mse(), opt, data, nullptr, o);
  EXPECT_EQ(out, "");
  // The default bar of verbose = Always goes to the progress stream.
  o.callbacks.clear();
  o.verbose = train::Verbose::Always;
  o.progress_stream = capture;
  train::fit(model, mse(), opt, data, nullptr, o);
  EXPECT_EQ(out.rfind("Epoch 1/1 1/1 [", 0), 0u) << out;
  EXPECT_EQ(train::ProgressBar::format_time(3725.4), "1:02:05");
  EXPECT_EQ(train::ProgressBar::format_time(2.5), "0:02");  // half to even, as Python's round
}

// --- files ----------------------------------------------------------------------------------------

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back(l);
  }
  return out;
}

template <class T>
std::vector<T> read_column(const std::string& path, const char* name) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t s = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(s, &n, nullptr);
  std::vector<T> out(n);
  H5Dread(d, std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

TEST(HistoryLogger, CsvRowsReadBackExactlyAndAppend) {
  TempDir dir;
  const std::string path = dir / "log.csv";
  {
    train::HistoryLogger log({.path = path});
    log.on_train_begin();
    Logs a{{"loss", 0.5}, {"val_loss", 1.0 / 3}};
    log.on_epoch_end(0, a);
    EXPECT_EQ(read_lines(path), (std::vector<std::string>{"epoch,loss,val_loss", "0,0.5,0.3333333333333333"}));
    Logs b{{"loss", 0.25}};
    log.on_epoch_end(1, b);
    log.on_train_end(train::History());
  }
  // append continues under the file's header; keys it does not have are left out.
  train::HistoryLogger more({.path = path, .append = true});
  more.on_train_begin();
  Logs c{{"extra", 9.0}, {"val_loss", 2.0}, {"loss", 1e-7}};
  more.on_epoch_end(2, c);
  more.on_train_end(train::History());
  EXPECT_EQ(read_lines(path), (std::vector<std::string>{"epoch,loss,val_loss", "0,0.5,0.3333333333333333", "1,0.25,",
                                                        "2,1e-07,2.0"}));
  // ';' separates; a fresh (non-append) run starts the file over.
  train::HistoryLogger semi({.path = path, .separator = ";"});
  semi.on_train_begin();
  Logs d{{"loss", 1.0}, {"lr", 0.001}};
  semi.on_epoch_end(0, d);
  semi.on_train_end(train::History());
  EXPECT_EQ(read_lines(path), (std::vector<std::string>{"epoch;loss;lr", "0;1.0;0.001"}));
}

TEST(HistoryLogger, Hdf5ColumnsRewrittenAtomicallyAndAppend) {
  TempDir dir;
  const std::string path = dir / "log.h5";
  {
    train::HistoryLogger log({.path = path});
    log.on_train_begin();
    Logs a{{"loss", 0.5}};
    log.on_epoch_end(0, a);
    Logs b{{"loss", 0.25}, {"flops", 7.0}};
    log.on_epoch_end(1, b);
    log.on_train_end(train::History());
  }
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"log.h5"}));
  EXPECT_EQ(read_column<int64_t>(path, "epoch"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(read_column<double>(path, "loss"), (std::vector<double>{0.5, 0.25}));
  auto flops = read_column<double>(path, "flops");
  EXPECT_TRUE(std::isnan(flops[0]));
  EXPECT_EQ(flops[1], 7.0);
  train::HistoryLogger more({.path = path, .append = true});
  more.on_train_begin();
  Logs c{{"loss", 0.125}};
  more.on_epoch_end(2, c);
  EXPECT_EQ(read_column<int64_t>(path, "epoch"), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(read_column<double>(path, "loss"), (std::vector<double>{0.5, 0.25, 0.125}));
  EXPECT_TRUE(std::isnan(read_column<double>(path, "flops")[2]));
}

// --- resume ---------------------------------------------------------------------------------------

struct TrainRun {
  std::shared_ptr<nn::Sequential> model;
  std::unique_ptr<optim::Adam> opt;
  std::unique_ptr<data::DataLoader> loader;
};

// An MLP with dropout (drawing from the default generator), Adam and a shuffling loader.
TrainRun make_run(uint64_t init_seed) {
  Regression r(48);
  Generator g(init_seed);
  TrainRun run;
  run.model = std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Linear>(3, 16, true, DType::Float64, &g), std::make_shared<nn::Tanh>(),
      std::make_shared<nn::Dropout>(0.2), std::make_shared<nn::Linear>(16, 1, true, DType::Float64, &g)});
  run.opt = std::make_unique<optim::Adam>(run.model->parameters(), optim::AdamOptions{.lr = 1e-2});
  auto ds = std::make_shared<data::ArrayDataset>(std::vector<Tensor>{r.x, r.y});
  run.loader = std::make_unique<data::DataLoader>(ds, data::LoaderOptions{.batch_size = 8, .shuffle = true, .seed = 5});
  return run;
}

TEST(Fit, ResumeFromModelCheckpointBitForBit) {
  TempDir dir;
  manual_seed(123);
  TrainRun straight = make_run(1);
  train::History all = train::fit(*straight.model, mse(), *straight.opt, *straight.loader, nullptr, quiet(4));

  manual_seed(123);
  TrainRun first = make_run(1);
  auto o = quiet(2);
  o.callbacks = {std::make_shared<train::ModelCheckpoint>(
      train::ModelCheckpointOptions{.filepath = dir / "run.h5", .include_optimizer = true})};
  train::fit(*first.model, mse(), *first.opt, *first.loader, nullptr, o);

  manual_seed(999);  // other dropout draws unless the checkpoint restores the generator
  TrainRun resumed = make_run(2);  // other initial weights
  nn::CheckpointInfo info =
      nn::load_checkpoint(dir / "run.h5", {.model = resumed.model.get(), .optimizer = resumed.opt.get()});
  EXPECT_EQ(info.epoch, 2);
  auto o2 = quiet(2);
  o2.initial_epoch = info.epoch;
  train::History rest = train::fit(*resumed.model, mse(), *resumed.opt, *resumed.loader, nullptr, o2);

  EXPECT_EQ(rest.epoch(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(rest["loss"][0], all["loss"][2]);
  EXPECT_EQ(rest["loss"][1], all["loss"][3]);
  auto a = straight.model->state_dict(), b = resumed.model->state_dict();
  for (const auto& [k, v] : a) EXPECT_EQ(v.to_vector(), b.at(k).to_vector()) << k;
}

// --- FLOPs ----------------------------------------------------------------------------------------

TEST(FlopsUtilization, CountsTheStepsFlopsExactly) {
  const int64_t n = 16, in = 4, hidden = 8, out = 2;
  Generator g(3);
  nn::Sequential model(std::vector<nn::ModulePtr>{std::make_shared<nn::Linear>(in, hidden, true, DType::Float64, &g),
                                                  std::make_shared<nn::Tanh>(),
                                                  std::make_shared<nn::Linear>(hidden, out, true, DType::Float64, &g)});
  optim::SGD opt(model.parameters(), {.lr = 0.1});
  Tensor x = normal({n, in}, 0, 1, DType::Float64, g), y = normal({n, out}, 0, 1, DType::Float64, g);
  train::BatchList data({{x, y}, {x, y}});
  auto fu = std::make_shared<train::FlopsUtilization>(train::FlopsUtilizationOptions{.peak = 1e9});
  auto o = quiet(1);
  o.callbacks = {fu};
  train::History h = train::fit(model, mse(), opt, data, &data, o);
  // 2 FLOPs per multiply-add. Forward: x W1^T and h W2^T. Backward: the weight gradients of both
  // layers and the input gradient of the second; the first layer's input (data) needs none.
  const double forward = 2.0 * n * (in * hidden + hidden * out);
  const double backward = 2.0 * n * (in * hidden + hidden * out) + 2.0 * n * hidden * out;
  EXPECT_EQ(fu->last_step(), forward + backward);
  EXPECT_EQ(fu->total(), 2 * (forward + backward));  // validation is not counted
  EXPECT_EQ(h["flops"][0], fu->total() / h["train_time"][0]);
  EXPECT_EQ(h["flops_utilization"][0], h["flops"][0] / 1e9);
  EXPECT_EQ(train::count_flops(model, Shape{n, in}), forward);
  EXPECT_TRUE(model.is_training());
  // flops_per_batch instead of counting: scaled by the batch's share of a full batch.
  auto fixed = std::make_shared<train::FlopsUtilization>(
      train::FlopsUtilizationOptions{.flops_per_batch = 1000, .peak = 1e9, .batch_size = 32});
  o.callbacks = {fixed};
  train::fit(model, mse(), opt, data, nullptr, o);
  EXPECT_EQ(fixed->total(), 2 * 1000.0 * n / 32);
}

TEST(FlopsUtilization, PeakIsAMeasuredMatmulRate) {
  double p = train::measure_peak_flops(64, DType::Float32, kCPU, 2);
  EXPECT_GT(p, 1e6);
  EXPECT_EQ(train::measure_peak_flops(64, DType::Float32, kCPU, 2), p);  // cached
}

}  // namespace
}  // namespace spire
