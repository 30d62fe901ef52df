// Reading what the io code wrote (H5MD trajectories, checkpoints) back with the plain HDF5 C API,
// so the tests check the files and not the writer's own reader.
#pragma once
#include <gtest/gtest.h>
#include <hdf5.h>

#include <string>
#include <vector>

#include "engine/data/hdf5_util.h"

namespace spire::sponge::testing {

// A dataset's shape and its values as doubles, row-major.
struct DoubleArray {
  std::vector<hsize_t> dims;
  std::vector<double> v;
  friend bool operator==(const DoubleArray&, const DoubleArray&) = default;
};

// The dataset at `path` in an open file; a failed expectation and an empty array if it is missing.
inline DoubleArray read_doubles(hid_t file, const std::string& path) {
  data::Hdf5Id ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  EXPECT_GE(ds.id, 0) << path;
  DoubleArray a;
  if (ds.id < 0) return a;
  data::Hdf5Id space(H5Dget_space(ds), H5Sclose);
  a.dims.resize(size_t(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, a.dims.data(), nullptr);
  hsize_t n = 1;
  for (hsize_t d : a.dims) n *= d;
  a.v.resize(n);
  if (n) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.v.data());
  return a;
}

}  // namespace spire::sponge::testing
