// DFT fields to HDF5 and back (dft_output.h). Every HDF5 call holds data::hdf5_mutex(): Debian's
// HDF5 is the serial, non-thread-safe build.
#include "science/elec/dft_output.h"

#include <hdf5.h>

#include <algorithm>
#include <mutex>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"

#ifndef SPIRE_VERSION
#define SPIRE_VERSION "unknown"  // the CMake build defines it; a bare compile says so
#endif

namespace spire::elec {
namespace {

using data::Hdf5Id;
constexpr const char* kFormat = "spire.elec.dft_fields";
constexpr int64_t kFormatVersion = 1;
constexpr const char* kUnits = "normalised: lengths in a, time in a/c, frequencies in c/a; eps0 = mu0 = c = 1";
constexpr const char* kNormalisation =
    "F(x, f) = sum_n field(x, t_n) exp(i 2 pi f t_n) dt over the run (t_n: the component's own times); "
    "Meep's DFTs are this divided by sqrt(2 pi)";
constexpr const char* kAxis[] = {"x", "y", "z"};

template <class T>
void attr(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, T v, const std::string& who) {
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id a(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(a.id >= 0 && H5Awrite(a, mem_type, &v) >= 0, IOError, who, ": cannot write the attribute ", name);
}
void attr_string(hid_t obj, const char* name, const std::string& v, const std::string& who) {
  SPIRE_CHECK(data::write_string_attribute(obj, name, v), IOError, who, ": cannot write the attribute ", name);
}

void write_doubles(hid_t file, const std::string& path, const std::vector<hsize_t>& dims, const double* v,
                   const std::string& who) {
  Hdf5Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl, 1);
  Hdf5Id space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose);
  Hdf5Id ds(H5Dcreate2(file, path.c_str(), H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot create the dataset ", path);
  SPIRE_CHECK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, IOError, who,
              ": cannot write the dataset ", path);
}

// Whether every link along `path` ("a/b/c") exists (H5Lexists needs its parents to).
bool link_exists(hid_t file, const std::string& path) {
  for (size_t slash = path.find('/');; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
  }
}

std::vector<double> read_doubles(hid_t file, const std::string& path, std::vector<hsize_t>& dims,
                                 const std::string& who) {
  SPIRE_CHECK(link_exists(file, path), IOError, who, ": no dataset ", path);
  Hdf5Id ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot open the dataset ", path);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  dims.assign(size_t(std::max(0, H5Sget_simple_extent_ndims(space))), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::vector<double> v(size_t(std::max<hssize_t>(0, H5Sget_simple_extent_npoints(space))));
  if (!v.empty())
    SPIRE_CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, IOError, who,
                ": cannot read the dataset ", path);
  return v;
}

}  // namespace

