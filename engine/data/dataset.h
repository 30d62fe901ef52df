// Datasets: indexable collections of samples, as torch.utils.data.Dataset. A sample is a fixed
// number of tensors (the fields: inputs, targets, ...), in the same order for every index.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::data {

using Sample = std::vector<Tensor>;  // one tensor per field
using Indices = std::vector<int64_t>;

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  // The sample at `index` (negative counts from the end); each field without the sample axis.
  virtual Sample get(int64_t index) const = 0;
  // The samples at `indices`, each field stacked along a new axis 0. The default stacks get();
  // datasets whose store can gather rows at once override it.
  virtual Sample get_batch(const Indices& indices) const;
  // The fields' names where the dataset has them (HDF5 keys); empty for positional fields.
  virtual std::vector<std::string> names() const { return {}; }

 protected:
  // `index` in [0, size()) after counting negative ones from the end, or a ValueError naming `who`.
  int64_t checked_index(int64_t index, const char* who) const;
};

// Tensors held in memory (torch.utils.data.TensorDataset): sample i is row i (along axis 0) of
// every tensor, so all of them must have the same first dimension.
class ArrayDataset : public Dataset {
 public:
  explicit ArrayDataset(std::vector<Tensor> tensors);
  int64_t size() const override { return size_; }
  Sample get(int64_t index) const override;     // views of row `index`
  Sample get_batch(const Indices& indices) const override;  // one gather per field
  const std::vector<Tensor>& tensors() const { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
  int64_t size_ = 0;
};

}  // namespace spire::data
