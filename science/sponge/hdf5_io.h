// Small HDF5 pieces shared by the H5MD writer and checkpoints: datasets of doubles and integers,
// scalar and string attributes, groups, with errors that name the file's part. Every function
// expects the caller to hold data::hdf5_mutex() (engine/data/hdf5_lock.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/data/hdf5_util.h"

namespace spire::sponge::h5 {

using data::Hdf5Id;

bool exists(hid_t loc, const std::string& path);  // a link at `path` ("a/b/c"), every level checked
// Creates the group (and its parents); IOError starting with `who` when HDF5 refuses.
Hdf5Id create_group(hid_t loc, const std::string& path, const std::string& who);
Hdf5Id open_group(hid_t loc, const std::string& path, const std::string& who);

// A dataset of the given shape, whole, as float64 (or int64); parents created as needed.
void write_doubles(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* data,
                   const std::string& who);
void write_int64s(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const int64_t* data,
                  const std::string& who);
// The whole dataset converted to double (or int64); dims receives its shape. IOError when absent.
std::vector<double> read_doubles(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who);
std::vector<int64_t> read_int64s(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who);

// Scalar attributes (replaced when present).
void write_attribute(hid_t obj, const char* name, int64_t value, const std::string& who);
void write_attribute(hid_t obj, const char* name, uint64_t value, const std::string& who);
void write_attribute(hid_t obj, const char* name, double value, const std::string& who);
// Fixed-length ASCII strings, as H5MD requires for its attributes: one scalar, or an array of them.
// (Variable-length ones: data::write_string_attribute, or write_variable_ascii below.)
void write_fixed_string(hid_t obj, const char* name, const std::string& value, const std::string& who);
void write_fixed_strings(hid_t obj, const char* name, const std::vector<std::string>& values,
                         const std::string& who);
// A scalar variable-length ASCII string attribute (what h5py reads back as str).
void write_variable_ascii(hid_t obj, const char* name, const std::string& value, const std::string& who);
// An integer attribute array (H5MD's version = [1, 1]).
void write_int_array_attribute(hid_t obj, const char* name, const std::vector<int32_t>& values,
                               const std::string& who);

std::optional<int64_t> read_int64_attribute(hid_t obj, const char* name);
std::optional<uint64_t> read_uint64_attribute(hid_t obj, const char* name);
std::optional<double> read_double_attribute(hid_t obj, const char* name);

}  // namespace spire::sponge::h5
