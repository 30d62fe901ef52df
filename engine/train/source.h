// Where fit and evaluate get their batches: a small interface over a spire::data::DataLoader, an
// in-memory list of batches, or (in Python) any iterable of tuples. A batch is a list of tensors
// whose last item is the target and the others the model's inputs.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/data/loader.h"

namespace spire::train {

using Batch = data::Batch;

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // Starts a pass. `epoch` is the training epoch, from which a shuffling source takes its order
  // (so that a run, or a resumed run, sees the same batches); nullopt for an evaluation pass.
  virtual void begin_epoch(std::optional<int64_t> epoch) = 0;
  // The next batch of the pass, or nullopt after the last.
  virtual std::optional<Batch> next() = 0;
  // Batches per pass, when known.
  virtual std::optional<int64_t> size() const { return std::nullopt; }
  // Ends the pass early or late; frees what it holds (a loader's worker thread).
  virtual void end_epoch() {}
};

// A DataLoader's passes; begin_epoch(e) calls set_epoch(e) first, so the shuffled order of epoch e
// is that of (seed, e).
class LoaderSource : public BatchSource {
 public:
  explicit LoaderSource(data::DataLoader& loader) : loader_(loader) {}
  void begin_epoch(std::optional<int64_t> epoch) override;
  std::optional<Batch> next() override;
  std::optional<int64_t> size() const override { return loader_.size(); }
  void end_epoch() override { it_.reset(); }

 private:
  data::DataLoader& loader_;
  std::optional<data::LoaderIterator> it_;
};

// The same batches every pass, in order.
class BatchList : public BatchSource {
 public:
  explicit BatchList(std::vector<Batch> batches) : batches_(std::move(batches)) {}
  void begin_epoch(std::optional<int64_t>) override { next_ = 0; }
  std::optional<Batch> next() override;
  std::optional<int64_t> size() const override { return int64_t(batches_.size()); }

 private:
  std::vector<Batch> batches_;
  size_t next_ = 0;
};

}  // namespace spire::train
