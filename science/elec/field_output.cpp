// HDF5 + XDMF field snapshots and point time series (field_output.h). Every HDF5 call holds
// data::hdf5_mutex() (Debian's HDF5 is the serial, non-thread-safe build): the snapshot writer,
// whose file stays open between writes, takes it itself; the other files are written and read
// whole through engine/data/hdf5_file.h.
#include "science/elec/field_output.h"

#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"
#include "engine/data/hdf5_file.h"
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"
#include "science/elec/hdf5_files.h"
#include "science/elec/interpolation.h"

namespace spire::elec {

namespace {

using data::Hdf5Id;
constexpr const char* kFormat = "spire.elec.fields";
constexpr int64_t kFormatVersion = 1;
constexpr const char* kAxis[] = {"x", "y", "z"};

std::string step_name(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08lld", static_cast<long long>(step));
  return buf;
}

// A snapshot dataset: float64, or float32 for single-precision output (written from doubles).
Hdf5Id write_field(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* values,
                         bool single, const std::string& who) {
  return data::write_dataset(loc, path, single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, values,
                             who);
}

// The dataset shape for a lattice (x fastest; see the header).
std::vector<hsize_t> file_shape(const YeeLattice& lat) {
  switch (lat.dimensions()) {
    case Dimensions::one: return {hsize_t(lat.n(2)), 1, 1};
    case Dimensions::two_tm:
    case Dimensions::two_te: return {hsize_t(lat.n(1)), hsize_t(lat.n(0))};
    default: return {hsize_t(lat.n(2)), hsize_t(lat.n(1)), hsize_t(lat.n(0))};
  }
}

// Component c's sample coordinates along axis a.
std::vector<double> coordinates(const YeeLattice& lat, Component c, int a) {
  std::vector<double> out;
  for (int64_t i = 0; i < lat.n(a); ++i) {
    int64_t idx[3] = {0, 0, 0};
    idx[a] = i;
    out.push_back(lat.position(c, idx[0], idx[1], idx[2])[a]);
  }
  return out;
}

std::string dims_text(const std::vector<hsize_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(d[i]);
  }
  return s;
}

}  // namespace

std::string xdmf_path_for(const std::string& h5_path) {
  std::filesystem::path p(h5_path);
  const std::string ext = p.extension().string();
  if (ext == ".h5" || ext == ".hdf5") p.replace_extension(".xdmf");
  else p += ".xdmf";
  return p.string();
}

FieldSnapshotWriter::FieldSnapshotWriter(std::string path, const YeeLattice& lattice, double dt,
                                         FieldOutputOptions options)
    : path_(std::move(path)), lattice_(lattice), dt_(dt), options_(std::move(options)),
      uncaught_(std::uncaught_exceptions()) {
  const std::string who = "FieldSnapshotWriter(" + path_ + ")";
  SPIRE_CHECK(std::isfinite(dt) && dt > 0, ValueError, who, ": dt must be finite and > 0, got ", dt);
  if (options_.components.empty()) options_.components = lattice.components();
  for (Component c : options_.components)
    SPIRE_CHECK(lattice.has(c), ValueError, who, ": the ", to_string(lattice.dimensions()), " lattice has no ",
                to_string(c), " component");
  open_part();  // the first part opens now, so that an unwritable path fails here
}

std::string FieldSnapshotWriter::part_path(size_t k) const {
  if (k == 0) return path_;
  std::filesystem::path p(path_);
  const std::string ext = p.extension().string();
  if (ext == ".h5" || ext == ".hdf5") return p.replace_extension("." + std::to_string(k) + ext).string();
  return path_ + "." + std::to_string(k);
}

void FieldSnapshotWriter::open_part() {
  const std::string part = part_path(finished_.size());
  const std::string who = "FieldSnapshotWriter(" + part + ")";
  tmp_ = part + ".tmp-" + std::to_string(::getpid());
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  const hid_t f = H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  SPIRE_CHECK(f >= 0, IOError, who, ": cannot create the file ", tmp_);
  file_ = f;
  try {
    h5::write_format(f, kFormat, kFormatVersion, who);
    h5::write_provenance(f, options_.provenance, who);
    data::write_attribute(f, "dimensions", to_string(lattice_.dimensions()), who);
    data::write_attribute(f, "resolution", lattice_.resolution(), who);
    data::write_attribute(f, "dt", dt_, who);
    data::write_attribute(f, "part", int64_t(finished_.size()), who);
    const Vec3 size = lattice_.size();
    for (int a = 0; a < 3; ++a) {
      data::write_attribute(f, (std::string("size_") + kAxis[a]).c_str(), size[a], who);
      data::write_attribute(f, (std::string("n_") + kAxis[a]).c_str(), lattice_.n(a), who);
    }
    data::write_attribute(f, "layout",
                          std::string("fields/<component>/<step>: x fastest ([n_z][n_y][n_x]; 2D [n_y][n_x]; 1D "
                                      "[n_z][1][1]) on the component's own coordinates/<component>/x,y,z"),
                          who);
    for (Component c : options_.components)
      for (int a = 0; a < 3; ++a)
        data::write_doubles(f, "coordinates/" + to_string(c) + "/" + kAxis[a], coordinates(lattice_, c, a), who);
  } catch (...) {
    discard();
    throw;
  }
}

