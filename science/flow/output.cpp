// HDF5 files of PDE solutions (output.h). Samples that stopped early (a blow-up) keep the snapshots
// they reached; the rest of their rows are NaN, and the root says `complete` = 0 and why.
#include "science/flow/output.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>

#include "engine/core/error.h"
#include "engine/data/atomic_file.h"
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"

namespace spire::flow {
namespace {

using data::Hdf5Id;
using H = Hdf5Id;

constexpr const char* kWho = "pde output";

void write_text_attribute(hid_t obj, const char* name, const std::string& value) {
  SPIRE_CHECK(data::write_string_attribute(obj, name, value), IOError, kWho, ": cannot write attribute ", name);
}

template <class T>
void write_scalar_attribute(hid_t obj, const char* name, T value, hid_t file_type, hid_t mem_type) {
  H space(H5Screate(H5S_SCALAR), H5Sclose);
  H attr(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  SPIRE_CHECK(attr.id >= 0 && H5Awrite(attr, mem_type, &value) >= 0, IOError, kWho, ": cannot write attribute ",
              name);
}

// A dataset of doubles stored as float32 or float64.
void write_array(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims, const std::vector<double>& v,
                 bool f32) {
  H space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose);
  H lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);  // "kappa/value" makes the group kappa on the way
  H5Pset_create_intermediate_group(lcpl, 1);
  H ds(H5Dcreate2(loc, name.c_str(), f32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT,
                  H5P_DEFAULT),
       H5Dclose);
  SPIRE_CHECK(ds.id >= 0 && H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, IOError,
              kWho, ": cannot write dataset ", name);
}

// The field names: the set's, else the job's problem's. Family jobs fill the set's (their base job
// has no equations).
std::vector<std::string> field_names(const PdeJob& job, const SolutionSet& set, size_t count) {
  std::vector<std::string> names = set.fields;
  if (names.empty()) names = job.problem.fields;
  if (names.empty() && !job.problem.equations.empty()) names = build_problem(job.problem).fields;
  if (names.empty() && count == 1) names = {"u"};
  SPIRE_CHECK(names.size() == count, ValueError, kWho, ": the solutions have ", count, " fields but ",
              names.size(), " field names are known (", detail::join(names), ")");
  return names;
}

std::string dataset_name_error(const std::string& name) {
  static const std::vector<std::string> reserved = {"tensor", "x-coordinate", "y-coordinate", "t-coordinate",
                                                    "u_sol_all", "x_coord", "y_coord", "t_coord", "coef"};
  if (std::find(reserved.begin(), reserved.end(), name) != reserved.end())
    return detail::cat("a field may not be named ", name, " (a dataset of the layout)");
  return "";
}

void write_file(const std::string& tmp, const PdeJob& job, const SolutionSet& set) {
  const auto& sols = set.solutions;
  const Solution& first = sols.front();
  const size_t nf = first.fields.size(), dims = first.coords.size();
  SPIRE_CHECK(nf >= 1 && (dims == 1 || dims == 2), ValueError, kWho, ": a solution needs at least one field and 1 or 2 "
              "axes, got ", nf, " fields and ", dims, " axes");
  size_t grid = 1;
  for (auto& c : first.coords) grid *= c.size();
  size_t nt = 0;
  const Solution* longest = &first;
  for (size_t s = 0; s < sols.size(); ++s) {
    const Solution& q = sols[s];
    bool same = q.fields.size() == nf && q.coords.size() == dims;
    for (size_t a = 0; same && a < dims; ++a) same = q.coords[a].size() == first.coords[a].size();
    SPIRE_CHECK(same, ValueError, kWho, ": sample ", s, " has another grid or field count than sample 0");
    for (auto& f : q.fields)
      SPIRE_CHECK(f.size() == q.t.size() * grid, ValueError, kWho, ": sample ", s, " holds ", f.size(),
                  " values for ", q.t.size(), " snapshots of ", grid, " points");
    if (q.t.size() > nt) nt = q.t.size(), longest = &q;
  }
  const std::vector<std::string> names = field_names(job, set, nf);
  const bool f32 = job.output.dtype == "float32";
  const bool pdebench = job.output.layout != "pdeformer", pdeformer = job.output.layout != "pdebench";
  if (pdeformer)
    SPIRE_CHECK(nf == 1, ConfigError, job.where, ": output.layout = \"", job.output.layout,
                "\" holds one field (u_sol_all) but the problem has ", nf, " (", detail::join(names),
                "); use layout = \"pdebench\", which stores one dataset per field");

  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  H file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file.id >= 0, IOError, kWho, ": cannot create ", tmp);

