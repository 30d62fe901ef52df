// HDF5 helpers of the job's files (job_hdf5.h).
#include "science/elec/job_hdf5.h"

#include "engine/core/error.h"

namespace spire::elec::h5 {

namespace {

Hdf5Id link_create_props() {
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

// The {r, i} compound h5py maps to complex128.
Hdf5Id complex_type() {
  const hid_t t = H5Tcreate(H5T_COMPOUND, 2 * sizeof(double));
  H5Tinsert(t, "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "i", sizeof(double), H5T_NATIVE_DOUBLE);
  return Hdf5Id(t, H5Tclose);
}

void write(hid_t loc, const std::string& path, hid_t file_type, hid_t memory_type, const std::vector<hsize_t>& dims,
           const void* values, const std::string& who) {
  Hdf5Id lcpl = link_create_props();
  Hdf5Id space = dataspace(dims);
  Hdf5Id ds(H5Dcreate2(loc, path.c_str(), file_type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot create the dataset ", path);
  if (count(dims) > 0)
    SPIRE_CHECK(H5Dwrite(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0, IOError, who,
                ": cannot write the dataset ", path);
}

template <class T>
void scalar_attribute(hid_t obj, const char* name, hid_t file_type, hid_t memory_type, const T& value,
                      const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id a(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(a.id >= 0 && H5Awrite(a, memory_type, &value) >= 0, IOError, who, ": cannot write the attribute ", name);
}

template <class T>
std::optional<T> read_attribute(hid_t obj, const char* name, hid_t memory_type) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Hdf5Id a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  T v{};
  if (a.id < 0 || H5Aread(a, memory_type, &v) < 0) return std::nullopt;
  return v;
}

}  // namespace

void write_doubles(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* values,
                   const std::string& who) {
  write(loc, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, values, who);
}

void write_doubles(hid_t loc, const std::string& path, const std::vector<double>& values, const std::string& who) {
  write_doubles(loc, path, {hsize_t(values.size())}, values.data(), who);
}

void write_complex(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims,
                   const std::complex<double>* values, const std::string& who) {
  Hdf5Id t = complex_type();  // std::complex<double> is laid out as {re, im} (array-compatible)
  write(loc, path, t, t, dims, values, who);
}

void write_int64s(hid_t loc, const std::string& path, const std::vector<int64_t>& values, const std::string& who) {
  write(loc, path, H5T_STD_I64LE, H5T_NATIVE_INT64, {hsize_t(values.size())}, values.data(), who);
}

Hdf5Id create_group(hid_t loc, const std::string& path, const std::string& who) {
  Hdf5Id lcpl = link_create_props();
  const hid_t g = H5Gcreate2(loc, path.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT);
  SPIRE_CHECK(g >= 0, IOError, who, ": cannot create the group ", path);
  return Hdf5Id(g, H5Gclose);
}

Hdf5Id open_object(hid_t loc, const std::string& path, const std::string& who) {
  const hid_t o = H5Oopen(loc, path.c_str(), H5P_DEFAULT);
  SPIRE_CHECK(o >= 0, IOError, who, ": cannot open ", path);
  return Hdf5Id(o, H5Oclose);
}

void attribute(hid_t obj, const char* name, double value, const std::string& who) {
  scalar_attribute(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, value, who);
}
void attribute(hid_t obj, const char* name, int64_t value, const std::string& who) {
  scalar_attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, value, who);
}
void attribute(hid_t obj, const char* name, uint64_t value, const std::string& who) {
  scalar_attribute(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, value, who);
}
void attribute(hid_t obj, const char* name, const std::string& value, const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  SPIRE_CHECK(data::write_string_attribute(obj, name, value), IOError, who, ": cannot write the attribute ", name);
}
void attribute(hid_t obj, const char* name, const std::vector<double>& values, const std::string& who) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  const hsize_t n = values.size();
  Hdf5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hdf5Id a(H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(a.id >= 0 && (n == 0 || H5Awrite(a, H5T_NATIVE_DOUBLE, values.data()) >= 0), IOError, who,
              ": cannot write the attribute ", name);
}

std::optional<double> read_double_attribute(hid_t obj, const char* name) {
  return read_attribute<double>(obj, name, H5T_NATIVE_DOUBLE);
}
std::optional<int64_t> read_int64_attribute(hid_t obj, const char* name) {
  return read_attribute<int64_t>(obj, name, H5T_NATIVE_INT64);
}
std::optional<uint64_t> read_uint64_attribute(hid_t obj, const char* name) {
  return read_attribute<uint64_t>(obj, name, H5T_NATIVE_UINT64);
}

std::vector<double> read_doubles(hid_t loc, const std::string& path, const std::string& who) {
  SPIRE_CHECK(H5Lexists(loc, path.c_str(), H5P_DEFAULT) > 0, IOError, who, ": no dataset ", path);
  Hdf5Id ds(H5Dopen2(loc, path.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot open ", path);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  SPIRE_CHECK(n >= 0, IOError, who, ": cannot read the shape of ", path);
  std::vector<double> v(static_cast<size_t>(n));
  if (n > 0)
    SPIRE_CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, IOError, who,
                ": cannot read ", path);
  return v;
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

}  // namespace spire::elec::h5
