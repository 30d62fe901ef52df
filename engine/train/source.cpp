#include "engine/train/source.h"

namespace spire::train {

void LoaderSource::begin_epoch(std::optional<int64_t> epoch) {
  it_.reset();  // joins the previous pass's worker before the sampler changes
  if (epoch) loader_.set_epoch(*epoch);
  it_.emplace(loader_.iter());
}

std::optional<Batch> LoaderSource::next() {
  SPIRE_CHECK(it_.has_value(), ValueError, "LoaderSource: next() before begin_epoch()");
  return it_->next();
}

std::optional<Batch> BatchList::next() {
  if (next_ >= batches_.size()) return std::nullopt;
  return batches_[next_++];
}

}  // namespace spire::train
