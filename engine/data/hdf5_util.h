// Pieces every HDF5 reader and writer in Spire shares (checkpoints, history logs, datasets).
// Callers hold data::hdf5_mutex() around HDF5 calls (engine/data/hdf5_lock.h).
#pragma once
#include <hdf5.h>

#include <optional>
#include <string>

namespace spire::data {

// Closes an HDF5 identifier with the function of its kind when it goes out of scope.
struct Hdf5Id {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Hdf5Id() = default;
  Hdf5Id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Hdf5Id(const Hdf5Id&) = delete;
  Hdf5Id& operator=(const Hdf5Id&) = delete;
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

}  // namespace spire::data
