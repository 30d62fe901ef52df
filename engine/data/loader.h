// DataLoader: batches of a dataset in a sampler's order, assembled on a background thread ahead
// of the consumer (torch.utils.data.DataLoader with one worker thread).
//
//   DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .seed = 1});
//   for (int epoch = 0; epoch < 10; ++epoch) {
//     loader.set_epoch(epoch);             // the order of (seed, epoch)
//     auto it = loader.iter();
//     while (auto batch = it.next()) { ... (*batch)[0], (*batch)[1] ... }
//   }
//
// A batch holds each field of the samples stacked along a new axis 0 (Dataset::get_batch). With
// prefetch > 0 a worker thread keeps up to `prefetch` batches ready in a bounded queue; an
// exception thrown while loading is rethrown by next() where the batch would have come, and
// dropping the iterator early stops and joins the worker. prefetch = 0 loads each batch in next().
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/data/dataset.h"
#include "engine/data/sampler.h"

namespace spire::data {

struct LoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;    // a RandomSampler(seed) when no sampler is given
  bool drop_last = false;  // drop the last batch when it is short
  int64_t prefetch = 2;    // batches loaded ahead; 0 loads in the consumer's thread
  uint64_t seed = 0;
};

using Batch = std::vector<Tensor>;

// One pass over the batches. Movable, not copyable; its destructor stops the worker.
class LoaderIterator {
 public:
  LoaderIterator(std::shared_ptr<const Dataset> dataset, std::vector<Indices> batches, int64_t prefetch);
  ~LoaderIterator();
  LoaderIterator(LoaderIterator&&) noexcept;
  LoaderIterator& operator=(LoaderIterator&&) noexcept;
  LoaderIterator(const LoaderIterator&) = delete;
  LoaderIterator& operator=(const LoaderIterator&) = delete;

  // The next batch, or nullopt after the last. Rethrows what loading a batch threw.
  std::optional<Batch> next();
  int64_t remaining() const;  // batches not yet returned

 private:
  struct State;  // shared with the worker thread
  void stop();
  std::shared_ptr<State> state_;
  std::thread worker_;
};

class DataLoader {
 public:
  DataLoader(std::shared_ptr<const Dataset> dataset, LoaderOptions options = {},
             std::shared_ptr<Sampler> sampler = nullptr);

  // Batches in the sampler's next pass (a RandomSampler then moves to its next epoch).
  LoaderIterator iter();
  // Batches of the given sample order (any indices; a custom sampler's pass).
  LoaderIterator iter(const Indices& order) const;
  // len(): batches per pass, as PyTorch: floor(n / batch_size) with drop_last, else ceil.
  int64_t size() const;
  void set_epoch(int64_t epoch) { sampler_->set_epoch(epoch); }

  const std::shared_ptr<const Dataset>& dataset() const { return dataset_; }
  const std::shared_ptr<Sampler>& sampler() const { return sampler_; }
  const LoaderOptions& options() const { return options_; }
  // The sample order cut into batches (the last short one dropped with drop_last).
  std::vector<Indices> batches_of(const Indices& order) const;

 private:
  std::shared_ptr<const Dataset> dataset_;
  LoaderOptions options_;
  std::shared_ptr<Sampler> sampler_;
};

}  // namespace spire::data
