// The attributes and complex datasets of elec's HDF5 files (hdf5_files.h).
#include "science/elec/hdf5_files.h"

#include "science/elec/field_output.h"

#ifndef SPIRE_VERSION
#define SPIRE_VERSION "unknown"  // the CMake build defines it; a bare compile says so
#endif

namespace spire::elec::h5 {

void write_format(hid_t file, const std::string& format, int64_t version, const std::string& who) {
  data::write_attribute(file, "format", format, who);
  data::write_attribute(file, "format_version", version, who);
  data::write_attribute(file, "spire_version", std::string(SPIRE_VERSION), who);
}

void write_provenance(hid_t file, const Provenance& provenance, const std::string& who) {
  data::write_attribute(file, "job", provenance.job, who);
  if (provenance.seed) data::write_attribute(file, "seed", *provenance.seed, who);
  data::write_attribute(file, "units", std::string(kUnits), who);
}

data::Hdf5Id write_complex(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims,
                           const std::complex<double>* values, const std::string& who) {
  // The {r, i} compound h5py maps to complex128; std::complex<double> is laid out as {re, im}
  // (array-compatible), so the values are written as they are.
  data::Hdf5Id type(H5Tcreate(H5T_COMPOUND, 2 * sizeof(double)), H5Tclose);
  H5Tinsert(type, "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(type, "i", sizeof(double), H5T_NATIVE_DOUBLE);
  return data::write_dataset(loc, path, type, type, dims, values, who);
}

}  // namespace spire::elec::h5
