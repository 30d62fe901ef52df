// A device mesh: the ranks of a communicator arranged as an n-dimensional grid with named axes
// (DESIGN.md, "Parallel"), e.g. shape {2, 4} with axes {"data", "model"} over 8 ranks. Rank r sits
// at the row-major coordinates of r (no reordering), and each axis has its own communicator: the
// ranks that differ from this one only along that axis, ordered by their coordinate on it. With
// the self backend every axis has size 1.
//
//   parallel::DeviceMesh mesh({2, 2}, {"data", "model"});
//   mesh.comm("data").all_reduce(grad, parallel::ReduceOp::Mean);
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/parallel/communicator.h"

namespace spire::parallel {

class DeviceMesh {
 public:
  // Collective over `base` (the world by default). The product of `shape` must equal base's size;
  // names must be distinct and non-empty, one per axis.
  DeviceMesh(std::vector<int> shape, std::vector<std::string> axis_names,
             std::shared_ptr<Communicator> base = nullptr);

  const std::vector<int>& shape() const { return shape_; }
  const std::vector<std::string>& axis_names() const { return names_; }
  int ndim() const { return int(shape_.size()); }
  const std::vector<int>& coords() const { return coords_; }  // this rank's position
  int axis(const std::string& name) const;                    // ValueError naming the axes
  Communicator& comm(const std::string& name) const { return *comms_[axis(name)]; }
  std::shared_ptr<Communicator> comm_ptr(const std::string& name) const { return comms_[axis(name)]; }
  const std::shared_ptr<Communicator>& base() const { return base_; }

 private:
  std::vector<int> shape_;
  std::vector<std::string> names_;
  std::vector<int> coords_;
  std::shared_ptr<Communicator> base_;
  std::vector<std::shared_ptr<Communicator>> comms_;
};

}  // namespace spire::parallel
