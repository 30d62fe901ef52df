#include "engine/data/sampler.h"

#include <numeric>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/random.h"

namespace spire::data {

std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, int64_t epoch) {
  SPIRE_CHECK(epoch >= 0, ValueError, "sampler: epoch must be >= 0, got ", epoch);
  Generator gen(seed, uint64_t(epoch));  // the epoch is the Philox stream: independent orders
  Tensor p = permutation(n, gen);
  const int64_t* d = p.data<int64_t>();
  return std::vector<int64_t>(d, d + n);
}

SequentialSampler::SequentialSampler(int64_t n) : n_(n) {
  SPIRE_CHECK(n >= 0, ValueError, "SequentialSampler: the dataset size must be >= 0, got ", n);
}

std::vector<int64_t> SequentialSampler::indices(int64_t) const {
  std::vector<int64_t> out(static_cast<size_t>(n_));
  std::iota(out.begin(), out.end(), int64_t(0));
  return out;
}

RandomSampler::RandomSampler(int64_t n, uint64_t seed) : n_(n), seed_(seed) {
  SPIRE_CHECK(n >= 0, ValueError, "RandomSampler: the dataset size must be >= 0, got ", n);
}

std::vector<int64_t> RandomSampler::indices(int64_t epoch) const { return seeded_permutation(n_, seed_, epoch); }

DistributedSampler::DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle, uint64_t seed,
                                       bool drop_last)
    : n_(n), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed), drop_last_(drop_last) {
  SPIRE_CHECK(n >= 0, ValueError, "DistributedSampler: the dataset size must be >= 0, got ", n);
  SPIRE_CHECK(num_replicas >= 1, ValueError, "DistributedSampler: num_replicas must be >= 1, got ", num_replicas);
  SPIRE_CHECK(rank >= 0 && rank < num_replicas, ValueError, "DistributedSampler: invalid rank ", rank,
              ", rank should be in the interval [0, ", num_replicas - 1, "]");
  // PyTorch's sizes: with drop_last, the largest multiple of num_replicas not above n; else the
  // smallest one not below it.
  if (drop_last && n % num_replicas != 0)
    num_samples_ = (n - num_replicas + num_replicas - 1) / num_replicas;  // ceil((n - R) / R)
  else
    num_samples_ = (n + num_replicas - 1) / num_replicas;
  if (num_samples_ < 0) num_samples_ = 0;
}

std::vector<int64_t> DistributedSampler::indices(int64_t epoch) const {
  std::vector<int64_t> all;
  if (shuffle_) {
    all = seeded_permutation(n_, seed_, epoch);
  } else {
    all.resize(size_t(n_));
    std::iota(all.begin(), all.end(), int64_t(0));
  }
  size_t total = size_t(total_size());
  if (!drop_last_) {
    // Pads by repeating from the start (the whole list as often as needed when it is short).
    for (size_t i = 0; all.size() < total && n_ > 0; ++i) all.push_back(all[i % size_t(n_)]);
  } else {
    all.resize(total);
  }
  std::vector<int64_t> out;
  out.reserve(size_t(num_samples_));
  for (size_t i = size_t(rank_); i < total; i += size_t(num_replicas_)) out.push_back(all[i]);
  return out;
}

}  // namespace spire::data