FieldSnapshotWriter::~FieldSnapshotWriter() {
  if (file_ < 0) return;
  if (std::uncaught_exceptions() > uncaught_) {
    discard();  // unwinding: the file is not whole
    return;
  }
  try {
    close();
  } catch (...) {
    discard();
  }
}

void FieldSnapshotWriter::discard() {
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  if (file_ >= 0) H5Fclose(hid_t(file_));
  file_ = -1;
  std::error_code ec;
  std::filesystem::remove(tmp_, ec);
}

int64_t FieldSnapshotWriter::snapshots() const {
  int64_t n = int64_t(times_.size());
  for (const Part& p : finished_) n += int64_t(p.times.size());
  return n;
}

std::vector<std::string> FieldSnapshotWriter::parts() const {
  std::vector<std::string> out;
  for (size_t k = 0; k < finished_.size(); ++k) out.push_back(part_path(k));
  return out;
}

template <class Real>
void FieldSnapshotWriter::write(const FieldArrays<Real>& fields, double t, int64_t step) {
  const std::string who = "FieldSnapshotWriter(" + path_ + ")";
  SPIRE_CHECK(!closed_, IOError, who, ": the file is closed");
  int64_t last = -1;
  bool any = !steps_.empty();
  if (any) last = steps_.back();
  for (auto p = finished_.rbegin(); !any && p != finished_.rend(); ++p)
    if (!p->steps.empty()) any = true, last = p->steps.back();
  SPIRE_CHECK(!any || step > last, ValueError, who, ": snapshot steps must increase; got ", step, " after ", last);
  SPIRE_CHECK(std::isfinite(t), ValueError, who, ": the time must be finite, got ", t);
  if (file_ < 0) open_part();  // the continuation part after a commit()
  const int64_t nx = lattice_.n(0), ny = lattice_.n(1), nz = lattice_.n(2);
  std::vector<double> buffer(size_t(lattice_.samples()));
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  for (Component c : options_.components) {
    const Real* src = fields.real[size_t(int(c))];
    SPIRE_CHECK(src != nullptr, ValueError, who, ": the step's fields have no ", to_string(c), " array");
    // z-fastest (yee.h) to x-fastest (XDMF/VTK).
    for (int64_t i = 0; i < nx; ++i)
      for (int64_t j = 0; j < ny; ++j)
        for (int64_t k = 0; k < nz; ++k) buffer[size_t((k * ny + j) * nx + i)] = double(src[(i * ny + j) * nz + k]);
    const std::string name = "fields/" + to_string(c) + "/" + step_name(step);
    Hdf5Id ds = write_field(hid_t(file_), name, file_shape(lattice_), buffer.data(), options_.single_precision, who);
    data::write_attribute(ds, "time", component_time(c, t, dt_), who);
    data::write_attribute(ds, "step", step, who);
  }
  times_.push_back(t);
  steps_.push_back(step);
}
template void FieldSnapshotWriter::write<float>(const FieldArrays<float>&, double, int64_t);
template void FieldSnapshotWriter::write<double>(const FieldArrays<double>&, double, int64_t);

std::string FieldSnapshotWriter::xdmf_path() const { return xdmf_path_for(path_); }

void FieldSnapshotWriter::finish_part() {
  const std::string part = part_path(finished_.size());
  const std::string who = "FieldSnapshotWriter(" + part + ")";
  {
    std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
    data::QuietHdf5Errors quiet;
    data::write_doubles(hid_t(file_), "time", times_, who);
    data::write_int64s(hid_t(file_), "step", steps_, who);
    data::write_attribute(hid_t(file_), "snapshots", int64_t(times_.size()), who);
    SPIRE_CHECK(H5Fflush(hid_t(file_), H5F_SCOPE_GLOBAL) >= 0, IOError, who, ": cannot flush ", tmp_);
    const herr_t closed = H5Fclose(hid_t(file_));
    file_ = -1;
    SPIRE_CHECK(closed >= 0, IOError, who, ": cannot close ", tmp_);
  }
  std::error_code ec;
  std::filesystem::rename(tmp_, part, ec);
  if (ec) {
    std::filesystem::remove(tmp_, ec);
    throw IOError(detail::cat(who, ": cannot rename '", tmp_, "' to '", part, "'"));
  }
  finished_.push_back({std::move(times_), std::move(steps_)});
  times_.clear();
  steps_.clear();
}

