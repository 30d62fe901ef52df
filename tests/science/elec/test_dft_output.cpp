// DFT fields to HDF5 (dft_output.h): the file holds the monitor's values in the documented x-fastest
// layout (read with the HDF5 C API, independently of read_dft_fields), read_dft_fields returns
// them in DftFields' own order, the file appears only whole, and bad files are named.
#include "science/elec/dft_output.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <fstream>

#include "engine/core/error.h"
#include "engine/data/hdf5_util.h"
#include "tests/common/expect_error.h"
#include "tests/common/temp_dir.h"

namespace spire::elec {
namespace {

// A 2D DFT over part of a small TM lattice, fed a few steps of a field that differs at every
// sample, so that any transposition shows.
DftFields sample_dft() {
  YeeLattice lat(Dimensions::two_tm, {2.0, 1.5, 0}, 4);  // 8 x 6 cells
  const double dt = 0.1;
  DftFields d = DftFields::on_region(lat, Component::Ez, {0.25, 0, 0}, {1.0, 0.5, 0}, {0.5, 1.25}, dt);
  std::vector<double> field(size_t(lat.samples()));
  for (int n = 0; n < 5; ++n) {
    for (int64_t i = 0; i < lat.n(0); ++i)
      for (int64_t j = 0; j < lat.n(1); ++j) field[size_t(lat.index(i, j, 0))] = std::sin(0.3 * n + i) + 0.1 * j;
    d.accumulate(field.data(), n * dt);
  }
  return d;
}

TEST(DftOutput, FileHoldsTheValuesXFastestAndReadsBack) {
  const fixtures::TempDir dir("spire_elec_dftout_");
  const DftFields d = sample_dft();
  const auto shape = d.shape();
  ASSERT_GT(shape[0], 1);
  ASSERT_GT(shape[1], 1);
  ASSERT_NE(shape[0], shape[1]);
  const std::string path = dir.file("ez_dft.h5");
  write_dft_fields(path, d, Provenance{"[cell]\n", 7});

  // Only the finished file is there.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"ez_dft.h5"});

  // The raw layout: real/imag [f][n_z][n_y][n_x].
  {
    data::Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    ASSERT_GE(file.id, 0);
    EXPECT_EQ(data::read_string_attribute(file, "format").value_or(""), "spire.elec.dft_fields");
    EXPECT_EQ(data::read_string_attribute(file, "component").value_or(""), "Ez");
    EXPECT_EQ(data::read_string_attribute(file, "job").value_or(""), "[cell]\n");
    for (const char* name : {"real", "imag"}) {
      data::Hdf5Id ds(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
      ASSERT_GE(ds.id, 0) << name;
      data::Hdf5Id space(H5Dget_space(ds), H5Sclose);
      hsize_t dims[4] = {0, 0, 0, 0};
      ASSERT_EQ(H5Sget_simple_extent_ndims(space), 4);
      H5Sget_simple_extent_dims(space, dims, nullptr);
      EXPECT_EQ(dims[0], 2u);
      EXPECT_EQ(dims[1], 1u);
      EXPECT_EQ(dims[2], hsize_t(shape[1]));
      EXPECT_EQ(dims[3], hsize_t(shape[0]));
      std::vector<double> v(2 * size_t(d.points()));
      ASSERT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
      const bool re = std::string(name) == "real";
      for (size_t f = 0; f < 2; ++f)
        for (int64_t i = 0; i < shape[0]; ++i)
          for (int64_t j = 0; j < shape[1]; ++j) {
            const std::complex<double> want = d.value(f, i * shape[1] + j);
            EXPECT_EQ(v[f * size_t(d.points()) + size_t(j * shape[0] + i)], re ? want.real() : want.imag())
                << name << " f " << f << " i " << i << " j " << j;
          }
    }
  }

  // Read back in DftFields' order, bit for bit.
  const DftFieldsFile back = read_dft_fields(path);
  EXPECT_EQ(back.component, Component::Ez);
  EXPECT_EQ(back.frequencies, d.frequencies());
  EXPECT_EQ(back.positions, d.positions());
  EXPECT_EQ(back.dt, d.dt());
  EXPECT_EQ(back.steps, 5);
  EXPECT_EQ(back.values, d.data());
}

TEST(DftOutput, ErrorsNameThePath) {
  const fixtures::TempDir dir("spire_elec_dftout_");
  const DftFields d = sample_dft();
  const std::string missing = dir.file("no/such/f.h5");
  expect_error_naming<IOError>([&] { write_dft_fields(missing, d); }, {missing});
  { std::ofstream(dir.file("text.h5")) << "not HDF5"; }
  expect_error_naming<IOError>([&] { read_dft_fields(dir.file("text.h5")); }, {"text.h5", "not an HDF5 file"});
  // An HDF5 file of another kind.
  {
    data::Hdf5Id file(H5Fcreate(dir.file("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    ASSERT_GE(file.id, 0);
  }
  expect_error_naming<IOError>([&] { read_dft_fields(dir.file("other.h5")); },
                               {"other.h5", "not a spire.elec.dft_fields file"});
}

}  // namespace
}  // namespace spire::elec
