// Small HDF5 pieces for the files a job writes (the results file, job_results.cpp; checkpoints,
// checkpoint.cpp): whole datasets of doubles, complex numbers and integers, scalar and string
// attributes, and reading back every dataset under a group. Complex values are stored as the
// compound type {r, i} of two float64, which h5py reads as complex128 (and Meep's tools as r/i
// pairs). Errors are IOErrors starting with `who`. Callers hold data::hdf5_mutex().
#pragma once
#include <hdf5.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/data/hdf5_util.h"

namespace spire::elec::h5 {

using data::Hdf5Id;

// Datasets of the given shape (empty dims: a scalar), parents created as needed.
void write_doubles(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* values,
                   const std::string& who);
void write_doubles(hid_t loc, const std::string& path, const std::vector<double>& values, const std::string& who);
void write_complex(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims,
                   const std::complex<double>* values, const std::string& who);
void write_int64s(hid_t loc, const std::string& path, const std::vector<int64_t>& values, const std::string& who);
Hdf5Id create_group(hid_t loc, const std::string& path, const std::string& who);
Hdf5Id open_object(hid_t loc, const std::string& path, const std::string& who);

void attribute(hid_t obj, const char* name, double value, const std::string& who);
void attribute(hid_t obj, const char* name, int64_t value, const std::string& who);
void attribute(hid_t obj, const char* name, uint64_t value, const std::string& who);
void attribute(hid_t obj, const char* name, const std::string& value, const std::string& who);
void attribute(hid_t obj, const char* name, const std::vector<double>& values, const std::string& who);

std::optional<double> read_double_attribute(hid_t obj, const char* name);
std::optional<int64_t> read_int64_attribute(hid_t obj, const char* name);
std::optional<uint64_t> read_uint64_attribute(hid_t obj, const char* name);

// A whole dataset converted to double.
std::vector<double> read_doubles(hid_t loc, const std::string& path, const std::string& who);
// The paths (relative to `group`) of every dataset below it, in name order.
std::vector<std::string> dataset_paths(hid_t group);

}  // namespace spire::elec::h5
