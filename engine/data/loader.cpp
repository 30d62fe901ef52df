#include "engine/data/loader.h"

#include <utility>

#include "engine/autodiff/mode.h"

namespace spire::data {

struct LoaderIterator::State {
  std::shared_ptr<const Dataset> dataset;
  std::vector<Indices> batches;
  size_t capacity = 0;

  std::mutex mutex;
  std::condition_variable changed;  // a batch arrived, a slot freed, or stop was asked
  std::deque<Batch> ready;
  std::exception_ptr error;  // what loading threw; delivered after the batches before it
  size_t produced = 0, consumed = 0;
  bool stopping = false, finished = false;

  Batch load(size_t k) const {
    NoGradGuard no_grad;  // batches are data, never part of a graph
    return dataset->get_batch(batches[k]);
  }

  void run() {
    for (size_t k = 0; k < batches.size(); ++k) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stopping || ready.size() < capacity; });
        if (stopping) break;
      }
      Batch b;
      try {
        b = load(k);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        error = std::current_exception();
        break;
      }
      std::lock_guard<std::mutex> lock(mutex);
      ready.push_back(std::move(b));
      ++produced;
      changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    changed.notify_all();
  }
};

LoaderIterator::LoaderIterator(std::shared_ptr<const Dataset> dataset, std::vector<Indices> batches,
                               int64_t prefetch)
    : state_(std::make_shared<State>()) {
  SPIRE_CHECK(prefetch >= 0, ValueError, "DataLoader: prefetch must be >= 0 (0: no worker thread), got ", prefetch);
  state_->dataset = std::move(dataset);
  state_->batches = std::move(batches);
  state_->capacity = size_t(prefetch);
  if (prefetch > 0 && !state_->batches.empty()) worker_ = std::thread([s = state_] { s->run(); });
}

LoaderIterator::~LoaderIterator() { stop(); }

LoaderIterator::LoaderIterator(LoaderIterator&& o) noexcept
    : state_(std::move(o.state_)), worker_(std::move(o.worker_)) {}

LoaderIterator& LoaderIterator::operator=(LoaderIterator&& o) noexcept {
  if (this != &o) {
    stop();
    state_ = std::move(o.state_);
    worker_ = std::move(o.worker_);
  }
  return *this;
}

void LoaderIterator::stop() {
  if (state_) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
    state_->changed.notify_all();
  }
  // The worker finishes the batch it is loading (if any) and exits.
  if (worker_.joinable()) worker_.join();
}

std::optional<Batch> LoaderIterator::next() {
  State& s = *state_;
  if (!worker_.joinable()) {  // no worker: load here
    if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));
    if (s.consumed >= s.batches.size() || s.stopping) return std::nullopt;
    try {
      return s.load(s.consumed++);
    } catch (...) {
      s.stopping = true;  // a pass ends at its first error, as with a worker
      throw;
    }
  }
  std::unique_lock<std::mutex> lock(s.mutex);
  s.changed.wait(lock, [&] { return !s.ready.empty() || s.finished; });
  if (!s.ready.empty()) {
    Batch b = std::move(s.ready.front());
    s.ready.pop_front();
    ++s.consumed;
    s.changed.notify_all();
    return b;
  }
  if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));
  return std::nullopt;
}

int64_t LoaderIterator::remaining() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return int64_t(state_->batches.size() - state_->consumed);
}

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, LoaderOptions options, std::shared_ptr<Sampler> sampler)
    : dataset_(std::move(dataset)), options_(options), sampler_(std::move(sampler)) {
  SPIRE_CHECK(dataset_ != nullptr, ValueError, "DataLoader: the dataset is null");
  SPIRE_CHECK(options_.batch_size >= 1, ValueError, "DataLoader: batch_size should be a positive integer, got ",
              options_.batch_size);
  SPIRE_CHECK(options_.prefetch >= 0, ValueError, "DataLoader: prefetch must be >= 0 (0: no worker thread), got ",
              options_.prefetch);
  SPIRE_CHECK(!(sampler_ && options_.shuffle), ValueError, "DataLoader: sampler option is mutually exclusive with shuffle");
  if (!sampler_) {
    if (options_.shuffle)
      sampler_ = std::make_shared<RandomSampler>(dataset_->size(), options_.seed);
    else
      sampler_ = std::make_shared<SequentialSampler>(dataset_->size());
  }
}

int64_t DataLoader::size() const {
  int64_t n = sampler_->size(), b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

std::vector<Indices> DataLoader::batches_of(const Indices& order) const {
  std::vector<Indices> out;
  size_t b = size_t(options_.batch_size);
  for (size_t i = 0; i < order.size(); i += b) {
    size_t end = std::min(order.size(), i + b);
    if (options_.drop_last && end - i < b) break;
    out.emplace_back(order.begin() + i, order.begin() + end);
  }
  return out;
}

LoaderIterator DataLoader::iter() { return iter(sampler_->next_pass()); }

LoaderIterator DataLoader::iter(const Indices& order) const {
  return LoaderIterator(dataset_, batches_of(order), options_.prefetch);
}

}  // namespace spire::data