void FieldSnapshotWriter::close() {
  if (closed_) return;
  if (file_ >= 0) {
    finish_part();
    write_sidecar();
  }
  closed_ = true;
}

void FieldSnapshotWriter::commit() {
  if (closed_ || file_ < 0 || times_.empty()) return;
  finish_part();
  write_sidecar();
}

void FieldSnapshotWriter::write_sidecar() const {
  // One temporal collection per component, over the snapshots of every part.
  const std::string who = "FieldSnapshotWriter(" + path_ + ")";
  const std::vector<hsize_t> shape = file_shape(lattice_);
  const bool planar = shape.size() == 2;
  const char* precision = options_.single_precision ? "4" : "8";
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<Xdmf Version=\"3.0\">\n  <Domain>\n";
  for (Component c : options_.components) {
    const std::string name = to_string(c);
    x << "    <Grid Name=\"" << name << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (size_t k = 0; k < finished_.size(); ++k) {
      const std::string h5 = std::filesystem::path(part_path(k)).filename().string();
      const Part& part = finished_[k];
      for (size_t s = 0; s < part.times.size(); ++s) {
        x << "      <Grid Name=\"" << name << "_" << step_name(part.steps[s]) << "\" GridType=\"Uniform\">\n"
          << "        <Time Value=\"" << part.times[s] << "\"/>\n"
          << "        <Topology TopologyType=\"" << (planar ? "2DRectMesh" : "3DRectMesh") << "\" Dimensions=\""
          << dims_text(shape) << "\"/>\n"
          << "        <Geometry GeometryType=\"" << (planar ? "VXVY" : "VXVYVZ") << "\">\n";
        for (int a = 0; a < (planar ? 2 : 3); ++a)
          x << "          <DataItem Dimensions=\"" << lattice_.n(a) << "\" NumberType=\"Float\" Precision=\"8\" "
            << "Format=\"HDF\">" << h5 << ":/coordinates/" << name << "/" << kAxis[a] << "</DataItem>\n";
        x << "        </Geometry>\n"
          << "        <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
          << "          <DataItem Dimensions=\"" << dims_text(shape) << "\" NumberType=\"Float\" Precision=\""
          << precision << "\" Format=\"HDF\">" << h5 << ":/fields/" << name << "/" << step_name(part.steps[s])
          << "</DataItem>\n        </Attribute>\n      </Grid>\n";
      }
    }
    x << "    </Grid>\n";
  }
  x << "  </Domain>\n</Xdmf>\n";
  const std::string text = x.str();
  data::write_atomically(xdmf_path(), who, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    SPIRE_CHECK(out.good(), IOError, who, ": cannot write ", tmp);
  });
}

void FieldSnapshotWriter::save_state(SimulationState& out, const std::string& prefix) const {
  SPIRE_CHECK(times_.empty(), ValueError, "FieldSnapshotWriter(", path_, ")::save_state: ", times_.size(),
              " snapshots are in a part no commit() has finished; commit() before saving");
  out.push_back({prefix + "/parts", {double(finished_.size())}});
  for (size_t k = 0; k < finished_.size(); ++k) {
    const std::string p = prefix + "/part" + std::to_string(k);
    out.push_back({p + "/time", finished_[k].times});
    out.push_back({p + "/step", std::vector<double>(finished_[k].steps.begin(), finished_[k].steps.end())});
  }
}

