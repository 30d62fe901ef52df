#include "science/flow/generate_chunk.h"

#include <hdf5.h>

#include <mutex>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"

namespace spire::flow {

namespace {

using data::Hdf5Id;
using data::read_doubles;

void write_doubles(hid_t where, const std::string& name, const std::vector<hsize_t>& shape, const double* values) {
  Hdf5Id space(H5Screate_simple(int(shape.size()), shape.data(), nullptr), H5Sclose);
  Hdf5Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl, 1);
  Hdf5Id set(H5Dcreate2(where, name.c_str(), H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(set >= 0 && H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0, IOError,
              "could not write dataset ", name);
}


herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}

}  // namespace

void write_chunk(const std::string& path, const Solution& s, const Coefficients& coef) {
  data::write_atomically(path, "spire pde generate", [&](const std::string& tmp) {
    std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
    data::QuietHdf5Errors quiet;
    Hdf5Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    SPIRE_CHECK(file >= 0, IOError, "spire pde generate: could not create ", tmp);
    write_doubles(file, "t", {hsize_t(s.t.size())}, s.t.data());
    size_t values = s.fields.empty() ? 0 : s.fields[0].size();
    std::vector<double> all;
    all.reserve(s.fields.size() * values);
    for (const auto& field : s.fields) all.insert(all.end(), field.begin(), field.end());
    write_doubles(file, "fields", {hsize_t(s.fields.size()), hsize_t(values)}, all.data());
    double steps = double(s.steps);
    write_doubles(file, "steps", {1}, &steps);
    // coefficient names hold '/' (s/field), which HDF5 would take for groups: stored with ':'
    for (const auto& [name, v] : coef) {
      std::string flat = name;
      for (char& c : flat)
        if (c == '/') c = ':';
      write_doubles(file, "coef/" + flat, {hsize_t(v.size())}, v.data());
    }
  });
}

void read_chunk(const std::string& path, Solution& s, Coefficients& coef) {
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file >= 0, IOError, "spire pde generate: cannot open the sample checkpoint ", path);
  std::vector<hsize_t> shape;
  s.t = read_doubles(file, "t", shape, path);
  std::vector<double> all = read_doubles(file, "fields", shape, path);
  SPIRE_CHECK(shape.size() == 2, IOError, path, ": not a sample checkpoint (fields is not [field, values])");
  s.fields.assign(shape[0], {});
  for (size_t f = 0; f < shape[0]; ++f) s.fields[f].assign(all.begin() + f * shape[1], all.begin() + (f + 1) * shape[1]);
  s.steps = long(read_doubles(file, "steps", shape, path)[0]);
  s.complete = true;
  coef.clear();
  if (H5Lexists(file, "coef", H5P_DEFAULT) > 0) {
    Hdf5Id group(H5Gopen2(file, "coef", H5P_DEFAULT), H5Gclose);
    std::vector<std::string> names;
    H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names);
    for (const auto& name : names) {
      std::string original = name;
      for (char& c : original)
        if (c == ':') c = '/';
      coef[original] = read_doubles(group, name, shape, path);
    }
  }
}

}  // namespace spire::flow
