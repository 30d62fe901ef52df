// Samplers: the order in which a DataLoader visits a dataset's indices, as torch.utils.data's.
// Shuffled orders are Philox permutations keyed by (seed, epoch): the same seed and epoch give the
// same order on every run and machine.
#pragma once
#include <cstdint>
#include <vector>

namespace spire::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // How many indices one pass yields (len(sampler)).
  virtual int64_t size() const = 0;
  // The indices of one pass. Samplers that reshuffle per pass advance their epoch here.
  virtual std::vector<int64_t> next_pass() = 0;
  // The indices of the pass at epoch `epoch`, without changing the sampler.
  virtual std::vector<int64_t> indices(int64_t epoch) const = 0;
  // Fixes the epoch of the next pass (DistributedSampler.set_epoch in PyTorch).
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }

 protected:
  int64_t epoch_ = 0;
};

// 0, 1, ..., n - 1.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t n);
  int64_t size() const override { return n_; }
  std::vector<int64_t> next_pass() override { return indices(epoch_); }
  std::vector<int64_t> indices(int64_t epoch) const override;

 private:
  int64_t n_;
};

// A permutation of 0..n-1 determined by (seed, epoch). Each pass uses the current epoch and then
// moves to the next, so every pass is shuffled anew (as PyTorch's RandomSampler) yet reproducibly;
// set_epoch(e) makes the next pass epoch e's.
class RandomSampler : public Sampler {
 public:
  RandomSampler(int64_t n, uint64_t seed = 0);
  int64_t size() const override { return n_; }
  std::vector<int64_t> next_pass() override { return indices(epoch_++); }
  std::vector<int64_t> indices(int64_t epoch) const override;
  uint64_t seed() const { return seed_; }

 private:
  int64_t n_;
  uint64_t seed_;
};

// PyTorch's DistributedSampler: the (optionally shuffled) indices, padded by repeating from the
// start to a multiple of num_replicas (or, with drop_last, cut to one), and then every
// num_replicas-th one from `rank`. All ranks shuffle alike for a given (seed, epoch), so together
// they cover the dataset exactly once (plus the padding). Like PyTorch's, it keeps its epoch
// until set_epoch is called.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle = true, uint64_t seed = 0,
                     bool drop_last = false);
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> next_pass() override { return indices(epoch_); }
  std::vector<int64_t> indices(int64_t epoch) const override;
  int64_t total_size() const { return num_samples_ * num_replicas_; }
  int64_t num_replicas() const { return num_replicas_; }
  int64_t rank() const { return rank_; }
  bool shuffle() const { return shuffle_; }
  bool drop_last() const { return drop_last_; }
  uint64_t seed() const { return seed_; }

 private:
  int64_t n_, num_replicas_, rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  int64_t num_samples_;
};

// The permutation of 0..n-1 for (seed, epoch): spire::permutation under Generator(seed, epoch).
std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, int64_t epoch);

}  // namespace spire::data
