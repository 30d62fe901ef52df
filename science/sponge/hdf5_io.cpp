// HDF5 helpers of the sponge writers (hdf5_io.h). Callers hold data::hdf5_mutex().
#include "science/sponge/hdf5_io.h"

#include <algorithm>

#include "engine/core/error.h"

namespace spire::sponge::h5 {

bool exists(hid_t loc, const std::string& path) {
  size_t at = 0;
  while (true) {
    const size_t slash = path.find('/', at);
    const std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    at = slash + 1;
  }
}

namespace {

// Link creation that makes the missing groups on the way ("a/b/value" creates a and a/b).
Hdf5Id link_create_list() {
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  return Hdf5Id(lcpl, H5Pclose);
}

void write_dataset(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, hid_t file_type,
                   hid_t mem_type, const void* data, const std::string& who) {
  Hdf5Id space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose);
  Hdf5Id lcpl = link_create_list();
  Hdf5Id ds(H5Dcreate2(loc, path.c_str(), file_type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot create the dataset ", path);
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  if (n == 0) return;
  SPIRE_CHECK(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, IOError, who,
              ": cannot write the dataset ", path);
}

template <class T>
std::vector<T> read_dataset(hid_t loc, const std::string& path, std::vector<hsize_t>& dims, hid_t mem_type,
                            const std::string& who) {
  SPIRE_CHECK(exists(loc, path), IOError, who, ": no dataset ", path);
  Hdf5Id ds(H5Dopen2(loc, path.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": ", path, " is not a dataset");
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space);
  SPIRE_CHECK(rank >= 0, IOError, who, ": cannot read the shape of ", path);
  dims.assign(size_t(rank), 0);
  if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  std::vector<T> v(n);
  if (n > 0)
    SPIRE_CHECK(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, IOError, who,
                ": cannot read ", path);
  return v;
}

void write_scalar(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value,
                  const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(attr.id >= 0 && H5Awrite(attr, mem_type, value) >= 0, IOError, who, ": cannot write the attribute ",
              name);
}

template <class T>
std::optional<T> read_scalar(hid_t obj, const char* name, hid_t mem_type) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hdf5Id space(H5Aget_space(attr), H5Sclose);
  if (attr.id < 0 || H5Sget_simple_extent_npoints(space) != 1) return std::nullopt;
  T v{};
  if (H5Aread(attr, mem_type, &v) < 0) return std::nullopt;
  return v;
}

}  // namespace

Hdf5Id create_group(hid_t loc, const std::string& path, const std::string& who) {
  Hdf5Id lcpl = link_create_list();
  const hid_t g = H5Gcreate2(loc, path.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT);
  SPIRE_CHECK(g >= 0, IOError, who, ": cannot create the group ", path);
  return Hdf5Id(g, H5Gclose);
}

Hdf5Id open_group(hid_t loc, const std::string& path, const std::string& who) {
  SPIRE_CHECK(exists(loc, path), IOError, who, ": no group ", path);
  const hid_t g = H5Gopen2(loc, path.c_str(), H5P_DEFAULT);
  SPIRE_CHECK(g >= 0, IOError, who, ": ", path, " is not a group");
  return Hdf5Id(g, H5Gclose);
}

void write_doubles(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* data,
                   const std::string& who) {
  write_dataset(loc, path, dims, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data, who);
}

void write_int64s(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const int64_t* data,
                  const std::string& who) {
  write_dataset(loc, path, dims, H5T_STD_I64LE, H5T_NATIVE_INT64, data, who);
}

std::vector<double> read_doubles(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who) {
  return read_dataset<double>(loc, path, dims, H5T_NATIVE_DOUBLE, who);
}

std::vector<int64_t> read_int64s(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who) {
  return read_dataset<int64_t>(loc, path, dims, H5T_NATIVE_INT64, who);
}

void write_attribute(hid_t obj, const char* name, int64_t value, const std::string& who) {
  write_scalar(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, who);
}
void write_attribute(hid_t obj, const char* name, uint64_t value, const std::string& who) {
  write_scalar(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, who);
}
void write_attribute(hid_t obj, const char* name, double value, const std::string& who) {
  write_scalar(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, who);
}

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

void write_int_array_attribute(hid_t obj, const char* name, const std::vector<int32_t>& values,
                               const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  const hsize_t n = values.size();
  Hdf5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(attr.id >= 0 && H5Awrite(attr, H5T_NATIVE_INT32, values.data()) >= 0, IOError, who,
              ": cannot write the attribute ", name);
}

std::optional<int64_t> read_int64_attribute(hid_t obj, const char* name) {
  return read_scalar<int64_t>(obj, name, H5T_NATIVE_INT64);
}
std::optional<uint64_t> read_uint64_attribute(hid_t obj, const char* name) {
  return read_scalar<uint64_t>(obj, name, H5T_NATIVE_UINT64);
}
std::optional<double> read_double_attribute(hid_t obj, const char* name) {
  return read_scalar<double>(obj, name, H5T_NATIVE_DOUBLE);
}

}  // namespace spire::sponge::h5
