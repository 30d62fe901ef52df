#include "engine/data/hdf5_util.h"

#include <cstring>

#include "engine/core/error.h"

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

namespace {

// Link creation that makes the missing groups on the way ("a/b/value" creates a and a/b).
Hdf5Id parents_created() {
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  return Hdf5Id(lcpl, H5Pclose);
}

Hdf5Id dataspace(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return Hdf5Id(H5Screate(H5S_SCALAR), H5Sclose);
  return Hdf5Id(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose);
}

hsize_t count(const std::vector<hsize_t>& dims) {
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  return n;
}

template <class T>
std::vector<T> read_dataset(hid_t loc, const std::string& path, std::vector<hsize_t>& dims, hid_t memory_type,
                            const std::string& who) {
  SPIRE_CHECK(link_exists(loc, path), IOError, who, ": no dataset ", path);
  Hdf5Id ds(H5Dopen2(loc, path.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": ", path, " is not a dataset");
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space);
  SPIRE_CHECK(rank >= 0, IOError, who, ": cannot read the shape of ", path);
  dims.assign(size_t(rank), 0);
  if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::vector<T> v(count(dims));
  if (!v.empty())
    SPIRE_CHECK(H5Dread(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, IOError, who,
                ": cannot read ", path);
  return v;
}

// An attribute of shape dims (empty: a scalar), replacing one of that name.
void write_any_attribute(hid_t obj, const char* name, hid_t file_type, hid_t memory_type,
                         const std::vector<hsize_t>& dims, const void* values, const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Hdf5Id space = dataspace(dims);
  Hdf5Id attr(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(attr.id >= 0 && (count(dims) == 0 || H5Awrite(attr, memory_type, values) >= 0), IOError, who,
              ": cannot write the attribute ", name);
}

template <class T>
std::optional<T> read_scalar_attribute(hid_t obj, const char* name, hid_t memory_type) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (attr.id < 0) return std::nullopt;
  Hdf5Id space(H5Aget_space(attr), H5Sclose);
  if (H5Sget_simple_extent_npoints(space) != 1) return std::nullopt;
  T v{};
  if (H5Aread(attr, memory_type, &v) < 0) return std::nullopt;
  return v;
}

}  // namespace

bool link_exists(hid_t loc, const std::string& path) {
  for (size_t at = 0;;) {
    const size_t slash = path.find('/', at);
    const std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    at = slash + 1;
  }
}

Hdf5Id create_group(hid_t loc, const std::string& path, const std::string& who) {
  Hdf5Id lcpl = parents_created();
  const hid_t g = H5Gcreate2(loc, path.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT);
  SPIRE_CHECK(g >= 0, IOError, who, ": cannot create the group ", path);
  return Hdf5Id(g, H5Gclose);
}

Hdf5Id open_group(hid_t loc, const std::string& path, const std::string& who) {
  SPIRE_CHECK(link_exists(loc, path), IOError, who, ": no group ", path);
  const hid_t g = H5Gopen2(loc, path.c_str(), H5P_DEFAULT);
  SPIRE_CHECK(g >= 0, IOError, who, ": ", path, " is not a group");
  return Hdf5Id(g, H5Gclose);
}

Hdf5Id open_object(hid_t loc, const std::string& path, const std::string& who) {
  const hid_t o = link_exists(loc, path) ? H5Oopen(loc, path.c_str(), H5P_DEFAULT) : -1;
  SPIRE_CHECK(o >= 0, IOError, who, ": cannot open ", path);
  return Hdf5Id(o, H5Oclose);
}

std::vector<std::string> dataset_paths(hid_t group) {
  std::vector<std::string> names;
  H5Lvisit(group, H5_INDEX_NAME, H5_ITER_INC,
           [](hid_t loc, const char* name, const H5L_info_t*, void* out) -> herr_t {
             Hdf5Id object(H5Oopen(loc, name, H5P_DEFAULT), H5Oclose);
             if (object.id >= 0 && H5Iget_type(object) == H5I_DATASET)
               static_cast<std::vector<std::string>*>(out)->push_back(name);
             return 0;
           },
           &names);
  return names;
}

Hdf5Id write_dataset(hid_t loc, const std::string& path, hid_t file_type, hid_t memory_type,
                     const std::vector<hsize_t>& dims, const void* values, const std::string& who) {
  Hdf5Id lcpl = parents_created();
  Hdf5Id space = dataspace(dims);
  Hdf5Id ds(H5Dcreate2(loc, path.c_str(), file_type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot create the dataset ", path);
  if (count(dims) > 0)
    SPIRE_CHECK(H5Dwrite(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0, IOError, who,
                ": cannot write the dataset ", path);
  return ds;
}

Hdf5Id write_doubles(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* values,
                     const std::string& who) {
  return write_dataset(loc, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, values, who);
}
Hdf5Id write_doubles(hid_t loc, const std::string& path, const std::vector<double>& values, const std::string& who) {
  return write_doubles(loc, path, {hsize_t(values.size())}, values.data(), who);
}
Hdf5Id write_int64s(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const int64_t* values,
                    const std::string& who) {
  return write_dataset(loc, path, H5T_STD_I64LE, H5T_NATIVE_INT64, dims, values, who);
}
Hdf5Id write_int64s(hid_t loc, const std::string& path, const std::vector<int64_t>& values, const std::string& who) {
  return write_int64s(loc, path, {hsize_t(values.size())}, values.data(), who);
}

std::vector<double> read_doubles(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who) {
  return read_dataset<double>(loc, path, dims, H5T_NATIVE_DOUBLE, who);
}
std::vector<double> read_doubles(hid_t loc, const std::string& path, const std::string& who) {
  std::vector<hsize_t> dims;
  return read_doubles(loc, path, dims, who);
}
std::vector<int64_t> read_int64s(hid_t loc, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who) {
  return read_dataset<int64_t>(loc, path, dims, H5T_NATIVE_INT64, who);
}

void write_attribute(hid_t obj, const char* name, double value, const std::string& who) {
  write_any_attribute(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &value, who);
}
void write_attribute(hid_t obj, const char* name, int64_t value, const std::string& who) {
  write_any_attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, {}, &value, who);
}
void write_attribute(hid_t obj, const char* name, uint64_t value, const std::string& who) {
  write_any_attribute(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, {}, &value, who);
}
void write_attribute(hid_t obj, const char* name, const std::string& value, const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  SPIRE_CHECK(write_string_attribute(obj, name, value), IOError, who, ": cannot write the attribute ", name);
}
void write_attribute(hid_t obj, const char* name, const std::vector<double>& values, const std::string& who) {
  write_any_attribute(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hsize_t(values.size())}, values.data(), who);
}
void write_attribute(hid_t obj, const char* name, const std::vector<int32_t>& values, const std::string& who) {
  write_any_attribute(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT32, {hsize_t(values.size())}, values.data(), who);
}

std::optional<double> read_double_attribute(hid_t obj, const char* name) {
  return read_scalar_attribute<double>(obj, name, H5T_NATIVE_DOUBLE);
}
std::optional<int64_t> read_int64_attribute(hid_t obj, const char* name) {
  return read_scalar_attribute<int64_t>(obj, name, H5T_NATIVE_INT64);
}
std::optional<uint64_t> read_uint64_attribute(hid_t obj, const char* name) {
  return read_scalar_attribute<uint64_t>(obj, name, H5T_NATIVE_UINT64);
}

}  // namespace spire::data
