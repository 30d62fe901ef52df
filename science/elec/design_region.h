// A design region for inverse design (Meep's MaterialGrid in a DesignRegion): a box (center,
// size) holding a rectilinear grid of design values, the relative permittivity eps, one per grid
// cell. The grid has shape (nx, ny, nz), 1 along the axes the problem lacks; value (i, j, k) sits
// at the centre of its grid cell, center - size/2 + (i + 1/2, j + 1/2, k + 1/2) * size / shape, and
// the values are stored at (i * ny + j) * nz + k (yee.h's order).
//
// Every electric sample (of each carried E component, at its own staggered position, yee.h) whose
// position lies in the closed box takes eps by multilinear interpolation of the grid values; along
// an axis a position before the first grid centre or after the last takes the edge value (clamped),
// and an axis with one grid cell is constant. apply() writes inv_eps = 1 / eps into those samples of
// the material arrays: no subpixel averaging inside the region, conductivity and inv_mu unchanged.
//
// chain() is the transpose of apply()'s derivative: given d objective / d inv_eps per region sample
// (samples() order), it returns d objective / d eps per design value, by d(1/eps)/d eps = -1/eps^2
// at each sample's interpolated eps and the interpolation weights.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "science/elec/material_arrays.h"
#include "science/elec/yee.h"

namespace spire::elec {

// One electric sample inside the region: its component and storage index, and the design values it
// interpolates (up to two per axis), with their weights (summing to 1).
struct DesignSample {
  Component component = Component::Ez;
  int64_t index = 0;
  int taps = 0;
  std::array<int64_t, 8> value{};
  std::array<double, 8> weight{};
};

class DesignRegion {
 public:
  // shape: design values along x, y, z (>= 1 each). ValueError naming the value otherwise, or for a
  // center or size that is not finite or a size < 0. Whether the box fits a lattice is checked by
  // samples() (and so by apply() and chain()).
  DesignRegion(Vec3 center, Vec3 size, std::array<int64_t, 3> shape);

  const Vec3& center() const { return center_; }
  const Vec3& size() const { return size_; }
  const std::array<int64_t, 3>& shape() const { return shape_; }
  int64_t values() const { return shape_[0] * shape_[1] * shape_[2]; }

  // The region's samples on `lattice`: each carried E component in the lattice's order, its samples
  // in storage order. ValueError naming what is wrong: a size <= 0 along an axis the lattice has, a
  // box that leaves the cell, a shape that is not 1 along an axis the lattice lacks, no sample
  // inside the box.
  std::vector<DesignSample> samples(const YeeLattice& lattice) const;
  // ValueError unless eps has values() entries, each finite and > 0 (naming the first bad one).
  void check_values(const std::vector<double>& eps) const;
  // eps at each sample (samples() order).
  std::vector<double> interpolate(const std::vector<DesignSample>& samples, const std::vector<double>& eps) const;
  // Sets inv_eps = 1 / eps at the region's samples of `materials` (arrays of `lattice`'s size:
  // ValueError otherwise).
  void apply(MaterialArrays& materials, const YeeLattice& lattice, const std::vector<double>& eps) const;
  void apply(MaterialArrays& materials, const std::vector<DesignSample>& samples, const std::vector<double>& eps) const;
  // d objective / d eps per design value from d objective / d inv_eps per sample (samples() order;
  // ValueError for a wrong length).
  std::vector<double> chain(const YeeLattice& lattice, const std::vector<double>& eps,
                            const std::vector<double>& d_inv_eps) const;
  std::vector<double> chain(const std::vector<DesignSample>& samples, const std::vector<double>& eps,
                            const std::vector<double>& d_inv_eps) const;

 private:
  Vec3 center_, size_;
  std::array<int64_t, 3> shape_;
};

}  // namespace spire::elec
