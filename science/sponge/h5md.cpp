// The H5MD 1.1 trajectory writer (h5md.h).
#include "science/sponge/h5md.h"

#include <sstream>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>

#include "engine/core/error.h"
#include "engine/data/hdf5_lock.h"
#include "science/sponge/hdf5_io.h"


namespace spire::sponge {
namespace {

using data::Hdf5Id;

// Unit strings in H5MD's notation (space-separated factors with signed powers), md units only.
struct H5mdUnits {
  bool known = false;
  std::string length, time, velocity, force, energy, temperature, pressure, volume, mass, charge;
};

H5mdUnits h5md_units(const Units& u) {
  H5mdUnits h;
  if (u.name != "md") return h;  // reduced units: H5MD elements without a unit attribute
  h.known = true;
  h.length = "nm", h.time = "ps", h.velocity = "nm ps-1", h.force = "kJ mol-1 nm-1", h.energy = "kJ mol-1";
  h.temperature = "K", h.pressure = "bar", h.volume = "nm3", h.mass = "u", h.charge = "e";
  return h;
}

std::string default_author() {
  for (const char* var : {"USER", "LOGNAME"})
    if (const char* v = std::getenv(var); v && *v) return v;
  return "unknown";
}

// A time-dependent element: its group path, the shape of one frame's value and its unit.
struct Element {
  std::string path;
  std::vector<hsize_t> frame;
  std::string unit;
  bool particle_data = false;  // position/velocity/force: float32 when asked
};

hsize_t frame_size(const std::vector<hsize_t>& dims) {
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  return n;
}

// An extendable, chunked dataset [0][frame...]: whole frames per chunk, about 64 KiB of them (at
// most 1024 frames: a short run of a small system stays a small file).
void create_series(hid_t file, const std::string& path, const std::vector<hsize_t>& frame, hid_t file_type,
                   const std::string& who) {
  std::vector<hsize_t> dims = {0}, max = {H5S_UNLIMITED}, chunk;
  dims.insert(dims.end(), frame.begin(), frame.end());
  max.insert(max.end(), frame.begin(), frame.end());
  const hsize_t per_frame = std::max<hsize_t>(frame_size(frame), 1);
  chunk.push_back(std::clamp<hsize_t>(8192 / per_frame, 1, 1024));
  chunk.insert(chunk.end(), frame.begin(), frame.end());
  Hdf5Id space(H5Screate_simple(int(dims.size()), dims.data(), max.data()), H5Sclose);
  Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_chunk(dcpl, int(chunk.size()), chunk.data());
  Hdf5Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl, 1);
  Hdf5Id ds(H5Dcreate2(file, path.c_str(), file_type, space, lcpl, dcpl, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": cannot create the dataset ", path);
}

// Writes one frame at index `at`, growing the dataset to at + 1 frames.
void put_frame(hid_t file, const std::string& path, hsize_t at, hid_t mem_type, const void* data,
               const std::string& who) {
  Hdf5Id ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": no dataset ", path);
  Hdf5Id old_space(H5Dget_space(ds), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(old_space);
  std::vector<hsize_t> dims(size_t(std::max(rank, 1)));
  H5Sget_simple_extent_dims(old_space, dims.data(), nullptr);
  dims[0] = at + 1;
  SPIRE_CHECK(H5Dset_extent(ds, dims.data()) >= 0, IOError, who, ": cannot extend ", path);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  std::vector<hsize_t> start(dims.size(), 0), count = dims;
  start[0] = at, count[0] = 1;
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  Hdf5Id mem(H5Screate_simple(int(count.size()), count.data(), nullptr), H5Sclose);
  SPIRE_CHECK(H5Dwrite(ds, mem_type, mem, space, H5P_DEFAULT, data) >= 0, IOError, who, ": cannot write frame ", at,
              " of ", path);
}

hsize_t extent(hid_t file, const std::string& path, const std::string& who) {
  Hdf5Id ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, who, ": no dataset ", path);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  hsize_t dims[8] = {0};
  SPIRE_CHECK(H5Sget_simple_extent_ndims(space) >= 1 && H5Sget_simple_extent_ndims(space) <= 8, IOError, who,
              ": ", path, " is not a time series");
  H5Sget_simple_extent_dims(space, dims, nullptr);
  return dims[0];
}

void set_frames(hid_t file, const std::string& path, hsize_t frames, const std::string& who) {
  Hdf5Id ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  hsize_t dims[8] = {0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  dims[0] = frames;
  SPIRE_CHECK(H5Dset_extent(ds, dims) >= 0, IOError, who, ": cannot truncate ", path);
}

// H5MD's units module asks for a fixed-length string; MDAnalysis (2.x) looks the attribute up as a
// Python str, which h5py returns only for variable-length strings (fixed-length ones come back as
// bytes and are refused). Variable-length ASCII is what every reader tried reads.
void write_unit(hid_t file, const std::string& path, const std::string& unit, const std::string& who) {
  if (unit.empty()) return;
  Hdf5Id ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  h5::write_variable_ascii(ds, "unit", unit, who);
}

void write_text_dataset(hid_t loc, const std::string& path, const std::string& text, const std::string& who) {
  Hdf5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id ds(H5Dcreate2(loc, path.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  const char* p = text.c_str();
  SPIRE_CHECK(ds.id >= 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p) >= 0, IOError, who,
              ": cannot write ", path);
}

std::vector<double> flatten(const std::vector<Vec3>& v) {
  std::vector<double> out(3 * v.size());
  for (size_t i = 0; i < v.size(); ++i) out[3 * i] = v[i].x, out[3 * i + 1] = v[i].y, out[3 * i + 2] = v[i].z;
  return out;
}

// The elements in file order, the first holding the shared step and time.
std::vector<Element> elements(const H5mdOptions& o, const H5mdUnits& u, int64_t n, bool periodic, bool triclinic,
                              bool conserved, const std::vector<std::string>& terms) {
  const std::string p = "particles/" + o.group;
  const hsize_t N = hsize_t(n);
  std::vector<Element> e;
  if (o.position) e.push_back({p + "/position", {N, 3}, u.length, true});
  if (o.velocity) e.push_back({p + "/velocity", {N, 3}, u.velocity, true});
  if (o.force) e.push_back({p + "/force", {N, 3}, u.force, true});
  if (periodic) e.push_back({p + "/box/edges", triclinic ? std::vector<hsize_t>{3, 3} : std::vector<hsize_t>{3},
                             u.length, false});
  if (o.observables) {
    e.push_back({"observables/potential_energy", {}, u.energy, false});
    e.push_back({"observables/kinetic_energy", {}, u.energy, false});
    e.push_back({"observables/total_energy", {}, u.energy, false});
    if (conserved) e.push_back({"observables/conserved_energy", {}, u.energy, false});
    e.push_back({"observables/temperature", {}, u.temperature, false});
    if (periodic) {
      e.push_back({"observables/pressure", {}, u.pressure, false});
      e.push_back({"observables/pressure_tensor", {3, 3}, u.pressure, false});
      e.push_back({"observables/volume", {}, u.volume, false});
    }
    for (const std::string& t : terms) e.push_back({"observables/energies/" + t, {}, u.energy, false});
  }
  return e;
}

}  // namespace

H5mdWriter::H5mdWriter(H5mdOptions options) : options_(std::move(options)) {
  SPIRE_CHECK(!options_.path.empty(), ValueError, "h5md: empty path");
  SPIRE_CHECK(!options_.group.empty() && options_.group.find('/') == std::string::npos, ValueError,
              "h5md: particle group '", options_.group, "' must be a non-empty name without '/'");
  SPIRE_CHECK(options_.position || options_.velocity || options_.force || options_.observables, ValueError,
              "h5md ", options_.path, ": nothing to write; select position, velocity, force or observables");
  if (options_.author.empty()) options_.author = default_author();
}

H5mdWriter::~H5mdWriter() {
  try {
    close();
  } catch (...) {
    // A destructor cannot report; the file keeps complete = 0, which says what happened.
  }
}

void H5mdWriter::create(const System& system, const State& state, const ForceResult& forces,
                        const Observables& obs) {
  const std::string who = name();
  const H5mdUnits u = h5md_units(system.units);
  particles_ = system.size();
  periodic_ = state.box.periodic();
  triclinic_ = periodic_ && !state.box.orthorhombic();
  conserved_ = std::isfinite(obs.conserved_energy);
  terms_.clear();
  for (const auto& [term, e] : forces.energies) terms_.push_back(term);
  SPIRE_CHECK(particles_ >= 1 || !(options_.position || options_.velocity || options_.force), ValueError, who,
              ": a system without particles has no positions to write");

  Hdf5Id file(H5Fcreate(options_.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot create the file");
  data::write_attribute(file, "complete", int64_t(0), who);

  Hdf5Id h5md = data::create_group(file, "h5md", who);
  data::write_attribute(h5md, "version", std::vector<int32_t>{1, 1}, who);
  Hdf5Id author = data::create_group(h5md, "author", who);
  h5::write_fixed_string(author, "name", options_.author, who);
  if (!options_.author_email.empty()) h5::write_fixed_string(author, "email", options_.author_email, who);
  Hdf5Id creator = data::create_group(h5md, "creator", who);
  h5::write_fixed_string(creator, "name", "Spire", who);
  h5::write_fixed_string(creator, "version", SPIRE_VERSION, who);
  if (u.known) {
    Hdf5Id units = data::create_group(h5md, "modules/units", who);
    data::write_attribute(units, "version", std::vector<int32_t>{1, 0}, who);
    h5::write_fixed_string(units, "system", "SI", who);
  }

  const std::string p = "particles/" + options_.group;
  Hdf5Id box = data::create_group(file, p + "/box", who);
  {  // dimension: a scalar Integer attribute
    const int32_t three = 3;
    Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
    Hdf5Id attr(H5Acreate2(box, "dimension", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    SPIRE_CHECK(attr.id >= 0 && H5Awrite(attr, H5T_NATIVE_INT32, &three) >= 0, IOError, who,
                ": cannot write box/dimension");
  }
  const std::string boundary = periodic_ ? "periodic" : "none";
  h5::write_fixed_strings(box, "boundary", {boundary, boundary, boundary}, who);

  const std::vector<Element> es = elements(options_, u, particles_, periodic_, triclinic_, conserved_, terms_);
  const hid_t particle_type = options_.float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  for (size_t k = 0; k < es.size(); ++k) {
    const Element& e = es[k];
    create_series(file, e.path + "/value", e.frame, e.particle_data ? particle_type : H5T_IEEE_F64LE, who);
    write_unit(file, e.path + "/value", e.unit, who);
    if (k == 0) {
      create_series(file, e.path + "/step", {}, H5T_STD_I64LE, who);
      create_series(file, e.path + "/time", {}, H5T_IEEE_F64LE, who);
      write_unit(file, e.path + "/time", u.time, who);
    } else {
      for (const char* s : {"/step", "/time"})
        SPIRE_CHECK(H5Lcreate_hard(file, (es[0].path + s).c_str(), file, (e.path + s).c_str(), H5P_DEFAULT,
                                   H5P_DEFAULT) >= 0,
                    IOError, who, ": cannot link ", e.path, s);
    }
  }

  std::vector<int32_t> species(system.type.begin(), system.type.end());
  data::write_dataset(file, p + "/species", H5T_STD_I32LE, H5T_NATIVE_INT32, {hsize_t(species.size())},
                      species.data(), who);
  data::write_doubles(file, p + "/mass", {hsize_t(system.mass.size())}, system.mass.data(), who);
  write_unit(file, p + "/mass", u.mass, who);
  data::write_doubles(file, p + "/charge", {hsize_t(system.charge.size())}, system.charge.data(), who);
  write_unit(file, p + "/charge", u.charge, who);

  Hdf5Id params = data::create_group(file, "parameters", who);
  h5::write_fixed_string(params, "units", system.units.name, who);
  if (!options_.job_toml.empty()) write_text_dataset(params, "job", options_.job_toml, who);

  SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, who, ": cannot flush");
  file_ = file.id;
  file.id = -1;  // kept open
  frames_ = 0;
  created_ = true;
}

void H5mdWriter::reopen(const System& system, const State& state, const ForceResult& forces,
                        const Observables& obs, int64_t keep_through_step) {
  const std::string who = name();
  Hdf5Id file(H5Fopen(options_.path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file.id >= 0, IOError, who, ": cannot open the file to append to it (is another program holding it?)");
  SPIRE_CHECK(data::link_exists(file, "h5md") && data::link_exists(file, "particles/" + options_.group + "/box"),
              IOError, who, ": not an H5MD file with particles/", options_.group, "; cannot append to it");
  particles_ = system.size();
  periodic_ = state.box.periodic();
  conserved_ = std::isfinite(obs.conserved_energy);
  std::vector<std::string> terms;
  for (const auto& [term, e] : forces.energies) terms.push_back(term);
  terms_ = terms;
  const std::string edges = "particles/" + options_.group + "/box/edges/value";
  triclinic_ = false;
  if (periodic_) {
    SPIRE_CHECK(data::link_exists(file, edges), IOError, who,
                ": the file has no box edges but this run's box is periodic");
    Hdf5Id ds(H5Dopen2(file, edges.c_str(), H5P_DEFAULT), H5Dclose);
    Hdf5Id space(H5Dget_space(ds), H5Sclose);
    triclinic_ = H5Sget_simple_extent_ndims(space) == 3;
  }
  const std::vector<Element> es = elements(options_, {}, particles_, periodic_, triclinic_, conserved_, terms_);
  SPIRE_CHECK(!es.empty(), IOError, who, ": nothing to append");
  hsize_t frames = std::numeric_limits<hsize_t>::max();
  for (const Element& e : es) {
    SPIRE_CHECK(data::link_exists(file, e.path + "/value"), IOError, who, ": the file has no ", e.path,
                " but this run writes it; cannot append");
    Hdf5Id ds(H5Dopen2(file, (e.path + "/value").c_str(), H5P_DEFAULT), H5Dclose);
    Hdf5Id space(H5Dget_space(ds), H5Sclose);
    std::vector<hsize_t> dims(size_t(std::max(H5Sget_simple_extent_ndims(space), 0)));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    auto shape = [](const std::vector<hsize_t>& d, size_t from) {
      std::ostringstream s;
      for (size_t k = from; k < d.size(); ++k) s << '[' << d[k] << ']';
      return from < d.size() ? s.str() : std::string("scalar");
    };
    SPIRE_CHECK(dims.size() == e.frame.size() + 1 && std::equal(e.frame.begin(), e.frame.end(), dims.begin() + 1),
                IOError, who, ": ", e.path, " holds frames of shape ", shape(dims, 1), " but this run writes ",
                shape(e.frame, 0), " (", particles_, " particles); cannot append");
    frames = std::min(frames, dims[0]);
  }
  const std::string clock = es[0].path;
  frames = std::min({frames, extent(file, clock + "/step", who), extent(file, clock + "/time", who)});
  // Frames after the restart step were written after the checkpoint: the run writes them again.
  std::vector<hsize_t> dims;
  const std::vector<int64_t> steps = data::read_int64s(file, clock + "/step", dims, who);
  hsize_t keep = 0;
  while (keep < frames && steps[keep] <= keep_through_step) ++keep;
  set_frames(file, clock + "/step", keep, who);
  set_frames(file, clock + "/time", keep, who);
  for (const Element& e : es) set_frames(file, e.path + "/value", keep, who);
  data::write_attribute(file, "complete", int64_t(0), who);
  SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, who, ": cannot flush");
  file_ = file.id;
  file.id = -1;
  frames_ = int64_t(keep);
  last_step_ = keep > 0 ? steps[keep - 1] : -1;
  created_ = true;
}

void H5mdWriter::write_frame(const System& system, const State& state, const ForceResult& forces,
                             const Observables& obs) {
  const std::string who = name();
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  if (file_ < 0) {
    if (created_ && std::filesystem::exists(options_.path))
      reopen(system, state, forces, obs, std::numeric_limits<int64_t>::max());
    else
      create(system, state, forces, obs);
  }
  SPIRE_CHECK(system.size() == particles_, ValueError, who, ": the file holds ", particles_,
              " particles; this frame has ", system.size());
  SPIRE_CHECK(state.box.periodic() == periodic_ && (!periodic_ || state.box.orthorhombic() || triclinic_), ValueError,
              who, ": the box changed kind (periodic, orthorhombic or triclinic) since the file was created");
  const hid_t file = hid_t(file_);
  const hsize_t at = hsize_t(frames_);
  const std::vector<Element> es = elements(options_, {}, particles_, periodic_, triclinic_, conserved_, terms_);
  const int64_t step = state.step;
  put_frame(file, es[0].path + "/step", at, H5T_NATIVE_INT64, &step, who);
  put_frame(file, es[0].path + "/time", at, H5T_NATIVE_DOUBLE, &state.time, who);
  const std::string p = "particles/" + options_.group;
  auto put = [&](const std::string& path, const double* data) {
    put_frame(file, path + "/value", at, H5T_NATIVE_DOUBLE, data, who);
  };
  if (options_.position) put(p + "/position", flatten(state.positions).data());
  if (options_.velocity) put(p + "/velocity", flatten(state.velocities).data());
  if (options_.force) put(p + "/force", flatten(forces.forces).data());
  if (periodic_) {
    const Box& b = state.box;
    if (triclinic_) {
      const std::vector<double> m = flatten({b.a(), b.b(), b.c()});
      put(p + "/box/edges", m.data());
    } else {
      const double d[3] = {b.a().x, b.b().y, b.c().z};
      put(p + "/box/edges", d);
    }
  }
  if (options_.observables) {
    put("observables/potential_energy", &obs.potential_energy);
    put("observables/kinetic_energy", &obs.kinetic_energy);
    const double total = obs.total_energy();
    put("observables/total_energy", &total);
    if (conserved_) put("observables/conserved_energy", &obs.conserved_energy);
    put("observables/temperature", &obs.temperature);
    if (periodic_) {
      put("observables/pressure", &obs.pressure);
      put("observables/pressure_tensor", obs.pressure_tensor.m.data());
      put("observables/volume", &obs.volume);
    }
    for (const std::string& t : terms_) {
      const double e = forces.energy_of(t);
      put("observables/energies/" + t, &e);
    }
  }
  SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0, IOError, who, ": cannot flush frame ", at);
  ++frames_;
  last_step_ = step;
}

void H5mdWriter::close() {
  if (file_ < 0) return;
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  Hdf5Id file(hid_t(file_), H5Fclose);
  file_ = -1;
  data::write_attribute(file, "complete", int64_t(1), name());
  SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, name(), ": cannot flush");
}

void H5mdWriter::report(const Simulation& sim) {
  write_frame(sim.system(), sim.state(), sim.forces(), sim.observables());
}

bool H5mdWriter::resume(const Simulation& sim, int64_t step) {
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  close();
  if (!std::filesystem::exists(options_.path)) {
    created_ = false;  // nothing to append to: the next frame creates the file
    return false;
  }
  reopen(sim.system(), sim.state(), sim.forces(), sim.observables(), step);
  return last_step_ == step;
}

void H5mdWriter::finish(const Simulation&) { close(); }

}  // namespace spire::sponge
