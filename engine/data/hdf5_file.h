// Whole HDF5 files, written and opened the one way every Spire format does it: with
// data::hdf5_mutex() held (Debian's HDF5 is the serial, non-thread-safe build) and HDF5's own error
// printing silenced (Spire's errors say what went wrong), a new file appearing only when complete
// (atomic_file.h), and a file's `format` and `format_version` attributes checked before it is read.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "engine/data/hdf5_util.h"

namespace spire::data {

// Creates `path` whole: a new HDF5 file at a temporary name, filled by fill(file) with the lock
// held, flushed, closed and renamed over path. IOError starting with `who` when the file cannot be
// created, flushed or renamed; what fill throws propagates, and path is left untouched.
void write_hdf5_file(const std::string& path, const std::string& who, const std::function<void(hid_t file)>& fill);

// An existing HDF5 file open read-only; the lock is held and HDF5's printing silenced while it
// lives. IOError starting with `who`: "no such file", "not an HDF5 file".
class Hdf5Input {
 public:
  Hdf5Input(const std::string& path, const std::string& who);
  Hdf5Input(const Hdf5Input&) = delete;
  Hdf5Input& operator=(const Hdf5Input&) = delete;
  operator hid_t() const { return file_.id; }

 private:
  std::lock_guard<std::recursive_mutex> lock_;  // first in, last out: taken before any HDF5 call
  QuietHdf5Errors quiet_;
  Hdf5Id file_;
};

// IOError starting with `who` unless the file's string attribute `format` is `format` ("<who>: not
// <what> (no attribute format = "<format>")") and its integer format_version is `version`.
void check_format(hid_t file, const std::string& format, int64_t version, const std::string& what,
                  const std::string& who);

}  // namespace spire::data