  std::vector<hsize_t> shape = {hsize_t(sols.size()), hsize_t(nt)};
  for (auto& c : first.coords) shape.push_back(hsize_t(c.size()));
  std::vector<double> block;
  auto field_block = [&](size_t f) {
    block.assign(sols.size() * nt * grid, std::numeric_limits<double>::quiet_NaN());
    for (size_t s = 0; s < sols.size(); ++s)
      std::copy(sols[s].fields[f].begin(), sols[s].fields[f].end(), block.begin() + std::ptrdiff_t(s * nt * grid));
    return block;
  };
  const std::vector<double>& t = longest->t;
  static const char* axes[] = {"x", "y"};
  if (pdebench) {
    for (size_t f = 0; f < nf; ++f) {
      const std::string name = nf == 1 ? "tensor" : names[f];
      std::string bad = nf == 1 ? "" : dataset_name_error(name);
      SPIRE_CHECK(bad.empty(), ConfigError, job.where, ": ", bad);
      write_array(file, name, shape, field_block(f), f32);
    }
    for (size_t a = 0; a < dims; ++a)
      write_array(file, std::string(axes[a]) + "-coordinate", {first.coords[a].size()}, first.coords[a], f32);
    write_array(file, "t-coordinate", {t.size()}, t, f32);
  }
  if (pdeformer) {
    write_array(file, "u_sol_all", shape, field_block(0), f32);
    for (size_t a = 0; a < dims; ++a)
      write_array(file, std::string(axes[a]) + "_coord", {first.coords[a].size()}, first.coords[a], f32);
    write_array(file, "t_coord", {t.size()}, t, f32);
  }
  // coef/<name>: [samples, values], values per sample the same for every sample.
  if (!set.coef.empty()) {
    SPIRE_CHECK(set.coef.size() == sols.size(), ValueError, kWho, ": ", set.coef.size(), " coefficient sets for ",
                sols.size(), " samples");
    H group(H5Gcreate2(file, "coef", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    SPIRE_CHECK(group.id >= 0, IOError, kWho, ": cannot create the group coef in ", tmp);
    for (auto& [name, values] : set.coef.front()) {
      std::vector<double> all;
      for (size_t s = 0; s < sols.size(); ++s) {
        auto it = set.coef[s].find(name);
        SPIRE_CHECK(it != set.coef[s].end() && it->second.size() == values.size(), ValueError, kWho, ": coef/", name,
                    " of sample ", s, " is missing or has another length than sample 0's (", values.size(), ")");
        all.insert(all.end(), it->second.begin(), it->second.end());
      }
      write_array(group, name, {hsize_t(sols.size()), hsize_t(values.size())}, all, false);
    }
  }

  write_text_attribute(file, "spire_version", SPIRE_VERSION);
  write_text_attribute(file, "job", job.toml);
  write_scalar_attribute<uint64_t>(file, "seed", job.seed, H5T_STD_U64LE, H5T_NATIVE_UINT64);
  write_text_attribute(file, "fields", detail::join(names));
  bool complete = true;
  std::string reasons;
  for (size_t s = 0; s < sols.size(); ++s) {
    if (sols[s].complete) continue;
    complete = false;
    if (!reasons.empty()) reasons += "; ";
    reasons += sols.size() > 1 ? detail::cat("sample ", s, ": ", sols[s].stop_reason) : sols[s].stop_reason;
  }
  write_scalar_attribute<int64_t>(file, "complete", complete ? 1 : 0, H5T_STD_I64LE, H5T_NATIVE_INT64);
  if (!complete) write_text_attribute(file, "stop_reason", reasons);
  for (auto& [reason, count] : set.rejected)
    write_scalar_attribute<int64_t>(file, ("rejected/" + reason).c_str(), count, H5T_STD_I64LE, H5T_NATIVE_INT64);
  SPIRE_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, IOError, kWho, ": cannot flush ", tmp);
}

// --- reading ---

bool exists(hid_t loc, const std::string& name) { return H5Lexists(loc, name.c_str(), H5P_DEFAULT) > 0; }

std::vector<double> read_array(hid_t loc, const std::string& name, std::vector<hsize_t>& dims,
                               const std::string& path) {
  H ds(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds.id >= 0, IOError, "read_solutions: ", path, " has no dataset ", name);
  H space(H5Dget_space(ds), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space);
  dims.assign(size_t(std::max(rank, 0)), 0);
  if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  size_t n = 1;
  for (hsize_t d : dims) n *= size_t(d);
  std::vector<double> v(n);
  SPIRE_CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, IOError,
              "read_solutions: cannot read ", name, " of ", path);
  return v;
}

std::vector<std::string> split(const std::string& s, const std::string& separator) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t c = s.find(separator, start);
    out.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + separator.size();
  }
  return out;
}

}  // namespace

void write_solutions(const std::string& path, const PdeJob& job, const SolutionSet& set) {
  SPIRE_CHECK(!set.solutions.empty(), ValueError, kWho, ": no solutions to write to ", path);
  data::write_atomically(path, kWho, [&](const std::string& tmp) { write_file(tmp, job, set); });
}

