// DFT fields to HDF5 and back (dft_output.h), through the engine's whole-file writes and checked
// opens (engine/data/hdf5_file.h), which hold data::hdf5_mutex().
#include "science/elec/dft_output.h"

#include <hdf5.h>

#include "engine/core/error.h"
#include "engine/data/hdf5_file.h"
#include "science/elec/hdf5_files.h"

namespace spire::elec {
namespace {

constexpr const char* kFormat = "spire.elec.dft_fields";
constexpr int64_t kFormatVersion = 1;
constexpr const char* kNormalisation =
    "F(x, f) = sum_n field(x, t_n) exp(i 2 pi f t_n) dt over the run (t_n: the component's own times); "
    "Meep's DFTs are this divided by sqrt(2 pi)";
constexpr const char* kAxis[] = {"x", "y", "z"};

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
  data::write_hdf5_file(path, who, [&](hid_t file) {
    h5::write_format(file, kFormat, kFormatVersion, who);
    h5::write_provenance(file, provenance, who);
    data::write_attribute(file, "component", to_string(dft.component()), who);
    data::write_attribute(file, "dt", dft.dt(), who);
    data::write_attribute(file, "steps", dft.steps(), who);
    data::write_attribute(file, "normalisation", std::string(kNormalisation), who);
    data::write_attribute(file, "layout",
                          std::string("real, imag: [frequency][n_z][n_y][n_x], x fastest, at coordinates/x,y,z"), who);
    data::write_doubles(file, "frequencies", dft.frequencies(), who);
    for (int a = 0; a < 3; ++a)
      data::write_doubles(file, std::string("coordinates/") + kAxis[a], dft.positions()[size_t(a)], who);
    const std::vector<hsize_t> dims{hsize_t(nf), hsize_t(shape[2]), hsize_t(shape[1]), hsize_t(shape[0])};
    data::write_doubles(file, "real", dims, re.data(), who);
    data::write_doubles(file, "imag", dims, im.data(), who);
  });
}

DftFieldsFile read_dft_fields(const std::string& path) {
  const std::string who = "read_dft_fields(" + path + ")";
  const data::Hdf5Input file(path, who);
  data::check_format(file, kFormat, kFormatVersion, std::string("a ") + kFormat + " file", who);
  DftFieldsFile out;
  const std::string component = data::read_string_attribute(file, "component").value_or("");
  bool known = false;
  for (int c = 0; c < 6 && !known; ++c)
    if (to_string(Component(c)) == component) out.component = Component(c), known = true;
  SPIRE_CHECK(known, IOError, who, ": the attribute 'component' is missing or not a field component: '", component, "'");
  const auto dt = data::read_double_attribute(file, "dt");
  const auto steps = data::read_int64_attribute(file, "steps");
  SPIRE_CHECK(dt && steps, IOError, who, ": the attributes 'dt' and 'steps' are required");
  out.dt = *dt;
  out.steps = *steps;
  std::vector<hsize_t> dims;
  out.frequencies = data::read_doubles(file, "frequencies", dims, who);
  std::array<size_t, 3> n{};
  for (int a = 0; a < 3; ++a) {
    out.positions[size_t(a)] = data::read_doubles(file, std::string("coordinates/") + kAxis[a], dims, who);
    n[size_t(a)] = out.positions[size_t(a)].size();
  }
  const std::vector<double> re = data::read_doubles(file, "real", dims, who);
  const std::vector<double> im = data::read_doubles(file, "imag", dims, who);
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
