// Reading the job's [[material]] and [[geometry]] tables and default_material (job.h): named media
// (with their susceptibilities, or perfect conductors) and the shapes that use them.
#include <algorithm>
#include <cmath>
#include <map>

#include "engine/core/error.h"
#include "science/elec/job_read.h"

namespace spire::elec::job_read {

namespace {

constexpr double kInf = HUGE_VAL;

const std::vector<std::string> kBuiltIn = {"vacuum", "air", "pec", "metal", "pmc"};

Medium built_in(const std::string& name) {
  if (name == "pec" || name == "metal") return perfect_electric_conductor();
  if (name == "pmc") return perfect_magnetic_conductor();
  return Medium::vacuum();
}

// One number for every axis, or [x, y, z].
bool read_diag(JobSection& t, const char* key, const Context& cx, double low, bool open_low, Vec3& out) {
  if (!t.has(key)) {
    double unused = 0;
    t.number(key, unused, low, kInf, open_low);  // marks the key allowed
    return false;
  }
  if (t.is_array(key)) {
    std::vector<double> v;
    t.numbers(key, v, low, kInf);
    SPIRE_CHECK(v.size() == 3, ConfigError, cx.where, ": ", t.name(), ".", key,
                " must be a number or [x, y, z], got ", v.size(), " numbers");
    for (double x : v)
      SPIRE_CHECK(std::isfinite(x) && (!open_low || x > low), ConfigError, cx.where, ": ", t.name(), ".", key,
                  " must hold finite numbers", open_low ? " > " + std::to_string(low) : "");
    out = {v[0], v[1], v[2]};
  } else {
    double x = 0;
    t.number(key, x, low, kInf, open_low);
    SPIRE_CHECK(std::isfinite(x), ConfigError, cx.where, ": ", t.name(), ".", key, " must be finite");
    out = {x, x, x};
  }
  return true;
}

Susceptibility read_susceptibility(JobSection& t, const Context& cx) {
  SPIRE_CHECK(t.has("kind"), ConfigError, cx.where, ": [", t.name(),
              "] needs kind: \"lorentzian\", \"drude\" (frequency, gamma, sigma) or \"debye\" (tau, delta_epsilon)");
  std::string kind;
  t.string("kind", kind, {"lorentzian", "drude", "debye"});
  Susceptibility s;
  if (kind == "debye") {
    const double tau = required_number(t, "tau", cx, 0, kInf, true, "the relaxation time in a/c");
    s = Susceptibility::debye(tau, 0);
    SPIRE_CHECK(t.has("delta_epsilon"), ConfigError, cx.where, ": [", t.name(), "] needs delta_epsilon");
    read_diag(t, "delta_epsilon", cx, -kInf, false, s.sigma_diag);
  } else {
    const double f = required_number(t, "frequency", cx, 0, kInf, true, "f_n in c/a");
    double gamma = 0;
    t.number("gamma", gamma, 0, kInf);
    s = kind == "drude" ? Susceptibility::drude(f, gamma, 0) : Susceptibility::lorentzian(f, gamma, 0);
    SPIRE_CHECK(t.has("sigma"), ConfigError, cx.where, ": [", t.name(), "] needs sigma (the strength)");
    read_diag(t, "sigma", cx, -kInf, false, s.sigma_diag);
  }
  t.finish();
  return s;
}

std::map<std::string, Medium> read_materials(JobSection& root, const Context& cx, EmJob& job) {
  std::map<std::string, Medium> media;
  for (JobSection& t : root.tables("material")) {
    std::string name;
    t.string("name", name);
    SPIRE_CHECK(!name.empty(), ConfigError, cx.where, ": [", t.name(), "] needs a name (geometry refers to it)");
    SPIRE_CHECK(std::find(kBuiltIn.begin(), kBuiltIn.end(), name) == kBuiltIn.end(), ConfigError, cx.where, ": ",
                t.name(), ".name \"", name, "\" is built in (", detail::join(kBuiltIn), "); choose another name");
    SPIRE_CHECK(!media.count(name), ConfigError, cx.where, ": two materials are named \"", name, "\"");
    std::string kind = "medium";
    t.string("kind", kind, {"medium", "pec", "pmc"});
    Medium m;
    if (kind == "medium") {
      SPIRE_CHECK(!(t.has("epsilon") && t.has("index")), ConfigError, cx.where, ": [", t.name(),
                  "] gives both epsilon and index; give one of them (epsilon = index^2)");
      double index = 0;
      t.number("index", index, 0, kInf, true);
      if (index > 0) m = Medium::from_index(index);
      read_diag(t, "epsilon", cx, 0, true, m.epsilon_diag);
      read_diag(t, "mu", cx, 0, true, m.mu_diag);
      double sigma = 0, sigma_d = 0, sigma_b = 0;
      t.number("conductivity", sigma, -kInf, kInf);
      t.number("D_conductivity", sigma_d, -kInf, kInf);
      t.number("B_conductivity", sigma_b, -kInf, kInf);
      SPIRE_CHECK(!(t.has("conductivity") && t.has("D_conductivity")), ConfigError, cx.where, ": [", t.name(),
                  "] gives both conductivity and D_conductivity (= conductivity / epsilon); give one of them");
      if (t.has("conductivity")) m.with_conductivity(sigma);
      if (t.has("D_conductivity")) m.with_D_conductivity(sigma_d);
      if (t.has("B_conductivity")) m.with_B_conductivity(sigma_b);
      for (JobSection& s : t.tables("susceptibility")) m.with_susceptibility(read_susceptibility(s, cx));
    } else {
      m = kind == "pec" ? perfect_electric_conductor() : perfect_magnetic_conductor();
    }
    t.finish();
    try {
      m.validate("material \"" + name + "\"");
    } catch (const ValueError& e) {
      throw ConfigError(detail::cat(cx.where, ": ", t.name(), ": ", e.what()));
    }
    media[name] = m;
    job.material_names.push_back(name);
  }
  return media;
}

const Medium& find_medium(const std::map<std::string, Medium>& media, const std::string& name, const std::string& key,
                          const Context& cx, Medium& scratch) {
  if (auto it = media.find(name); it != media.end()) return it->second;
  if (std::find(kBuiltIn.begin(), kBuiltIn.end(), name) != kBuiltIn.end()) return scratch = built_in(name);
  std::vector<std::string> known = kBuiltIn;
  for (const auto& [n, m] : media) known.push_back(n);
  throw ConfigError(detail::cat(cx.where, ": ", key, " names the material \"", name, "\", which no [[material]] "
                                "defines; known: ", detail::join(known)));
}

Shape read_shape(JobSection& t, const Context& cx) {
  SPIRE_CHECK(t.has("shape"), ConfigError, cx.where, ": [", t.name(),
              "] needs shape: \"block\", \"sphere\", \"cylinder\" or \"prism\"");
  std::string shape;
  t.string("shape", shape, {"block", "sphere", "cylinder", "prism"});
  if (shape == "block") {
    Block b;
    vec3(t, "center", cx, b.center);
    b.size = required_vec3(t, "size", cx, "the block's extent along e1, e2, e3; inf allowed", true);
    vec3(t, "e1", cx, b.e1);
    vec3(t, "e2", cx, b.e2);
    vec3(t, "e3", cx, b.e3);
    return b;
  }
  if (shape == "sphere") {
    Sphere s;
    vec3(t, "center", cx, s.center);
    s.radius = required_number(t, "radius", cx, 0, kInf, true, "in a");
    return s;
  }
  if (shape == "cylinder") {
    Cylinder c;
    vec3(t, "center", cx, c.center);
    c.radius = required_number(t, "radius", cx, 0, kInf, true, "in a");
    t.number("height", c.height, 0, kInf, true);
    vec3(t, "axis", cx, c.axis);
    return c;
  }
  Prism p;
  SPIRE_CHECK(t.has("vertices"), ConfigError, cx.where, ": [", t.name(),
              "] needs vertices = [[x, y, z], ...] (the bottom face, or about center when given)");
  std::vector<std::vector<double>> rows;
  t.number_arrays("vertices", rows);
  for (const std::vector<double>& r : rows) {
    SPIRE_CHECK(r.size() >= 2 && r.size() <= 3, ConfigError, cx.where, ": ", t.name(),
                ".vertices must hold [x, y] or [x, y, z] points, got one of ", r.size(), " numbers");
    p.vertices.push_back({r[0], r[1], r.size() > 2 ? r[2] : 0.0});
  }
  p.height = required_number(t, "height", cx, 0, kInf, true, "the extrusion along axis; inf allowed");
  vec3(t, "axis", cx, p.axis);
  Vec3 center;
  if (vec3(t, "center", cx, center)) p.center = center;
  return p;
}

void read_geometry(JobSection& root, const Context& cx, EmJob& job, const std::map<std::string, Medium>& media) {
  std::string default_material = "vacuum";
  root.string("default_material", default_material);
  Medium scratch;
  job.problem.geometry = Geometry(find_medium(media, default_material, "default_material", cx, scratch));
  for (JobSection& t : root.tables("geometry")) {
    const Shape shape = read_shape(t, cx);
    SPIRE_CHECK(t.has("material"), ConfigError, cx.where, ": [", t.name(), "] needs material (a [[material]] name or ",
                detail::join(kBuiltIn), ")");
    std::string material;
    t.string("material", material);
    const Medium& m = find_medium(media, material, t.name() + ".material", cx, scratch);
    t.finish();
    try {
      job.problem.geometry.add(shape, m);
    } catch (const ValueError& e) {
      throw ConfigError(detail::cat(cx.where, ": ", t.name(), ": ", e.what()));
    }
  }
}

}  // namespace

void read_materials_and_geometry(JobSection& root, const Context& cx, EmJob& job) {
  const std::map<std::string, Medium> media = read_materials(root, cx, job);
  read_geometry(root, cx, job, media);
}

}  // namespace spire::elec::job_read