void write_dft_fields(const std::string& path, const DftFields& dft, const Provenance& provenance) {
  const std::string who = "write_dft_fields(" + path + ")";
  const auto shape = dft.shape();
  const size_t nf = dft.frequencies().size(), np = size_t(dft.points());
  // DftFields stores z fastest; the file x fastest: reorder once.
  std::vector<double> re(nf * np), im(nf * np);
  for (size_t f = 0; f < nf; ++f)
    for (int64_t i = 0; i < shape[0]; ++i)
      for (int64_t j = 0; j < shape[1]; ++j)
        for (int64_t k = 0; k < shape[2]; ++k) {
          const std::complex<double> v = dft.value(f, (i * shape[1] + j) * shape[2] + k);
          const size_t out = f * np + size_t((k * shape[1] + j) * shape[0] + i);
          re[out] = v.real(), im[out] = v.imag();
        }
  data::write_atomically(path, who, [&](const std::string& tmp) {
    std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
    data::QuietHdf5Errors quiet;
    Hdf5Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot create ", tmp);
    attr_string(file, "format", kFormat, who);
    attr<int64_t>(file, "format_version", H5T_STD_I64LE, H5T_NATIVE_INT64, kFormatVersion, who);
    attr_string(file, "spire_version", SPIRE_VERSION, who);
    attr_string(file, "job", provenance.job, who);
    if (provenance.seed) attr<uint64_t>(file, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, *provenance.seed, who);
    attr_string(file, "units", kUnits, who);
    attr_string(file, "component", to_string(dft.component()), who);
    attr<double>(file, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dft.dt(), who);
    attr<int64_t>(file, "steps", H5T_STD_I64LE, H5T_NATIVE_INT64, dft.steps(), who);
    attr_string(file, "normalisation", kNormalisation, who);
    attr_string(file, "layout", "real, imag: [frequency][n_z][n_y][n_x], x fastest, at coordinates/x,y,z", who);
    write_doubles(file, "frequencies", {hsize_t(nf)}, dft.frequencies().data(), who);
    for (int a = 0; a < 3; ++a) {
      const std::vector<double>& x = dft.positions()[size_t(a)];
      write_doubles(file, std::string("coordinates/") + kAxis[a], {hsize_t(x.size())}, x.data(), who);
    }
    const std::vector<hsize_t> dims{hsize_t(nf), hsize_t(shape[2]), hsize_t(shape[1]), hsize_t(shape[0])};
    write_doubles(file, "real", dims, re.data(), who);
    write_doubles(file, "imag", dims, im.data(), who);
    SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, who, ": cannot flush ", tmp);
  });
}

DftFieldsFile read_dft_fields(const std::string& path) {
  const std::string who = "read_dft_fields(" + path + ")";
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot open the file");
  SPIRE_CHECK(data::read_string_attribute(file, "format").value_or("") == kFormat, IOError, who, ": not a ", kFormat,
              " file");
  DftFieldsFile out;
  const std::string component = data::read_string_attribute(file, "component").value_or("");
  bool known = false;
  for (int c = 0; c < 6 && !known; ++c)
    if (to_string(Component(c)) == component) out.component = Component(c), known = true;
  SPIRE_CHECK(known, IOError, who, ": the attribute 'component' is missing or not a field component: '", component, "'");
  auto read_attr = [&](const char* name, hid_t type, void* v) {
    SPIRE_CHECK(H5Aexists(file, name) > 0, IOError, who, ": the attribute '", name, "' is missing");
    Hdf5Id a(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
    SPIRE_CHECK(a.id >= 0 && H5Aread(a, type, v) >= 0, IOError, who, ": cannot read the attribute ", name);
  };
  read_attr("dt", H5T_NATIVE_DOUBLE, &out.dt);
  read_attr("steps", H5T_NATIVE_INT64, &out.steps);
  std::vector<hsize_t> dims;
  out.frequencies = read_doubles(file, "frequencies", dims, who);
  std::array<size_t, 3> n{};
  for (int a = 0; a < 3; ++a) {
    out.positions[size_t(a)] = read_doubles(file, std::string("coordinates/") + kAxis[a], dims, who);
    n[size_t(a)] = out.positions[size_t(a)].size();
  }
  const std::vector<double> re = read_doubles(file, "real", dims, who);
  const std::vector<double> im = read_doubles(file, "imag", dims, who);
  const std::vector<hsize_t> want{hsize_t(out.frequencies.size()), hsize_t(n[2]), hsize_t(n[1]), hsize_t(n[0])};
  SPIRE_CHECK(dims == want && re.size() == im.size(), IOError, who,
              ": real and imag must be [frequencies][n_z][n_y][n_x] arrays matching the coordinates");
  const size_t np = n[0] * n[1] * n[2];
  out.values.resize(re.size());
  for (size_t f = 0; f < out.frequencies.size(); ++f)
    for (size_t i = 0; i < n[0]; ++i)
      for (size_t j = 0; j < n[1]; ++j)
        for (size_t k = 0; k < n[2]; ++k) {
          const size_t file_index = f * np + (k * n[1] + j) * n[0] + i;
          out.values[f * np + (i * n[1] + j) * n[2] + k] = {re[file_index], im[file_index]};
        }
  return out;
}

}  // namespace spire::elec
