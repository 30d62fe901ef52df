// Training from C++ with spire::train::fit: an MLP classifies two interleaved half-moons (the
// classic two-moons problem), with Adam, early stopping (restoring the best weights) and a
// checkpoint of the best epoch, then prints the history and checks the result.
//
//   spire_example_fit [checkpoint-folder]      (default: the system's temporary folder)
//
// Exit status 1 when the best validation loss is not below 0.1 or the accuracy below 97%: a
// chance-level classifier has cross-entropy ln 2 = 0.69 and 50% accuracy, while the moons (noise
// 0.1, radius 1, centres 1 apart) overlap for well under 1% of the points, so a trained MLP ends
// near 0.02; the thresholds leave room for other BLAS builds and thread counts.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numbers>

#include "engine/data/dataset.h"
#include "engine/nn/containers.h"
#include "engine/nn/functional/loss.h"
#include "engine/nn/layers/activation.h"
#include "engine/nn/layers/linear.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/random.h"
#include "engine/ops/shape.h"
#include "engine/optim/adam.h"
#include "engine/train/train.h"

using namespace spire;

// n points of the two moons: label 0 on the upper half circle around (0, 0), label 1 on the lower
// one around (1, 0.5), both with Gaussian noise of standard deviation 0.1.
std::shared_ptr<data::ArrayDataset> moons(int64_t n, uint64_t seed) {
  Generator g(seed);
  Tensor t = uniform({n}, 0.0, std::numbers::pi, DType::Float32, g);
  Tensor label = randint({n}, 0, 2, DType::Int64, g);
  Tensor upper = eq(label, Scalar(int64_t(0)));
  Tensor x0 = where(upper, cos(t), cos(t) * -1.0 + 1.0);
  Tensor x1 = where(upper, sin(t), sin(t) * -1.0 + 0.5);
  Tensor x = stack({x0, x1}, 1) + normal({n, 2}, 0.0, 0.1, DType::Float32, g);
  return std::make_shared<data::ArrayDataset>(std::vector<Tensor>{x, label});
}

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const fs::path folder = argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path();
  fs::create_directories(folder);
  const std::string checkpoint = (folder / "cpp_fit-best.h5").string();

  manual_seed(0);
  auto model = std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Linear>(2, 32), std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(32, 32),
      std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(32, 2)});
  optim::Adam opt(model->parameters(), {.lr = 1e-2});
  data::DataLoader train_data(moons(512, 1), {.batch_size = 32, .shuffle = true, .seed = 2});
  data::DataLoader val_data(moons(256, 3), {.batch_size = 256});

  train::Loss loss = [](const Tensor& logits, const Tensor& y) { return nn::functional::cross_entropy(logits, y); };
  auto stop = std::make_shared<train::EarlyStopping>(
      train::EarlyStoppingOptions{.patience = 15, .restore_best_weights = true});
  auto save = std::make_shared<train::ModelCheckpoint>(
      train::ModelCheckpointOptions{.filepath = checkpoint, .save_best_only = true});
  train::FitOptions options;
  options.epochs = 200;
  options.callbacks = {stop, save};
  options.metrics = {train::metric("accuracy")};
  options.verbose = train::Verbose::Never;
  train::History history = train::fit(*model, loss, opt, train_data, &val_data, options);

  std::printf("epoch      loss  val_loss  val_accuracy\n");
  for (size_t i = 0; i < history.size(); ++i)
    std::printf("%5lld  %8.4f  %8.4f  %12.4f\n", (long long)history.epoch()[i], history["loss"][i],
                history["val_loss"][i], history["val_accuracy"][i]);

  // The checkpoint holds the best epoch's weights: loaded into a fresh model, they score the same.
  auto fresh = std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Linear>(2, 32), std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(32, 32),
      std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(32, 2)});
  train::load_weights(fresh.get(), checkpoint);
  train::Logs best = train::evaluate(*fresh, loss, val_data, options.metrics);
  std::printf("stopped after %zu epochs; best epoch %lld: val_loss %.4f, val_accuracy %.4f (from %s)\n",
              history.size(), (long long)stop->best_epoch().value_or(-1), best.at("loss"), best.at("accuracy"),
              checkpoint.c_str());
  const bool ok = best.at("loss") < 0.1 && best.at("accuracy") >= 0.97;
  if (!ok) std::printf("FAILED: expected val_loss < 0.1 and val_accuracy >= 0.97\n");
  return ok ? 0 : 1;
}
