#include "engine/train/flops.h"

#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

#include "engine/autodiff/mode.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"

namespace spire::train {

namespace {

// The dtype and device of the model's first floating-point parameter.
std::pair<DType, Device> model_dtype_device(const nn::Module& model) {
  for (const auto& p : model.parameters())
    if (p.defined() && is_floating(p.dtype())) return {p.dtype(), p.device()};
  return {DType::Float32, kCPU};
}

}  // namespace

double count_flops(nn::Module& model, const Tensors& inputs) {
  const bool was_training = model.is_training();
  model.eval();
  FlopCounter counter;
  try {
    NoGradGuard no_grad;
    ObserverScope scope(counter);
    model(inputs);
  } catch (...) {
    model.train(was_training);
    throw;
  }
  model.train(was_training);
  return counter.total();
}

double count_flops(nn::Module& model, const Shape& input_shape) {
  auto [dtype, device] = model_dtype_device(model);
  Tensor x = zeros(input_shape, dtype);
  if (device != kCPU) x = to(x, device);
  return count_flops(model, Tensors{x});
}

double measure_peak_flops(int64_t n, DType dtype, Device device, int64_t repeats) {
  SPIRE_CHECK(n > 0 && repeats > 0, ValueError, "measure_peak_flops: n and repeats must be > 0, got n=", n,
              ", repeats=", repeats);
  static std::mutex mutex;
  static std::map<std::tuple<int64_t, int, int, int>, double> cache;
  auto key = std::make_tuple(n, int(dtype), int(device.kind), device.index);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  NoGradGuard no_grad;
  Generator gen(0x5eed);
  Tensor a = normal({n, n}, 0, 1, dtype, gen), b = normal({n, n}, 0, 1, dtype, gen);
  if (device != kCPU) {
    a = to(a, device);
    b = to(b, device);
  }
  matmul(a, b);  // warm-up: first-touch allocations, BLAS thread start
  synchronize(device);
  double best = std::numeric_limits<double>::infinity();
  for (int64_t r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    Tensor c = matmul(a, b);
    synchronize(device);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double rate = 2.0 * double(n) * double(n) * double(n) / best;
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, rate).first->second;
}

FlopsUtilization::FlopsUtilization(FlopsUtilizationOptions options) : options_(options) {
  SPIRE_CHECK(!options_.flops_per_batch || *options_.flops_per_batch >= 0, ValueError,
              "FlopsUtilization: flops_per_batch must be >= 0");
  SPIRE_CHECK(!options_.peak || *options_.peak > 0, ValueError, "FlopsUtilization: peak must be > 0");
  SPIRE_CHECK(!options_.batch_size || *options_.batch_size > 0, ValueError, "FlopsUtilization: batch_size must be > 0");
}

void FlopsUtilization::on_epoch_begin(int64_t) {
  scope_.reset();
  total_ = 0;
}

void FlopsUtilization::on_batch_begin(int64_t) {
  if (options_.flops_per_batch) return;
  scope_.reset();
  counter_.reset();
  scope_ = std::make_unique<ObserverScope>(counter_);
}

void FlopsUtilization::on_batch_end(int64_t, const BatchLogs& logs) {
  if (options_.flops_per_batch) {
    const int64_t rows = !logs.inputs.empty() && logs.inputs[0].dim() > 0 ? logs.inputs[0].shape(0) : logs.size;
    const double full = double(options_.batch_size.value_or(rows));
    last_step_ = *options_.flops_per_batch * double(rows) / full;
  } else {
    scope_.reset();
    last_step_ = counter_.total();
  }
  total_ += last_step_;
}

void FlopsUtilization::on_epoch_end(int64_t, Logs& logs) {
  scope_.reset();
  if (!options_.peak) {
    auto [dtype, device] = model() ? model_dtype_device(*model()) : std::pair<DType, Device>{DType::Float32, kCPU};
    options_.peak = measure_peak_flops(2048, dtype, device);
  }
  const double train_time = logs.at("train_time");
  const double rate = train_time > 0 ? total_ / train_time : 0.0;
  logs.set("flops", rate);
  logs.set("flops_utilization", rate / *options_.peak);
}

void FlopsUtilization::on_train_end(const History&) { scope_.reset(); }

}  // namespace spire::train
