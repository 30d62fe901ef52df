#include "engine/data/hdf5_util.h"

#include <cstring>

namespace spire::data {

bool write_string_attribute(hid_t obj, const char* name, const std::string& value) {
  Hdf5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const char* p = value.c_str();
  return attr.id >= 0 && H5Awrite(attr, type, &p) >= 0;
}

std::optional<std::string> read_string_attribute(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hdf5Id ftype(H5Aget_type(attr), H5Tclose);
  if (attr.id < 0 || H5Tget_class(ftype) != H5T_STRING) return std::nullopt;
  if (H5Tis_variable_str(ftype) > 0) {
    Hdf5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5Tget_cset(ftype));
    char* p = nullptr;
    if (H5Aread(attr, type, &p) < 0) return std::nullopt;
    std::string s = p ? p : "";
    if (p) H5free_memory(p);
    return s;
  }
  std::string s(H5Tget_size(ftype), '\0');
  if (H5Aread(attr, ftype, s.data()) < 0) return std::nullopt;
  s.resize(std::strlen(s.c_str()));  // fixed-length strings are padded with NULs
  return s;
}

}  // namespace spire::data