void FieldSnapshotWriter::load_state(const SimulationState& in, const std::string& prefix) {
  const std::string who = "FieldSnapshotWriter(" + path_ + ")::load_state";
  SPIRE_CHECK(snapshots() == 0 && !closed_, ValueError, who, ": only into a writer that has written nothing (",
              snapshots(), " snapshots written", closed_ ? ", closed" : "", ")");
  const double parts = find_state(in, prefix + "/parts", 1).values[0];
  SPIRE_CHECK(parts >= 0 && parts == std::floor(parts), ValueError, who, ": bad part count ", parts);
  std::vector<Part> loaded;
  for (int64_t k = 0; k < int64_t(parts); ++k) {
    const std::string p = prefix + "/part" + std::to_string(k);
    Part part;
    part.times = find_state(in, p + "/time").values;
    const std::vector<double>& steps = find_state(in, p + "/step", int64_t(part.times.size())).values;
    part.steps.assign(steps.begin(), steps.end());
    SPIRE_CHECK(std::filesystem::exists(part_path(size_t(k))), IOError, who, ": the snapshot file ",
                part_path(size_t(k)), " that the saved state lists is missing");
    loaded.push_back(std::move(part));
  }
  discard();  // the empty first part opened by the constructor
  finished_ = std::move(loaded);
}

FieldSnapshot read_field_snapshot(const std::string& path, Component c, int64_t step) {
  const std::string who = "read_field_snapshot(" + path + ")";
  const data::Hdf5Input file(path, who);
  data::check_format(file, kFormat, kFormatVersion, std::string("a ") + kFormat + " file", who);
  FieldSnapshot out;
  for (int a = 0; a < 3; ++a) {
    const auto n = data::read_int64_attribute(file, (std::string("n_") + kAxis[a]).c_str());
    SPIRE_CHECK(n && *n >= 1, IOError, who, ": the attribute n_", kAxis[a], " is missing");
    out.shape[size_t(a)] = *n;
  }
  const std::string name = "fields/" + to_string(c) + "/" + step_name(step);
  SPIRE_CHECK(data::link_exists(file, name), IOError, who, ": no snapshot ", name);
  std::vector<hsize_t> dims;
  const std::vector<double> buffer = data::read_doubles(file, name, dims, who);
  const int64_t nx = out.shape[0], ny = out.shape[1], nz = out.shape[2];
  SPIRE_CHECK(buffer.size() == size_t(nx * ny * nz), IOError, who, ": ", name, " has ", buffer.size(),
              " values for a lattice of ", nx * ny * nz);
  out.values.resize(buffer.size());
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) out.values[size_t((i * ny + j) * nz + k)] = buffer[size_t((k * ny + j) * nx + i)];
  const Hdf5Id ds = data::open_object(file, name, who);
  out.time = data::read_double_attribute(ds, "time").value_or(0);
  out.step = data::read_int64_attribute(ds, "step").value_or(step);
  return out;
}

// ---- Flux data ------------------------------------------------------------------------------------

namespace {
constexpr const char* kFluxFormat = "spire.elec.flux_data";
constexpr int64_t kFluxFormatVersion = 1;
}  // namespace

void write_flux_data(const std::string& path, const FluxData& fd, const Provenance& provenance) {
  const std::string who = "write_flux_data(" + path + ")";
  data::write_hdf5_file(path, who, [&](hid_t file) {
    h5::write_format(file, kFluxFormat, kFluxFormatVersion, who);
    h5::write_provenance(file, provenance, who);
    data::write_attribute(file, "arrays", int64_t(fd.arrays.size()), who);
    data::write_doubles(file, "frequencies", fd.frequencies, who);
    // [n][2] (re, im) pairs: std::complex<double> arrays are laid out so.
    for (size_t i = 0; i < fd.arrays.size(); ++i)
      data::write_doubles(file, "arrays/" + std::to_string(i), {hsize_t(fd.arrays[i].size()), 2},
                          reinterpret_cast<const double*>(fd.arrays[i].data()), who);
  });
}

FluxData read_flux_data(const std::string& path) {
  const std::string who = "read_flux_data(" + path + ")";
  const data::Hdf5Input file(path, who);
  data::check_format(file, kFluxFormat, kFluxFormatVersion, std::string("a ") + kFluxFormat + " file", who);
  const auto count = data::read_int64_attribute(file, "arrays");
  SPIRE_CHECK(count && *count >= 0, IOError, who, ": the attribute 'arrays' is missing");
  FluxData out;
  std::vector<hsize_t> dims;
  out.frequencies = data::read_doubles(file, "frequencies", dims, who);
  SPIRE_CHECK(data::link_exists(file, "arrays") || *count == 0, IOError, who, ": no group arrays");
  for (int64_t i = 0; i < *count; ++i) {
    const std::vector<double> pairs = data::read_doubles(file, "arrays/" + std::to_string(i), dims, who);
    SPIRE_CHECK(dims.size() == 2 && dims[1] == 2, IOError, who, ": arrays/", i, " is not an [n][2] array");
    std::vector<std::complex<double>> a(pairs.size() / 2);
    for (size_t p = 0; p < a.size(); ++p) a[p] = {pairs[2 * p], pairs[2 * p + 1]};
    out.arrays.push_back(std::move(a));
  }
  return out;
}

