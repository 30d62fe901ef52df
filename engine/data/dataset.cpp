#include "engine/data/dataset.h"

#include "engine/autodiff/mode.h"
#include "engine/ops/shape.h"

namespace spire::data {

int64_t Dataset::checked_index(int64_t index, const char* who) const {
  int64_t n = size();
  int64_t i = index < 0 ? index + n : index;
  SPIRE_CHECK(i >= 0 && i < n, ValueError, who, ": index ", index, " is out of range for a dataset of ",
              n, " samples (allowed: ", -n, " to ", n - 1, ")");
  return i;
}

Sample Dataset::get_batch(const Indices& indices) const {
  SPIRE_CHECK(!indices.empty(), ValueError, "Dataset.get_batch: needs at least one index");
  std::vector<Sample> samples;
  samples.reserve(indices.size());
  for (int64_t i : indices) samples.push_back(get(i));
  size_t fields = samples[0].size();
  Sample out(fields);
  for (size_t f = 0; f < fields; ++f) {
    std::vector<Tensor> column;
    column.reserve(samples.size());
    for (size_t s = 0; s < samples.size(); ++s) {
      SPIRE_CHECK(samples[s].size() == fields, ShapeError, "Dataset.get_batch: sample ", indices[s], " has ",
                  samples[s].size(), " fields where sample ", indices[0], " has ", fields);
      column.push_back(samples[s][f]);
    }
    out[f] = stack(column, 0);
  }
  return out;
}

ArrayDataset::ArrayDataset(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  SPIRE_CHECK(!tensors_.empty(), ValueError, "ArrayDataset: needs at least one tensor");
  std::string sizes;
  bool same = true;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    SPIRE_CHECK(tensors_[i].defined(), ValueError, "ArrayDataset: tensor ", i, " is undefined");
    SPIRE_CHECK(tensors_[i].dim() >= 1, ShapeError, "ArrayDataset: tensor ", i,
                " is 0-d; every tensor needs a first (sample) dimension");
    sizes += (i ? ", " : "") + std::to_string(tensors_[i].shape(0));
    same = same && tensors_[i].shape(0) == tensors_[0].shape(0);
  }
  SPIRE_CHECK(same, ShapeError, "ArrayDataset: every tensor must have the same size along axis 0 (the samples); got ",
              sizes);
  size_ = tensors_[0].shape(0);
}

Sample ArrayDataset::get(int64_t index) const {
  int64_t i = checked_index(index, "ArrayDataset");
  Sample out;
  out.reserve(tensors_.size());
  for (auto& t : tensors_) out.push_back(select(t, 0, i));
  return out;
}

Sample ArrayDataset::get_batch(const Indices& indices) const {
  SPIRE_CHECK(!indices.empty(), ValueError, "ArrayDataset.get_batch: needs at least one index");
  for (int64_t i : indices) checked_index(i, "ArrayDataset.get_batch");
  Tensor index = from_vector<int64_t>(indices, {int64_t(indices.size())});
  Sample out;
  out.reserve(tensors_.size());
  for (auto& t : tensors_) out.push_back(index_select(t, 0, index));
  return out;
}

}  // namespace spire::data
