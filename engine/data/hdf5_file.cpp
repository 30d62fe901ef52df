// Whole HDF5 files (hdf5_file.h).
#include "engine/data/hdf5_file.h"

#include <filesystem>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"
#include "engine/data/hdf5_lock.h"

namespace spire::data {

void write_hdf5_file(const std::string& path, const std::string& who, const std::function<void(hid_t file)>& fill) {
  write_atomically(path, who, [&](const std::string& tmp) {
    std::lock_guard<std::recursive_mutex> lock(hdf5_mutex());
    QuietHdf5Errors quiet;
    Hdf5Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot create ", tmp);
    fill(file);
    SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, who, ": cannot flush ", tmp);
  });
}

namespace {

// Opens path read-only; checked here so that the messages say which of the two it is.
hid_t open_read_only(const std::string& path, const std::string& who) {
  SPIRE_CHECK(std::filesystem::exists(path), IOError, who, ": no such file");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  SPIRE_CHECK(f >= 0, IOError, who, ": not an HDF5 file");
  return f;
}

}  // namespace

// The lock and the silencing are in place (members initialise in order) before the file opens.
Hdf5Input::Hdf5Input(const std::string& path, const std::string& who)
    : lock_(hdf5_mutex()), file_(open_read_only(path, who), H5Fclose) {}

void check_format(hid_t file, const std::string& format, int64_t version, const std::string& what,
                  const std::string& who) {
  SPIRE_CHECK(read_string_attribute(file, "format").value_or("") == format, IOError, who, ": not ", what,
              " (no attribute format = \"", format, "\")");
  const int64_t found = read_int64_attribute(file, "format_version").value_or(0);
  SPIRE_CHECK(found == version, IOError, who, ": ", format, " format version ", found, "; this build reads version ",
              version);
}

}  // namespace spire::data
