#include "engine/nn/checkpoint.h"

#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "engine/data/atomic_file.h"
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"
#include "engine/ops/device.h"
#include "engine/ops/shape.h"

namespace spire::nn {

namespace {

using Lock = std::lock_guard<std::recursive_mutex>;
constexpr const char* kFormat = "spire.checkpoint";
constexpr int64_t kVersion = 1;

using H = data::Hdf5Id;
using QuietErrors = data::QuietHdf5Errors;

// The in-file element type of a dtype (complex as its real type; bool as uint8).
hid_t file_type_of(DType t) {
  switch (t) {
    case DType::Bool: return H5T_NATIVE_UINT8;
    case DType::Int32: return H5T_NATIVE_INT32;
    case DType::Int64: return H5T_NATIVE_INT64;
    case DType::Float32: case DType::Complex64: return H5T_NATIVE_FLOAT;
    case DType::Float64: case DType::Complex128: return H5T_NATIVE_DOUBLE;
  }
  return H5T_NATIVE_DOUBLE;
}

void check_key(const std::string& key, const char* group) {
  SPIRE_CHECK(!key.empty() && key.find('/') == std::string::npos && key != "." , ValueError,
              "save_checkpoint: ", group, " key '", key, "' cannot name an HDF5 dataset (non-empty, without '/')");
}

void write_string_attr(hid_t obj, const char* name, const std::string& value) {
  SPIRE_CHECK(data::write_string_attribute(obj, name, value), IOError, "save_checkpoint: cannot write attribute '",
              name, "'");
}

void write_int_attr(hid_t obj, const char* name, int64_t value) {
  H space(H5Screate(H5S_SCALAR), H5Sclose);
  H attr(H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(attr >= 0, IOError, "save_checkpoint: cannot write attribute '", name, "'");
  H5Awrite(attr, H5T_NATIVE_INT64, &value);
}

bool has_attr(hid_t obj, const char* name) { return H5Aexists(obj, name) > 0; }

std::string read_string_attr(hid_t obj, const char* name, const std::string& where) {
  SPIRE_CHECK(has_attr(obj, name), IOError, "load_checkpoint: ", where, " has no attribute '", name, "'");
  std::optional<std::string> s = data::read_string_attribute(obj, name);
  SPIRE_CHECK(s, IOError, "load_checkpoint: attribute '", name, "' of ", where, " is not a string");
  return *s;
}

int64_t read_int_attr(hid_t obj, const char* name, const std::string& where) {
  SPIRE_CHECK(has_attr(obj, name), IOError, "load_checkpoint: ", where, " has no attribute '", name, "'");
  H attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  int64_t v = 0;
  SPIRE_CHECK(H5Aread(attr, H5T_NATIVE_INT64, &v) >= 0, IOError, "load_checkpoint: cannot read attribute '", name,
              "' of ", where);
  return v;
}

// A group whose links iterate in creation order (so state_dicts come back in their order).
hid_t create_group(hid_t parent, const char* name) {
  H gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  SPIRE_CHECK(g >= 0, IOError, "save_checkpoint: cannot create group '", name, "'");
  return g;
}

void write_tensor(hid_t group, const std::string& key, const Tensor& value) {
  SPIRE_CHECK(value.defined(), ValueError, "save_checkpoint: entry '", key, "' is an undefined tensor");
  Tensor t = contiguous(value.device() == kCPU ? value.detach() : to(value.detach(), kCPU));
  std::vector<hsize_t> dims(t.shape().begin(), t.shape().end());
  if (is_complex(t.dtype())) dims.push_back(2);
  H space(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose);
  hid_t type = file_type_of(t.dtype());
  H ds(H5Dcreate2(group, key.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds >= 0, IOError, "save_checkpoint: cannot create dataset '", key, "'");
  if (t.numel() > 0)
    SPIRE_CHECK(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data()) >= 0, IOError,
                "save_checkpoint: cannot write dataset '", key, "'");
  write_string_attr(ds, "kind", "tensor");
  write_string_attr(ds, "dtype", name(t.dtype()));
}

template <class T>
void write_scalar(hid_t group, const std::string& key, T value, hid_t file_type, hid_t mem_type, const char* kind) {
  H space(H5Screate(H5S_SCALAR), H5Sclose);
  H ds(H5Dcreate2(group, key.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds >= 0, IOError, "save_checkpoint: cannot create dataset '", key, "'");
  H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value);
  if (kind) write_string_attr(ds, "kind", kind);
}

void write_string(hid_t group, const std::string& key, const std::string& value) {
  H type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  H space(H5Screate(H5S_SCALAR), H5Sclose);
  H ds(H5Dcreate2(group, key.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds >= 0, IOError, "save_checkpoint: cannot create metadata dataset '", key, "'");
  const char* p = value.c_str();
  H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p);
}

// Dataset names of a group, in creation order when tracked (Spire's files), else by name.
std::vector<std::string> list_links(hid_t group) {
  H gcpl(H5Gget_create_plist(group), H5Pclose);
  unsigned flags = 0;
  H5Pget_link_creation_order(gcpl, &flags);
  H5_index_t index = (flags & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
  std::vector<std::string> names;
  H5Literate(group, index, H5_ITER_INC, nullptr,
              [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
                static_cast<std::vector<std::string>*>(out)->push_back(name);
                return 0;
              },
              &names);
  return names;
}

Tensor read_tensor(hid_t ds, const std::string& where) {
  DType dtype = dtype_from_name(read_string_attr(ds, "dtype", where));
  H space(H5Dget_space(ds), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(size_t(std::max(rank, 0)));
  if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  Shape shape(dims.begin(), dims.end());
  if (is_complex(dtype)) {
    SPIRE_CHECK(!shape.empty() && shape.back() == 2, IOError, "load_checkpoint: complex dataset ", where,
                " lacks its trailing axis of 2 (real, imaginary)");
    shape.pop_back();
  }
  Tensor t = empty(shape, dtype);
  if (t.numel() > 0)
    SPIRE_CHECK(H5Dread(ds, file_type_of(dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data()) >= 0, IOError,
                "load_checkpoint: cannot read ", where);
  return t;
}

template <class T>
T read_scalar(hid_t ds, hid_t mem_type, const std::string& where) {
  T v{};
  SPIRE_CHECK(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0, IOError, "load_checkpoint: cannot read ",
              where);
  return v;
}

std::string read_string(hid_t ds, const std::string& where) {
  H ftype(H5Dget_type(ds), H5Tclose);
  SPIRE_CHECK(H5Tget_class(ftype) == H5T_STRING, IOError, "load_checkpoint: ", where, " is not a string");
  if (H5Tis_variable_str(ftype) > 0) {
    H type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5Tget_cset(ftype));
    char* p = nullptr;
    SPIRE_CHECK(H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p) >= 0, IOError, "load_checkpoint: cannot read ",
                where);
    std::string s = p ? p : "";
    if (p) H5free_memory(p);
    return s;
  }
  std::string s(H5Tget_size(ftype), '\0');
  H5Dread(ds, ftype, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data());
  s.resize(std::strlen(s.c_str()));
  return s;
}

bool group_exists(hid_t file, const char* name) { return H5Lexists(file, name, H5P_DEFAULT) > 0; }

void write_optim(hid_t file, const char* group, const optim::StateDict& sd) {
  H g(create_group(file, group), H5Gclose);
  for (const auto& [k, v] : sd.items()) {
    check_key(k, group);
    if (auto* t = std::get_if<Tensor>(&v)) write_tensor(g, k, *t);
    else if (auto* x = std::get_if<double>(&v)) write_scalar(g, k, *x, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "float");
    else write_scalar(g, k, std::get<int64_t>(v), H5T_STD_I64LE, H5T_NATIVE_INT64, "int");
  }
}

optim::StateDict read_optim(hid_t file, const char* group, const std::string& path) {
  H g(H5Gopen2(file, group, H5P_DEFAULT), H5Gclose);
  optim::StateDict sd;
  for (const std::string& k : list_links(g)) {
    std::string where = detail::cat("'/", group, "/", k, "' in '", path, "'");
    H ds(H5Dopen2(g, k.c_str(), H5P_DEFAULT), H5Dclose);
    SPIRE_CHECK(ds >= 0, IOError, "load_checkpoint: ", where, " is not a dataset");
    std::string kind = read_string_attr(ds, "kind", where);
    if (kind == "tensor") sd.set(k, read_tensor(ds, where));
    else if (kind == "float") sd.set(k, read_scalar<double>(ds, H5T_NATIVE_DOUBLE, where));
    else if (kind == "int") sd.set(k, read_scalar<int64_t>(ds, H5T_NATIVE_INT64, where));
    else throw IOError(detail::cat("load_checkpoint: ", where, " has kind '", kind, "'; allowed: tensor, float, int"));
  }
  return sd;
}

void write_file(const std::string& tmp, const CheckpointData& data) {
  H file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file >= 0, IOError, "save_checkpoint: cannot create '", tmp, "'");
  write_string_attr(file, "format", kFormat);
  write_int_attr(file, "version", kVersion);
  write_int_attr(file, "epoch", data.epoch);
  write_int_attr(file, "step", data.step);
  if (data.model) {
    H g(create_group(file, "model"), H5Gclose);
    for (const auto& [k, v] : *data.model) {
      check_key(k, "model");
      write_tensor(g, k, v);
    }
  }
  if (data.optimizer) write_optim(file, "optimizer", *data.optimizer);
  if (data.scheduler) write_optim(file, "scheduler", *data.scheduler);
  {
    H g(create_group(file, "rng"), H5Gclose);
    for (const auto& [name, st] : data.rng) {
      check_key(name, "rng");
      H gg(create_group(g, name.c_str()), H5Gclose);
      write_scalar(gg, "seed", st.seed, H5T_STD_U64LE, H5T_NATIVE_UINT64, nullptr);
      write_scalar(gg, "stream", st.stream, H5T_STD_U64LE, H5T_NATIVE_UINT64, nullptr);
      write_scalar(gg, "offset", st.offset, H5T_STD_U64LE, H5T_NATIVE_UINT64, nullptr);
    }
  }
  {
    H g(create_group(file, "meta"), H5Gclose);
    for (const auto& [k, v] : data.metadata) {
      check_key(k, "meta");
      write_string(g, k, v);
    }
  }
  if (!data.state.empty()) {
    H g(create_group(file, "state"), H5Gclose);
    for (const auto& [name, sd] : data.state) {
      check_key(name, "state");
      write_optim(file, ("state/" + name).c_str(), sd);
    }
  }
  SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, "save_checkpoint: cannot flush '", tmp, "'");
}

}  // namespace

void write_checkpoint(const std::string& path, const CheckpointData& data) {
  data::write_atomically(path, "save_checkpoint", [&](const std::string& tmp) {
    Lock lock(data::hdf5_mutex());
    QuietErrors quiet;
    write_file(tmp, data);  // closed (and so whole) when it returns
  });
}

CheckpointData read_checkpoint(const std::string& path) {
  std::error_code ec;
  SPIRE_CHECK(std::filesystem::is_regular_file(path, ec), IOError, "load_checkpoint: no such file '", path, "'");
  Lock lock(data::hdf5_mutex());
  QuietErrors quiet;
  CheckpointData out;
  {
    htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
    SPIRE_CHECK(is_hdf5 > 0, IOError, "load_checkpoint: '", path, "' is not an HDF5 file (corrupt or truncated?)");
    H file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    SPIRE_CHECK(file >= 0, IOError, "load_checkpoint: cannot open '", path, "' (corrupt or truncated?)");
    std::string where = detail::cat("'", path, "'");
    SPIRE_CHECK(has_attr(file, "format") && read_string_attr(file, "format", where) == kFormat, IOError,
                "load_checkpoint: '", path, "' is an HDF5 file but not a Spire checkpoint (no format = '", kFormat,
                "' attribute)");
    int64_t version = read_int_attr(file, "version", where);
    SPIRE_CHECK(version == kVersion, IOError, "load_checkpoint: '", path, "' has checkpoint version ", version,
                "; this Spire reads version ", kVersion);
    out.epoch = read_int_attr(file, "epoch", where);
    out.step = read_int_attr(file, "step", where);
    if (group_exists(file, "model")) {
      H g(H5Gopen2(file, "model", H5P_DEFAULT), H5Gclose);
      StateDict sd;
      for (const std::string& k : list_links(g)) {
        H ds(H5Dopen2(g, k.c_str(), H5P_DEFAULT), H5Dclose);
        std::string w = detail::cat("'/model/", k, "' in '", path, "'");
        SPIRE_CHECK(ds >= 0, IOError, "load_checkpoint: ", w, " is not a dataset");
        sd.insert(k, read_tensor(ds, w));
      }
      out.model = std::move(sd);
    }
    if (group_exists(file, "optimizer")) out.optimizer = read_optim(file, "optimizer", path);
    if (group_exists(file, "scheduler")) out.scheduler = read_optim(file, "scheduler", path);
    if (group_exists(file, "rng")) {
      H g(H5Gopen2(file, "rng", H5P_DEFAULT), H5Gclose);
      for (const std::string& name : list_links(g)) {
        H gg(H5Gopen2(g, name.c_str(), H5P_DEFAULT), H5Gclose);
        GeneratorState st;
        uint64_t* fields[3] = {&st.seed, &st.stream, &st.offset};
        const char* names[3] = {"seed", "stream", "offset"};
        for (int i = 0; i < 3; ++i) {
          std::string w = detail::cat("'/rng/", name, "/", names[i], "' in '", path, "'");
          H ds(H5Dopen2(gg, names[i], H5P_DEFAULT), H5Dclose);
          SPIRE_CHECK(ds >= 0, IOError, "load_checkpoint: ", w, " is missing");
          *fields[i] = read_scalar<uint64_t>(ds, H5T_NATIVE_UINT64, w);
        }
        out.rng.emplace_back(name, st);
      }
    }
    if (group_exists(file, "state")) {
      H g(H5Gopen2(file, "state", H5P_DEFAULT), H5Gclose);
      for (const std::string& name : list_links(g)) out.state.emplace_back(name, read_optim(file, ("state/" + name).c_str(), path));
    }
    if (group_exists(file, "meta")) {
      H g(H5Gopen2(file, "meta", H5P_DEFAULT), H5Gclose);
      for (const std::string& k : list_links(g)) {
        H ds(H5Dopen2(g, k.c_str(), H5P_DEFAULT), H5Dclose);
        out.metadata.emplace_back(k, read_string(ds, detail::cat("'/meta/", k, "' in '", path, "'")));
      }
    }
  }
  return out;
}

void save_checkpoint(const std::string& path, const CheckpointTargets& targets, int64_t epoch, int64_t step,
                     const std::vector<std::pair<std::string, std::string>>& metadata) {
  CheckpointData d;
  if (targets.model) d.model = targets.model->state_dict();
  if (targets.optimizer) d.optimizer = targets.optimizer->state_dict();
  if (targets.scheduler) d.scheduler = targets.scheduler->state_dict();
  auto state = [](const Generator& g) { return GeneratorState{g.seed(), g.stream(), g.offset()}; };
  if (targets.default_generator) d.rng.emplace_back("default", state(default_generator()));
  for (const auto& [name, g] : targets.generators) {
    SPIRE_CHECK(g, ValueError, "save_checkpoint: generator '", name, "' is null");
    SPIRE_CHECK(name != "default" || !targets.default_generator, ValueError,
                "save_checkpoint: the generator name 'default' is reserved for the default generator");
    d.rng.emplace_back(name, state(*g));
  }
  d.epoch = epoch;
  d.step = step;
  d.metadata = metadata;
  write_checkpoint(path, d);
}

CheckpointInfo load_checkpoint(const std::string& path, const CheckpointTargets& targets, bool strict) {
  CheckpointData d = read_checkpoint(path);
  auto missing = [&](const char* part) {
    return ValueError(detail::cat("load_checkpoint: '", path, "' holds no ", part,
                                  " state, but one was given to restore"));
  };
  // Check that every part is present before restoring any, so a failed load changes nothing.
  if (targets.model && !d.model) throw missing("model");
  if (targets.optimizer && !d.optimizer) throw missing("optimizer");
  if (targets.scheduler && !d.scheduler) throw missing("scheduler");
  auto find_rng = [&](const std::string& name) -> const GeneratorState* {
    for (const auto& [n, st] : d.rng)
      if (n == name) return &st;
    return nullptr;
  };
  std::string names;
  for (const auto& [n, st] : d.rng) names += (names.empty() ? "" : ", ") + n;
  std::vector<std::pair<std::string, Generator*>> gens = targets.generators;
  if (targets.default_generator) gens.emplace_back("default", &default_generator());
  for (const auto& [name, g] : gens)
    SPIRE_CHECK(find_rng(name), ValueError, "load_checkpoint: '", path, "' holds no generator '", name,
                "'; it holds: ", names.empty() ? "(none)" : names);
  if (targets.model) targets.model->load_state_dict(*d.model, strict);
  if (targets.optimizer) targets.optimizer->load_state_dict(*d.optimizer);
  if (targets.scheduler) targets.scheduler->load_state_dict(*d.scheduler);
  for (const auto& [name, g] : gens) {
    const GeneratorState* st = find_rng(name);
    *g = Generator(st->seed, st->stream);
    g->set_offset(st->offset);
  }
  return {d.epoch, d.step, d.metadata};
}

}  // namespace spire::nn
