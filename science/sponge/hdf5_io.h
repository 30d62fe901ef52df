// The HDF5 pieces only the sponge files need: the string attributes H5MD prescribes (fixed-length
// ASCII, and the variable-length ASCII units h5py reads back as str). Datasets, groups, numeric and
// UTF-8 string attributes are the engine's (engine/data/hdf5_util.h), shared with every package.
// Every function expects the caller to hold data::hdf5_mutex() (engine/data/hdf5_lock.h); errors
// are IOErrors starting with `who`.
#pragma once
#include <string>
#include <vector>

#include "engine/data/hdf5_util.h"

namespace spire::sponge::h5 {

// Fixed-length ASCII strings, as H5MD requires for its attributes: one scalar, or an array of them.
void write_fixed_string(hid_t obj, const char* name, const std::string& value, const std::string& who);
void write_fixed_strings(hid_t obj, const char* name, const std::vector<std::string>& values,
                         const std::string& who);
// A scalar variable-length ASCII string attribute (what h5py reads back as str).
void write_variable_ascii(hid_t obj, const char* name, const std::string& value, const std::string& who);

}  // namespace spire::sponge::h5
