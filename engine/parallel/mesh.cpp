#include "engine/parallel/mesh.h"

#include <algorithm>

#include "engine/parallel/mpi_communicator.h"
#include "engine/parallel/runtime.h"

namespace spire::parallel {

DeviceMesh::DeviceMesh(std::vector<int> shape, std::vector<std::string> axis_names,
                       std::shared_ptr<Communicator> base)
    : shape_(std::move(shape)), names_(std::move(axis_names)), base_(base ? std::move(base) : world_ptr()) {
  SPIRE_CHECK(!shape_.empty(), ValueError, "DeviceMesh: the shape needs at least one axis");
  SPIRE_CHECK(shape_.size() == names_.size(), ValueError, "DeviceMesh: ", shape_.size(), " axes in the shape but ",
              names_.size(), " axis names");
  int64_t total = 1;
  for (int s : shape_) {
    SPIRE_CHECK(s >= 1, ValueError, "DeviceMesh: axis sizes must be >= 1, got ", s);
    total *= s;
  }
  SPIRE_CHECK(total == base_->size(), ValueError, "DeviceMesh: the shape's ranks (", total,
              ") must equal the communicator's size (", base_->size(), ")");
  for (size_t i = 0; i < names_.size(); ++i) {
    SPIRE_CHECK(!names_[i].empty(), ValueError, "DeviceMesh: axis ", i, " has an empty name");
    SPIRE_CHECK(std::count(names_.begin(), names_.end(), names_[i]) == 1, ValueError,
                "DeviceMesh: axis name '", names_[i], "' appears more than once");
  }
  if (auto* mpi = dynamic_cast<MpiCommunicator*>(base_.get())) {
    comms_ = mpi->cartesian_axes(shape_, coords_);  // MPI_Cart_create (no reorder) + MPI_Cart_sub
    return;
  }
  // Any other backend: the same grouping by split. Row-major coordinates of the rank; the ranks of
  // axis a's communicator share every other coordinate (the color) and are ordered by coordinate a.
  const int nd = ndim();
  coords_.assign(nd, 0);
  for (int a = nd - 1, r = base_->rank(); a >= 0; --a) {
    coords_[a] = r % shape_[a];
    r /= shape_[a];
  }
  for (int a = 0; a < nd; ++a) {
    int color = 0;
    for (int b = 0; b < nd; ++b)
      if (b != a) color = color * shape_[b] + coords_[b];
    comms_.push_back(base_->split(color, coords_[a]));
  }
}

int DeviceMesh::axis(const std::string& name) const {
  auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) {
    std::string all;
    for (auto& n : names_) all += (all.empty() ? "" : ", ") + n;
    throw ValueError("DeviceMesh: no axis named '" + name + "'; the axes are " + all);
  }
  return int(it - names_.begin());
}

}  // namespace spire::parallel
