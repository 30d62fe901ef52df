// Pieces every HDF5 reader and writer in Spire shares (checkpoints, history logs, datasets, the
// science packages' output files): identifiers closed by scope, quiet error printing, and whole
// datasets, groups and scalar or array attributes with errors that name the file's part.
// Callers hold data::hdf5_mutex() around HDF5 calls (engine/data/hdf5_lock.h; hdf5_file.h opens
// and writes files with it held).
//
// Conventions: paths are relative to `loc` ("a/b/c"); writing a dataset or group creates its missing
// parents; attributes are replaced when present. Errors are IOErrors starting with `who` (the file
// and operation, e.g. "checkpoint run.h5"), then what HDF5 refused.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spire::data {

// Closes an HDF5 identifier with the function of its kind when it goes out of scope.
struct Hdf5Id {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Hdf5Id() = default;
  Hdf5Id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Hdf5Id(const Hdf5Id&) = delete;
  Hdf5Id& operator=(const Hdf5Id&) = delete;
  // Movable, so that helpers can return what they opened (the moved-from one closes nothing).
  Hdf5Id(Hdf5Id&& o) noexcept : id(o.id), close(o.close) { o.id = -1; }
  ~Hdf5Id() {
    if (id >= 0 && close) close(id);
  }
  operator hid_t() const { return id; }
};

// Silences HDF5's error printing while alive (Spire reports errors itself); unlike H5E_BEGIN_TRY it
// restores the printer when an exception leaves the scope.
struct QuietHdf5Errors {
  H5E_auto2_t func = nullptr;
  void* data = nullptr;
  QuietHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func, data); }
};

// A scalar UTF-8 string attribute (variable length); false when HDF5 cannot create or write it.
bool write_string_attribute(hid_t obj, const char* name, const std::string& value);
// A string attribute, fixed or variable length (other tools write either); nullopt when obj has no
// attribute of that name or it is not a string.
std::optional<std::string> read_string_attribute(hid_t obj, const char* name);

// ---- Links and groups ----------------------------------------------------------------------------

// Whether every link along `path` exists (H5Lexists itself fails when a parent is missing).
bool link_exists(hid_t loc, const std::string& path);
Hdf5Id create_group(hid_t loc, const std::string& path, const std::string& who);
// IOError when absent ("no group"), or when it is not a group.
Hdf5Id open_group(hid_t loc, const std::string& path, const std::string& who);
// Any object (group or dataset), e.g. to put attributes on a dataset written earlier.
Hdf5Id open_object(hid_t loc, const std::string& path, const std::string& who);
// The paths (relative to `group`) of every dataset below it, at any depth, in name order.
std::vector<std::string> dataset_paths(hid_t group);

// ---- Datasets ------------------------------------------------------------------------------------

// A whole dataset of shape dims (empty: a scalar) stored as file_type, from values of memory_type.
// Returns the open dataset, for attributes (or discard it).
Hdf5Id write_dataset(hid_t loc, const std::string& path, hid_t file_type, hid_t memory_type,
                     const std::vector<hsize_t>& dims, const void* values, const std::string& who);
// float64 and int64 datasets of shape dims, or one-dimensional from a vector.
Hdf5Id write_doubles(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* values,
                     const std::string& who);
Hdf5Id write_doubles(hid_t loc, const std::string& path, const std::vector<double>& values, const std::string& who);
Hdf5Id write_int64s(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const int64_t* values,
                    const std::string& who);
Hdf5Id write_int64s(hid_t loc, const std::string& path, const std::vector<int64_t>& values, const std::string& who);

// The whole dataset converted to double (or int64); dims receives its shape. IOError when absent
// ("no dataset"), not a dataset, or unreadable as that type.
std::vector<double> read_doubles(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who);
std::vector<double> read_doubles(hid_t loc, const std::string& path, const std::string& who);
std::vector<int64_t> read_int64s(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who);

// ---- Attributes ----------------------------------------------------------------------------------

// Scalars: float64, int64, uint64; strings as write_string_attribute (variable-length UTF-8).
void write_attribute(hid_t obj, const char* name, double value, const std::string& who);
void write_attribute(hid_t obj, const char* name, int64_t value, const std::string& who);
void write_attribute(hid_t obj, const char* name, uint64_t value, const std::string& who);
void write_attribute(hid_t obj, const char* name, const std::string& value, const std::string& who);
// One-dimensional arrays: float64, int32 (H5MD's version = [1, 1]).
void write_attribute(hid_t obj, const char* name, const std::vector<double>& values, const std::string& who);
void write_attribute(hid_t obj, const char* name, const std::vector<int32_t>& values, const std::string& who);

// A scalar attribute converted to the type; nullopt when absent or not a single value.
std::optional<double> read_double_attribute(hid_t obj, const char* name);
std::optional<int64_t> read_int64_attribute(hid_t obj, const char* name);
std::optional<uint64_t> read_uint64_attribute(hid_t obj, const char* name);

}  // namespace spire::data