SolutionSet read_solutions(const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(data::hdf5_mutex());
  data::QuietHdf5Errors quiet;
  SPIRE_CHECK(std::filesystem::exists(path), IOError, "read_solutions: no file ", path);
  H file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file.id >= 0, IOError, "read_solutions: ", path, " is not an HDF5 file");
  SPIRE_CHECK(H5Aexists(file, "fields") > 0, IOError, "read_solutions: ", path,
              " is not a file of spire pde (no attribute 'fields')");
  SolutionSet set;
  set.fields = split(data::read_string_attribute(file, "fields").value_or(""), ", ");
  const bool pdebench = exists(file, "t-coordinate");
  SPIRE_CHECK(pdebench || exists(file, "t_coord"), IOError, "read_solutions: ", path,
              " has neither t-coordinate (PDEBench layout) nor t_coord (PDEformer layout)");
  std::vector<hsize_t> d;
  const std::vector<double> t = read_array(file, pdebench ? "t-coordinate" : "t_coord", d, path);
  std::vector<std::vector<double>> coords;
  for (const char* a : {"x", "y"}) {
    const std::string name = std::string(a) + (pdebench ? "-coordinate" : "_coord");
    if (exists(file, name)) coords.push_back(read_array(file, name, d, path));
  }
  SPIRE_CHECK(!coords.empty(), IOError, "read_solutions: ", path, " has no x coordinates");
  size_t grid = 1;
  for (auto& c : coords) grid *= c.size();

  std::vector<std::vector<double>> blocks;  // per field [samples, nt, grid]
  size_t samples = 0;
  for (size_t f = 0; f < set.fields.size(); ++f) {
    const std::string name = !pdebench ? "u_sol_all" : set.fields.size() == 1 ? "tensor" : set.fields[f];
    blocks.push_back(read_array(file, name, d, path));
    SPIRE_CHECK(d.size() == 2 + coords.size() && d[1] == t.size(), IOError, "read_solutions: ", name, " of ", path,
                " does not match its coordinates");
    samples = size_t(d[0]);
  }
  std::string reasons = data::read_string_attribute(file, "stop_reason").value_or("");
  for (size_t s = 0; s < samples; ++s) {
    Solution q;
    q.coords = coords;
    size_t reached = t.size();
    // A sample that stopped early is NaN from its first unreached snapshot on.
    while (reached > 0) {
      const double* row = blocks[0].data() + (s * t.size() + reached - 1) * grid;
      if (!std::all_of(row, row + grid, [](double v) { return std::isnan(v); })) break;
      --reached;
    }
    q.t.assign(t.begin(), t.begin() + std::ptrdiff_t(reached));
    for (auto& b : blocks) {
      auto begin = b.begin() + std::ptrdiff_t(s * t.size() * grid);
      q.fields.emplace_back(begin, begin + std::ptrdiff_t(reached * grid));
    }
    const std::string tag = samples > 1 ? detail::cat("sample ", s, ": ") : "";
    if (samples == 1 && !reasons.empty()) q.complete = false, q.stop_reason = reasons;
    for (const std::string& r : split(reasons, "; "))
      if (!tag.empty() && r.rfind(tag, 0) == 0) q.complete = false, q.stop_reason = r.substr(tag.size());
    set.solutions.push_back(std::move(q));
  }
  if (exists(file, "coef")) {
    // Every dataset under coef/, at any depth ("kappa/value"), by its path below coef.
    H group(H5Gopen2(file, "coef", H5P_DEFAULT), H5Gclose);
    std::vector<std::string> paths;
    H5Lvisit(group, H5_INDEX_NAME, H5_ITER_INC,
             [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
               static_cast<std::vector<std::string>*>(out)->push_back(name);
               return 0;
             },
             &paths);
    set.coef.assign(samples, {});
    for (const std::string& name : paths) {
      H object(H5Oopen(group, name.c_str(), H5P_DEFAULT), H5Oclose);
      if (object.id < 0 || H5Iget_type(object) != H5I_DATASET) continue;
      std::vector<double> v = read_array(group, name, d, path);
      const size_t per = d.size() == 2 ? size_t(d[1]) : 1;
      for (size_t s = 0; s < samples && (s + 1) * per <= v.size(); ++s)
        set.coef[s][name].assign(v.begin() + std::ptrdiff_t(s * per), v.begin() + std::ptrdiff_t((s + 1) * per));
    }
  }
  // rejected/<reason> attributes
  std::vector<std::string> names;
  hsize_t index = 0;
  H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, &index,
              [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
                static_cast<std::vector<std::string>*>(out)->push_back(name);
                return 0;
              },
              &names);
  for (const std::string& n : names) {
    if (n.rfind("rejected/", 0) != 0) continue;
    H attr(H5Aopen(file, n.c_str(), H5P_DEFAULT), H5Aclose);
    int64_t v = 0;
    H5Aread(attr, H5T_NATIVE_INT64, &v);
    set.rejected[n.substr(9)] = long(v);
  }
  return set;
}

}  // namespace spire::flow