// ---- Point time series ---------------------------------------------------------------------------

PointTimeSeries::PointTimeSeries(const YeeLattice& lattice, Vec3 point, std::vector<Component> components, double dt)
    : point_(point), dt_(dt), components_(std::move(components)), dims_(to_string(lattice.dimensions())) {
  const char* who = "PointTimeSeries";
  SPIRE_CHECK(std::isfinite(dt) && dt > 0, ValueError, who, ": dt must be finite and > 0, got ", dt);
  if (components_.empty()) components_ = lattice.components();
  for (Component c : components_) {
    SPIRE_CHECK(lattice.has(c), ValueError, who, ": the ", dims_, " lattice has no ", to_string(c), " component");
    taps_.push_back(point_taps(lattice, c, point, who));
  }
  re_.resize(components_.size());
  im_.resize(components_.size());
}

template <class Real>
void PointTimeSeries::update(const FieldArrays<Real>& fields, double t) {
  for (size_t q = 0; q < components_.size(); ++q) {
    const int c = int(components_[q]);
    const Real* re = fields.real[size_t(c)];
    const Real* im = fields.imag[size_t(c)];
    SPIRE_CHECK(re != nullptr, ValueError, "PointTimeSeries::update: the step's fields have no ",
                to_string(components_[q]), " array");
    double vr = 0, vi = 0;
    for (const auto& [idx, w] : taps_[q]) {
      vr += w * double(re[idx]);
      if (im) vi += w * double(im[idx]);
    }
    if (im) complex_ = true;
    re_[q].push_back(vr);
    im_[q].push_back(vi);
  }
  times_.push_back(t);
}
template void PointTimeSeries::update<float>(const FieldArrays<float>&, double);
template void PointTimeSeries::update<double>(const FieldArrays<double>&, double);

size_t PointTimeSeries::slot(Component c, const char* who) const {
  for (size_t q = 0; q < components_.size(); ++q)
    if (components_[q] == c) return q;
  throw ValueError(detail::cat(who, ": the series does not record ", to_string(c)));
}
const std::vector<double>& PointTimeSeries::values(Component c) const {
  return re_[slot(c, "PointTimeSeries::values")];
}
const std::vector<double>& PointTimeSeries::imag_values(Component c) const {
  return im_[slot(c, "PointTimeSeries::imag_values")];
}

void PointTimeSeries::write(const std::string& path, const Provenance& provenance) const {
  const std::string who = "PointTimeSeries::write(" + path + ")";
  data::write_hdf5_file(path, who, [&](hid_t file) {
    h5::write_format(file, "spire.elec.point_series", 1, who);
    h5::write_provenance(file, provenance, who);
    data::write_attribute(file, "dimensions", dims_, who);
    data::write_attribute(file, "dt", dt_, who);
    for (int a = 0; a < 3; ++a) data::write_attribute(file, (std::string("point_") + kAxis[a]).c_str(), point_[a], who);
    data::write_doubles(file, "time", times_, who);
    for (size_t q = 0; q < components_.size(); ++q) {
      const std::string name = to_string(components_[q]);
      Hdf5Id ds = data::write_doubles(file, name, re_[q], who);
      data::write_attribute(ds, "time_offset", component_time(components_[q], 0.0, dt_), who);
      if (complex_) data::write_doubles(file, name + "_imag", im_[q], who);
    }
  });
}

void PointTimeSeries::save_state(SimulationState& out, const std::string& prefix) const {
  out.push_back({prefix + "/time", times_});
  for (size_t q = 0; q < components_.size(); ++q) {
    out.push_back({prefix + "/" + to_string(components_[q]) + "/re", re_[q]});
    out.push_back({prefix + "/" + to_string(components_[q]) + "/im", im_[q]});
  }
  out.push_back({prefix + "/complex", {complex_ ? 1.0 : 0.0}});
}

void PointTimeSeries::load_state(const SimulationState& in, const std::string& prefix) {
  times_ = find_state(in, prefix + "/time").values;
  const int64_t n = int64_t(times_.size());
  for (size_t q = 0; q < components_.size(); ++q) {
    re_[q] = find_state(in, prefix + "/" + to_string(components_[q]) + "/re", n).values;
    im_[q] = find_state(in, prefix + "/" + to_string(components_[q]) + "/im", n).values;
  }
  complex_ = find_state(in, prefix + "/complex", 1).values[0] != 0;
}

}  // namespace spire::elec
