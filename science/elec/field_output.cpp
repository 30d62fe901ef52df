// HDF5 + XDMF field snapshots and point time series (field_output.h). Every HDF5 call holds
// data::hdf5_mutex(): Debian's HDF5 is the serial, non-thread-safe build.
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
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"

#ifndef SPIRE_VERSION
#define SPIRE_VERSION "unknown"  // the CMake build defines it; a bare compile says so
#endif

namespace spire::elec {

namespace {

using data::Hdf5Id;
constexpr const char* kFormat = "spire.elec.fields";
constexpr int64_t kFormatVersion = 1;
constexpr const char* kUnits = "normalised: lengths in a, time in a/c, frequencies in c/a; eps0 = mu0 = c = 1";
constexpr const char* kAxis[] = {"x", "y", "z"};

std::string step_name(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08lld", static_cast<long long>(step));
  return buf;
}

void attr_double(hid_t obj, const char* name, double v, const std::string& who) {
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id a(H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(a.id >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &v) >= 0, IOError, who, ": cannot write the attribute ", name);
}
void attr_int(hid_t obj, const char* name, int64_t v, const std::string& who) {
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id a(H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(a.id >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0, IOError, who, ": cannot write the attribute ", name);
}
void attr_uint(hid_t obj, const char* name, uint64_t v, const std::string& who) {
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id a(H5Acreate2(obj, name, H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(a.id >= 0 && H5Awrite(a, H5T_NATIVE_UINT64, &v) >= 0, IOError, who, ": cannot write the attribute ",
              name);
}
void attr_string(hid_t obj, const char* name, const std::string& v, const std::string& who) {
  SPIRE_CHECK(data::write_string_attribute(obj, name, v), IOError, who, ": cannot write the attribute ", name);
}

std::optional<double> read_attr_double(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Hdf5Id a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  double v = 0;
  if (a.id < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) return std::nullopt;
  return v;
}
std::optional<int64_t> read_attr_int(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return std::nullopt;
  Hdf5Id a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  int64_t v = 0;
  if (a.id < 0 || H5Aread(a, H5T_NATIVE_INT64, &v) < 0) return std::nullopt;
  return v;
}

// A whole dataset at `path` (parents created), from doubles, stored as float64 or float32. Returns
// the open dataset (for attributes): the caller owns it.
hid_t write_dataset(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims, const double* values,
                    bool single, const std::string& who) {
  Hdf5Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl, 1);
  Hdf5Id space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose);
  const hid_t ds = H5Dcreate2(loc, path.c_str(), single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT,
                              H5P_DEFAULT);
  SPIRE_CHECK(ds >= 0, IOError, who, ": cannot create the dataset ", path);
  if (H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
    H5Dclose(ds);
    throw IOError(detail::cat(who, ": cannot write the dataset ", path));
  }
  return ds;
}
void write_int_dataset(hid_t loc, const std::string& path, const std::vector<int64_t>& values, const std::string& who) {
  const hsize_t n = values.size();
  Hdf5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hdf5Id ds(H5Dcreate2(loc, path.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot create the dataset ", path);
  if (n > 0)
    SPIRE_CHECK(H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0, IOError, who,
                ": cannot write the dataset ", path);
}

void write_provenance(hid_t file, const Provenance& p, const std::string& who) {
  attr_string(file, "spire_version", SPIRE_VERSION, who);
  attr_string(file, "job", p.job, who);
  if (p.seed) attr_uint(file, "seed", *p.seed, who);
  attr_string(file, "units", kUnits, who);
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
    attr_string(f, "format", kFormat, who);
    attr_int(f, "format_version", kFormatVersion, who);
    write_provenance(f, options_.provenance, who);
    attr_string(f, "dimensions", to_string(lattice_.dimensions()), who);
    attr_double(f, "resolution", lattice_.resolution(), who);
    attr_double(f, "dt", dt_, who);
    attr_int(f, "part", int64_t(finished_.size()), who);
    const Vec3 size = lattice_.size();
    for (int a = 0; a < 3; ++a) {
      attr_double(f, (std::string("size_") + kAxis[a]).c_str(), size[a], who);
      attr_int(f, (std::string("n_") + kAxis[a]).c_str(), lattice_.n(a), who);
    }
    attr_string(f, "layout",
                "fields/<component>/<step>: x fastest ([n_z][n_y][n_x]; 2D [n_y][n_x]; 1D [n_z][1][1]) on the "
                "component's own coordinates/<component>/x,y,z",
                who);
    for (Component c : options_.components)
      for (int a = 0; a < 3; ++a) {
        const std::vector<double> x = coordinates(lattice_, c, a);
        H5Dclose(write_dataset(f, "coordinates/" + to_string(c) + "/" + kAxis[a], {hsize_t(x.size())}, x.data(),
                               false, who));
      }
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
    Hdf5Id ds(write_dataset(hid_t(file_), name, file_shape(lattice_), buffer.data(), options_.single_precision, who),
              H5Dclose);
    attr_double(ds, "time", component_time(c, t, dt_), who);
    attr_int(ds, "step", step, who);
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
    H5Dclose(write_dataset(hid_t(file_), "time", {hsize_t(times_.size())}, times_.data(), false, who));
    write_int_dataset(hid_t(file_), "step", steps_, who);
    attr_int(hid_t(file_), "snapshots", int64_t(times_.size()), who);
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
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot open the file");
  SPIRE_CHECK(data::read_string_attribute(file, "format").value_or("") == kFormat, IOError, who,
              ": not a ", kFormat, " file (no format attribute '", kFormat, "')");
  FieldSnapshot out;
  for (int a = 0; a < 3; ++a) {
    const auto n = read_attr_int(file, (std::string("n_") + kAxis[a]).c_str());
    SPIRE_CHECK(n && *n >= 1, IOError, who, ": the attribute n_", kAxis[a], " is missing");
    out.shape[size_t(a)] = *n;
  }
  const std::string name = "fields/" + to_string(c) + "/" + step_name(step);
  SPIRE_CHECK(H5Lexists(file, "fields", H5P_DEFAULT) > 0 &&
                  H5Lexists(file, ("fields/" + to_string(c)).c_str(), H5P_DEFAULT) > 0 &&
                  H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0,
              IOError, who, ": no snapshot ", name);
  Hdf5Id ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot open ", name);
  const int64_t nx = out.shape[0], ny = out.shape[1], nz = out.shape[2];
  std::vector<double> buffer(size_t(nx * ny * nz));
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  SPIRE_CHECK(H5Sget_simple_extent_npoints(space) == hssize_t(buffer.size()), IOError, who, ": ", name, " has ",
              H5Sget_simple_extent_npoints(space), " values for a lattice of ", buffer.size());
  SPIRE_CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) >= 0, IOError, who,
              ": cannot read ", name);
  out.values.resize(buffer.size());
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) out.values[size_t((i * ny + j) * nz + k)] = buffer[size_t((k * ny + j) * nx + i)];
  out.time = read_attr_double(ds, "time").value_or(0);
  out.step = read_attr_int(ds, "step").value_or(step);
  return out;
}

// ---- Flux data ------------------------------------------------------------------------------------

void write_flux_data(const std::string& path, const FluxData& fd, const Provenance& provenance) {
  const std::string who = "write_flux_data(" + path + ")";
  data::write_atomically(path, who, [&](const std::string& tmp) {
    std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
    data::QuietHdf5Errors quiet;
    Hdf5Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot create ", tmp);
    attr_string(file, "format", "spire.elec.flux_data", who);
    attr_int(file, "format_version", 1, who);
    write_provenance(file, provenance, who);
    attr_int(file, "arrays", int64_t(fd.arrays.size()), who);
    H5Dclose(write_dataset(file, "frequencies", {hsize_t(fd.frequencies.size())}, fd.frequencies.data(), false, who));
    for (size_t i = 0; i < fd.arrays.size(); ++i) {
      const auto& a = fd.arrays[i];
      std::vector<double> pairs(2 * a.size());
      for (size_t p = 0; p < a.size(); ++p) {
        pairs[2 * p] = a[p].real();
        pairs[2 * p + 1] = a[p].imag();
      }
      H5Dclose(write_dataset(file, "arrays/" + std::to_string(i), {hsize_t(a.size()), 2}, pairs.data(), false, who));
    }
    SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, who, ": cannot flush ", tmp);
  });
}

FluxData read_flux_data(const std::string& path) {
  const std::string who = "read_flux_data(" + path + ")";
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot open the file");
  SPIRE_CHECK(data::read_string_attribute(file, "format").value_or("") == "spire.elec.flux_data", IOError, who,
              ": not a spire.elec.flux_data file");
  const auto count = read_attr_int(file, "arrays");
  SPIRE_CHECK(count && *count >= 0, IOError, who, ": the attribute 'arrays' is missing");
  auto read = [&](const std::string& name, std::vector<hsize_t>& dims) {
    SPIRE_CHECK(H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0, IOError, who, ": no dataset ", name);
    Hdf5Id ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
    SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot open ", name);
    Hdf5Id space(H5Dget_space(ds), H5Sclose);
    dims.assign(size_t(std::max(0, H5Sget_simple_extent_ndims(space))), 0);
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    std::vector<double> v(size_t(std::max<hssize_t>(0, H5Sget_simple_extent_npoints(space))));
    if (!v.empty())
      SPIRE_CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, IOError, who,
                  ": cannot read ", name);
    return v;
  };
  FluxData out;
  std::vector<hsize_t> dims;
  out.frequencies = read("frequencies", dims);
  SPIRE_CHECK(H5Lexists(file, "arrays", H5P_DEFAULT) > 0 || *count == 0, IOError, who, ": no group arrays");
  for (int64_t i = 0; i < *count; ++i) {
    const std::vector<double> pairs = read("arrays/" + std::to_string(i), dims);
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
  const Vec3 size = lattice.size();
  const double dx = lattice.dx();
  for (Component c : components_) {
    SPIRE_CHECK(lattice.has(c), ValueError, who, ": the ", dims_, " lattice has no ", to_string(c), " component");
    // Per axis: the two neighbouring samples (wrapped, yee.h) and their weights.
    std::array<std::array<std::pair<int64_t, double>, 2>, 3> axis{};
    const Vec3 off = lattice.offset(c);
    for (int a = 0; a < 3; ++a) {
      if (!lattice.has_axis(a)) {
        axis[size_t(a)] = {std::pair<int64_t, double>{0, 1.0}, std::pair<int64_t, double>{0, 0.0}};
        continue;
      }
      const double half = size[a] / 2;
      SPIRE_CHECK(std::isfinite(point[a]) && point[a] >= -half - 1e-9 * dx && point[a] <= half + 1e-9 * dx, ValueError,
                  who, ": the point's ", kAxis[a], " = ", point[a], " is outside the cell [", -half, ", ", half, "]");
      const double s = (point[a] + half) / dx - off[a];
      double fl = std::floor(s), frac = s - fl;
      if (frac < 1e-9) frac = 0;
      if (frac > 1 - 1e-9) {
        fl += 1;
        frac = 0;
      }
      const int64_t n = lattice.n(a), i0 = ((int64_t(fl) % n) + n) % n;
      axis[size_t(a)] = {std::pair<int64_t, double>{i0, 1 - frac}, std::pair<int64_t, double>{(i0 + 1) % n, frac}};
    }
    std::vector<std::pair<int64_t, double>> taps;
    for (const auto& tx : axis[0])
      for (const auto& ty : axis[1])
        for (const auto& tz : axis[2]) {
          const double w = tx.second * ty.second * tz.second;
          if (w != 0) taps.emplace_back(lattice.index(tx.first, ty.first, tz.first), w);
        }
    taps_.push_back(std::move(taps));
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
  data::write_atomically(path, who, [&](const std::string& tmp) {
    std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
    data::QuietHdf5Errors quiet;
    Hdf5Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot create ", tmp);
    attr_string(file, "format", "spire.elec.point_series", who);
    attr_int(file, "format_version", 1, who);
    write_provenance(file, provenance, who);
    attr_string(file, "dimensions", dims_, who);
    attr_double(file, "dt", dt_, who);
    for (int a = 0; a < 3; ++a) attr_double(file, (std::string("point_") + kAxis[a]).c_str(), point_[a], who);
    H5Dclose(write_dataset(file, "time", {hsize_t(times_.size())}, times_.data(), false, who));
    for (size_t q = 0; q < components_.size(); ++q) {
      const std::string name = to_string(components_[q]);
      Hdf5Id ds(write_dataset(file, name, {hsize_t(re_[q].size())}, re_[q].data(), false, who), H5Dclose);
      attr_double(ds, "time_offset", component_time(components_[q], 0.0, dt_), who);
      if (complex_) H5Dclose(write_dataset(file, name + "_imag", {hsize_t(im_[q].size())}, im_[q].data(), false, who));
    }
    SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, who, ": cannot flush ", tmp);
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
