// The HDF5 helpers every package's files go through (engine/data/hdf5_util.h, hdf5_file.h): what
// they write is read back with the HDF5 C API directly (types, shapes, values), the helpers' own
// reads agree, a file appears only when its fill finished, and every refusal names the file and the
// part that was wrong.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <fstream>
#include <mutex>

#include "engine/core/error.h"
#include "engine/data/hdf5_file.h"
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"
#include "tests/common/expect_error.h"
#include "tests/common/temp_dir.h"

namespace spire::data {
namespace {

TEST(Hdf5Files, WhatIsWrittenReadsBackThroughTheCApi) {
  const fixtures::TempDir dir("spire_engine_hdf5_");
  const std::string path = dir.file("f.h5");
  write_hdf5_file(path, "test", [](hid_t file) {
    write_doubles(file, "a/b/matrix", {2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6}.data(), "test");
    write_int64s(file, "a/steps", std::vector<int64_t>{7, -8}, "test");
    write_doubles(file, "scalar", {}, std::vector<double>{2.5}.data(), "test");
    Hdf5Id ds = write_doubles(file, "empty", std::vector<double>{}, "test");
    write_attribute(ds, "note", std::string("nothing"), "test");
    write_attribute(file, "x", 0.25, "test");
    write_attribute(file, "n", int64_t(-3), "test");
    write_attribute(file, "u", uint64_t(1) << 63, "test");
    write_attribute(file, "n", int64_t(4), "test");  // replaced
    write_attribute(file, "v", std::vector<double>{1.5, -2}, "test");
    write_attribute(file, "version", std::vector<int32_t>{1, 1}, "test");
  });
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"f.h5"});  // no temporary left

  std::lock_guard<std::recursive_mutex> lock(hdf5_mutex());
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_GE(file.id, 0);
  {
    Hdf5Id ds(H5Dopen2(file, "a/b/matrix", H5P_DEFAULT), H5Dclose);
    Hdf5Id type(H5Dget_type(ds), H5Tclose);
    EXPECT_GT(H5Tequal(type, H5T_IEEE_F64LE), 0);
    Hdf5Id space(H5Dget_space(ds), H5Sclose);
    hsize_t dims[2] = {0, 0};
    ASSERT_EQ(H5Sget_simple_extent_ndims(space), 2);
    H5Sget_simple_extent_dims(space, dims, nullptr);
    EXPECT_EQ(dims[0], 2u);
    EXPECT_EQ(dims[1], 3u);
    double v[6] = {};
    ASSERT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    EXPECT_EQ(v[5], 6);
  }
  {
    Hdf5Id ds(H5Dopen2(file, "scalar", H5P_DEFAULT), H5Dclose);
    Hdf5Id space(H5Dget_space(ds), H5Sclose);
    EXPECT_EQ(H5Sget_simple_extent_type(space), H5S_SCALAR);
    Hdf5Id attr(H5Aopen(file, "version", H5P_DEFAULT), H5Aclose);
    Hdf5Id type(H5Aget_type(attr), H5Tclose);
    EXPECT_GT(H5Tequal(type, H5T_STD_I32LE), 0);
    int32_t version[2] = {};
    ASSERT_GE(H5Aread(attr, H5T_NATIVE_INT32, version), 0);
    EXPECT_EQ(version[1], 1);
  }
  // The helpers' own reads.
  std::vector<hsize_t> dims;
  EXPECT_EQ(read_doubles(file, "a/b/matrix", dims, "test"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(dims, (std::vector<hsize_t>{2, 3}));
  EXPECT_EQ(read_int64s(file, "a/steps", dims, "test"), (std::vector<int64_t>{7, -8}));
  EXPECT_EQ(read_doubles(file, "scalar", dims, "test"), std::vector<double>{2.5});
  EXPECT_TRUE(dims.empty());
  EXPECT_TRUE(read_doubles(file, "empty", "test").empty());
  EXPECT_EQ(read_string_attribute(open_object(file, "empty", "test"), "note").value_or(""), "nothing");
  EXPECT_EQ(read_double_attribute(file, "x").value_or(0), 0.25);
  EXPECT_EQ(read_int64_attribute(file, "n").value_or(0), 4);
  EXPECT_EQ(read_uint64_attribute(file, "u").value_or(0), uint64_t(1) << 63);
  EXPECT_FALSE(read_double_attribute(file, "v").has_value());  // an array is not a scalar
  EXPECT_FALSE(read_double_attribute(file, "absent").has_value());
  EXPECT_EQ(dataset_paths(file), (std::vector<std::string>{"a/b/matrix", "a/steps", "empty", "scalar"}));
  EXPECT_TRUE(link_exists(file, "a/b/matrix"));
  EXPECT_FALSE(link_exists(file, "a/c/matrix"));  // H5Lexists alone fails on the missing parent
}

TEST(Hdf5Files, RefusalsNameTheFileAndThePart) {
  const fixtures::TempDir dir("spire_engine_hdf5_");
  const std::string path = dir.file("f.h5");
  // A fill that throws leaves nothing behind, and its error comes through.
  expect_error_naming<ValueError>(
      [&] { write_hdf5_file(path, "test", [](hid_t) { throw ValueError("half way"); }); }, {"half way"});
  EXPECT_TRUE(dir.entries().empty());
  expect_error_naming<IOError>([&] { write_hdf5_file(dir.file("no/dir/f.h5"), "writer f", [](hid_t) {}); },
                               {"writer f", "cannot create"});

  expect_error_naming<IOError>([&] { Hdf5Input in(path, "reader " + path); }, {path, "no such file"});
  { std::ofstream(dir.file("text.h5")) << "not HDF5"; }
  expect_error_naming<IOError>([&] { Hdf5Input in(dir.file("text.h5"), "reader"); }, {"not an HDF5 file"});

  write_hdf5_file(path, "test", [](hid_t file) {
    write_attribute(file, "format", std::string("spire.test"), "test");
    write_attribute(file, "format_version", int64_t(2), "test");
    write_doubles(file, "d", std::vector<double>{1}, "test");
  });
  const Hdf5Input in(path, "reader");
  EXPECT_NO_THROW(check_format(in, "spire.test", 2, "a test file", "reader"));
  expect_error_naming<IOError>([&] { check_format(in, "spire.other", 2, "an other file", "reader"); },
                               {"reader", "not an other file", "format = \"spire.other\""});
  expect_error_naming<IOError>([&] { check_format(in, "spire.test", 3, "a test file", "reader"); },
                               {"format version 2", "reads version 3"});
  std::vector<hsize_t> dims;
  expect_error_naming<IOError>([&] { read_doubles(in, "e/f", dims, "reader"); }, {"reader", "no dataset e/f"});
  expect_error_naming<IOError>([&] { open_group(in, "d", "reader"); }, {"d is not a group"});
  expect_error_naming<IOError>([&] { open_object(in, "g", "reader"); }, {"cannot open g"});
}

}  // namespace
}  // namespace spire::data
