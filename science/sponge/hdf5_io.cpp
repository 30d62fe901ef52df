// H5MD's string attributes (hdf5_io.h). Callers hold data::hdf5_mutex().
#include "science/sponge/hdf5_io.h"

#include <algorithm>

#include "engine/core/error.h"

namespace spire::sponge::h5 {

using data::Hdf5Id;

void write_fixed_string(hid_t obj, const char* name, const std::string& value, const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Hdf5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, std::max<size_t>(value.size(), 1));
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  H5Tset_cset(type, H5T_CSET_ASCII);
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  std::string padded = value;
  padded.resize(std::max<size_t>(value.size(), 1), '\0');
  SPIRE_CHECK(attr.id >= 0 && H5Awrite(attr, type, padded.data()) >= 0, IOError, who,
              ": cannot write the attribute ", name);
}

void write_fixed_strings(hid_t obj, const char* name, const std::vector<std::string>& values,
                         const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  size_t width = 1;
  for (const std::string& s : values) width = std::max(width, s.size());
  std::string block(width * values.size(), '\0');
  for (size_t i = 0; i < values.size(); ++i) std::copy(values[i].begin(), values[i].end(), block.begin() + i * width);
  Hdf5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, width);
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  H5Tset_cset(type, H5T_CSET_ASCII);
  const hsize_t n = values.size();
  Hdf5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(attr.id >= 0 && H5Awrite(attr, type, block.data()) >= 0, IOError, who,
              ": cannot write the attribute ", name);
}

void write_variable_ascii(hid_t obj, const char* name, const std::string& value, const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Hdf5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_ASCII);
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const char* p = value.c_str();
  SPIRE_CHECK(attr.id >= 0 && H5Awrite(attr, type, &p) >= 0, IOError, who, ": cannot write the attribute ", name);
}

}  // namespace spire::sponge::h5
