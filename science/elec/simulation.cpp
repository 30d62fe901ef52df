// Simulation (simulation.h): the step sequence, sources, callbacks, field access and energy, over
// a precision-templated engine that owns the fields, CPML state and update coefficients.
#include "science/elec/simulation.h"

#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "engine/core/error.h"
#include "science/elec/cpml.h"
#include "science/elec/fdtd_update.h"
#include "science/elec/simulation_engine.h"
#include "science/elec/source_currents.h"

namespace spire::elec {

std::string to_string(Precision p) { return p == Precision::float32 ? "float32" : "float64"; }

Precision parse_precision(const std::string& text) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  if (t == "float32" || t == "single" || t == "f32") return Precision::float32;
  if (t == "float64" || t == "double" || t == "f64") return Precision::float64;
  throw ConfigError(detail::cat("precision: got '", text, "'; allowed: float32 (single), float64 (double)"));
}

PolarizationHook::~PolarizationHook() = default;

void PolarizationHook::step(Component c, FieldPart part, const float* e_now, float* p_total, int64_t n) {
  e_scratch_.assign(e_now, e_now + n);
  p_scratch_.assign(size_t(n), 0.0);
  step(c, part, e_scratch_.data(), p_scratch_.data(), n);
  for (int64_t i = 0; i < n; ++i) p_total[i] = float(p_scratch_[size_t(i)]);
}

void PolarizationHook::save_state(SimulationState&) const {}

void PolarizationHook::load_state(const SimulationState&) {}

const StateArray& find_state(const SimulationState& state, const std::string& name, int64_t size) {
  for (const StateArray& a : state)
    if (a.name == name) {
      SPIRE_CHECK(size < 0 || int64_t(a.values.size()) == size, ValueError, "simulation state: array '", name,
                  "' has ", a.values.size(), " values, this run needs ", size);
      return a;
    }
  std::string names;
  for (const StateArray& a : state) names += (names.empty() ? "" : ", ") + a.name;
  throw ValueError(detail::cat("simulation state: no array '", name, "' (the state has: ", names, ")"));
}

double FieldView::real(int64_t i) const {
  return precision == Precision::float32 ? double(static_cast<const float*>(re)[i]) : static_cast<const double*>(re)[i];
}

double FieldView::imag(int64_t i) const {
  if (!im) return 0.0;
  return precision == Precision::float32 ? double(static_cast<const float*>(im)[i]) : static_cast<const double*>(im)[i];
}

template <class T>
const T* FieldView::real_data() const {
  constexpr Precision want = sizeof(T) == 4 ? Precision::float32 : Precision::float64;
  SPIRE_CHECK(precision == want, ValueError, "FieldView::real_data: the run is ", to_string(precision), ", asked for ",
              to_string(want));
  return static_cast<const T*>(re);
}

template <class T>
const T* FieldView::imag_data() const {
  constexpr Precision want = sizeof(T) == 4 ? Precision::float32 : Precision::float64;
  SPIRE_CHECK(precision == want, ValueError, "FieldView::imag_data: the run is ", to_string(precision), ", asked for ",
              to_string(want));
  return static_cast<const T*>(im);
}

template const float* FieldView::real_data<float>() const;
template const double* FieldView::real_data<double>() const;
template const float* FieldView::imag_data<float>() const;
template const double* FieldView::imag_data<double>() const;


namespace {

// Sum of f(i) over [0, n) in fixed chunks added in order: the same bits for any thread count.
template <class F>
double ordered_sum(int64_t n, F f) {
  constexpr int64_t kChunk = 4096;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> partial(size_t(std::max<int64_t>(chunks, 1)), 0.0);
#pragma omp parallel for schedule(static) if (n >= 65536)
  for (int64_t c = 0; c < chunks; ++c) {
    double s = 0;
    for (int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) s += f(i);
    partial[size_t(c)] = s;
  }
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

template <class T>
struct EngineImpl final : Simulation::Engine {
  explicit EngineImpl(const EngineConfig& cfg)
      : lattice(*cfg.lattice),
        bc(*cfg.boundaries),
        fields(lattice, bc.complex_fields(), cfg.store_d),
        cpml(lattice, bc, *cfg.pml_profile, cfg.dt, bc.complex_fields()),
        co(make_update_coefficients<T>(*cfg.materials, lattice, cfg.dt, cfg.store_d)) {
    bucket_magnetic_sources();
  }

  // Adds sample i of source s carrying current j to its field (D when stored and target_d).
  void add_source_sample(const SourceSamples& s, size_t i, std::complex<double> j, bool target_d) {
    T* re = target_d ? fields.d(s.component) : fields.data(s.component);
    T* im = target_d ? fields.d(s.component, FieldPart::imag) : fields.data(s.component, FieldPart::imag);
    const int64_t idx = s.index[i];
    const std::complex<double> v = co.source_factor(s.component, idx) * s.weight[i] * j;
    re[idx] += T(v.real());
    if (im) im[idx] += T(v.imag());
  }

  bool evaluate(size_t si, double t_mid, double dt) { return currents.evaluate(sources[si], si, t_mid, dt); }
  std::complex<double> current_of(size_t si, size_t i) const { return currents.current(sources[si], si, i); }

  void apply_sources(bool electric, double t_mid, double dt) {
    const bool target_d = electric && fields.has_d();
    for (size_t si = 0; si < sources.size(); ++si) {
      if (is_electric(sources[si].component) != electric || !evaluate(si, t_mid, dt)) continue;
      for (size_t i = 0; i < sources[si].index.size(); ++i)
        add_source_sample(sources[si], i, current_of(si, i), target_d);
    }
  }

  // Magnetic source samples grouped by sweep plane, so the fused step can add them to each plane
  // of H right after its update (rebuilt when sources are added).
  void bucket_magnetic_sources() {
    by_plane.assign(size_t(sweep_planes(lattice)), {});
    for (size_t si = 0; si < sources.size(); ++si) {
      if (is_electric(sources[si].component)) continue;
      for (size_t i = 0; i < sources[si].index.size(); ++i)
        by_plane[size_t(sweep_plane_of(lattice, sources[si].index[i]))].push_back({si, i});
    }
  }

  void step(double t_n, double dt, PolarizationHook* hook) override {
    if (!fields.has_d()) {
      // The magnetic currents of this half step, then one fused sweep (fdtd_update.h).
      magnetic_on.assign(sources.size(), false);
      bool any_magnetic = false;
      for (size_t si = 0; si < sources.size(); ++si) {
        if (is_electric(sources[si].component)) continue;
        magnetic_on[si] = evaluate(si, t_n, dt);
        any_magnetic = any_magnetic || magnetic_on[si];
      }
      const bool pmc = std::any_of(bc.axis.begin(), bc.axis.end(),
                                   [](const AxisBoundary& a) { return a.active && a.wall == Wall::pmc; });
      std::function<void(int64_t)> after_h;
      if (any_magnetic || pmc)
        after_h = [&](int64_t plane) {
          for (const auto& [si, i] : by_plane[size_t(plane)])
            if (magnetic_on[si]) add_source_sample(sources[si], i, current_of(si, i), false);
          if (pmc) zero_walls_in_plane(fields, bc, false, plane);
        };
      step_h_e(fields, cpml, co, bc, after_h);
      apply_sources(true, t_n + 0.5 * dt, dt);
      zero_walls(fields, bc, true, false);
      return;
    }
    step_h(fields, cpml, co, bc);
    apply_sources(false, t_n, dt);
    zero_walls(fields, bc, false);
    step_e(fields, cpml, co, bc);
    apply_sources(true, t_n + 0.5 * dt, dt);
    zero_walls(fields, bc, true, fields.has_d());
    if (!fields.has_d()) return;
    const int64_t n = lattice.samples();
    polarization.resize(size_t(n));
    for (Component c : lattice.components()) {
      if (!is_electric(c)) continue;
      for (int p = 0; p < fields.parts(); ++p) {
        const T* p_total = nullptr;
        if (hook) {
          std::fill(polarization.begin(), polarization.end(), T(0));
          hook->step(c, FieldPart(p), fields.data(c, FieldPart(p)), polarization.data(), n);
          p_total = polarization.data();
        }
        e_from_d(fields, co, c, FieldPart(p), p_total);
      }
    }
    zero_walls(fields, bc, true, false);
  }

  void add_source(SourceSamples s) override {
    sources.push_back(std::move(s));
    currents.add();
    bucket_magnetic_sources();
  }

  void save_state(SimulationState& out) const override {
    const int64_t n = lattice.samples();
    for (Component c : lattice.components())
      for (int p = 0; p < fields.parts(); ++p) {
        const std::string part = p == 0 ? "re" : "im";
        const T* f = fields.data(c, FieldPart(p));
        out.push_back({"E/" + to_string(c) + "/" + part, std::vector<double>(f, f + n)});
        if (const T* d = fields.d(c, FieldPart(p)))
          out.push_back({"D/" + to_string(c) + "/" + part, std::vector<double>(d, d + n)});
        for (int a = 0; a < 3; ++a)
          if (const T* psi = const_cast<Cpml<T>&>(cpml).psi(c, a, FieldPart(p)))
            out.push_back({psi_name(c, a, part), std::vector<double>(psi, psi + psi_size(a))});
      }
    currents.save_state(sources, out);
  }

  void load_state(const SimulationState& in) override {
    const int64_t n = lattice.samples();
    auto load = [&](const std::string& name, T* into, int64_t size) {
      const StateArray& a = find_state(in, name, size);
      std::transform(a.values.begin(), a.values.end(), into, [](double v) { return T(v); });
    };
    for (Component c : lattice.components())
      for (int p = 0; p < fields.parts(); ++p) {
        const std::string part = p == 0 ? "re" : "im";
        load("E/" + to_string(c) + "/" + part, fields.data(c, FieldPart(p)), n);
        if (T* d = fields.d(c, FieldPart(p))) load("D/" + to_string(c) + "/" + part, d, n);
        for (int a = 0; a < 3; ++a)
          if (T* psi = cpml.psi(c, a, FieldPart(p))) load(psi_name(c, a, part), psi, psi_size(a));
      }
    currents.load_state(sources, in);
  }

  static std::string psi_name(Component c, int a, const std::string& part) {
    return "psi/" + to_string(c) + "/" + "xyz"[a] + "/" + part;
  }
  // psi spans the lattice with the extent along a replaced by the slab count (cpml.h).
  int64_t psi_size(int a) const { return lattice.samples() / lattice.n(a) * cpml.axis(a).slabs(); }

  FieldView view(Component c) const override {
    FieldView v;
    v.lattice = &fields.lattice();
    v.component = c;
    v.precision = sizeof(T) == 4 ? Precision::float32 : Precision::float64;
    v.re = fields.data(c);
    v.im = fields.data(c, FieldPart::imag);
    return v;
  }

  void set(Component c, const std::function<std::complex<double>(const Vec3&)>& value,
           const MaterialArrays& m) override {
    T* re = fields.data(c);
    T* im = fields.data(c, FieldPart::imag);
    T* dre = is_electric(c) ? fields.d(c) : nullptr;
    T* dim = is_electric(c) ? fields.d(c, FieldPart::imag) : nullptr;
    const std::vector<double>& inv = m.inverse[size_t(int(c))];
    for (int64_t i = 0; i < lattice.n(0); ++i)
      for (int64_t j = 0; j < lattice.n(1); ++j)
        for (int64_t k = 0; k < lattice.n(2); ++k) {
          const int64_t idx = lattice.index(i, j, k);
          const std::complex<double> v = value(lattice.position(c, i, j, k));
          re[idx] = T(v.real());
          if (im) im[idx] = T(v.imag());
          if (dre) {
            // D = E / inv_eps; inside a pec object (inv_eps = 0) both are zero.
            const double f = inv[size_t(idx)] > 0 ? 1 / inv[size_t(idx)] : 0.0;
            if (f == 0) re[idx] = T(0);
            dre[idx] = T(v.real() * f);
            if (dim) {
              if (f == 0) im[idx] = T(0);
              dim[idx] = T(v.imag() * f);
            }
          }
        }
    zero_walls(fields, bc, is_electric(c), false);
    if (fields.has_d() && is_electric(c)) zero_walls(fields, bc, true, true);
  }

  double dv() const {
    double v = 1;
    for (int a = 0; a < 3; ++a)
      if (lattice.has_axis(a)) v *= lattice.dx();
    return v;
  }

  double electric_energy(const MaterialArrays& m) const override {
    double total = 0;
    for (Component c : lattice.components()) {
      if (!is_electric(c)) continue;
      const std::vector<double>& inv = m.inverse[size_t(int(c))];
      for (int p = 0; p < fields.parts(); ++p) {
        const T* e = fields.data(c, FieldPart(p));
        const T* d = fields.d(c, FieldPart(p));
        total += ordered_sum(lattice.samples(), [&](int64_t i) {
          if (d) return double(e[i]) * double(d[i]);
          return inv[size_t(i)] > 0 ? double(e[i]) * double(e[i]) / inv[size_t(i)] : 0.0;
        });
      }
    }
    return 0.5 * total * dv();
  }

  double magnetic_energy(const MaterialArrays& m, double t_n, double dt) override {
    // H^{n-1/2} . B^{n+1/2}: take a trial H half step, then restore H and the CPML state.
    std::vector<AlignedVector<T>> saved;
    for (Component c : lattice.components())
      for (int p = 0; p < fields.parts(); ++p)
        if (!is_electric(c)) {
          const T* h = fields.data(c, FieldPart(p));
          saved.emplace_back(h, h + lattice.samples());
        }
    Cpml<T> saved_cpml = cpml;
    step_h(fields, cpml, co, bc);
    apply_sources(false, t_n, dt);
    zero_walls(fields, bc, false);
    double total = 0;
    size_t s = 0;
    for (Component c : lattice.components())
      for (int p = 0; p < fields.parts(); ++p)
        if (!is_electric(c)) {
          const std::vector<double>& inv = m.inverse[size_t(int(c))];
          const T* now = fields.data(c, FieldPart(p));
          const T* before = saved[s++].data();
          total += ordered_sum(lattice.samples(), [&](int64_t i) {
            return inv[size_t(i)] > 0 ? double(before[i]) * double(now[i]) / inv[size_t(i)] : 0.0;
          });
        }
    s = 0;
    for (Component c : lattice.components())
      for (int p = 0; p < fields.parts(); ++p)
        if (!is_electric(c)) std::copy(saved[s].begin(), saved[s].end(), fields.data(c, FieldPart(p))), ++s;
    cpml = std::move(saved_cpml);
    return 0.5 * total * dv();
  }

  YeeLattice lattice;
  ResolvedBoundaries bc;
  Fields<T> fields;
  Cpml<T> cpml;
  UpdateCoefficients<T> co;
  std::vector<SourceSamples> sources;
  std::vector<std::vector<std::pair<size_t, size_t>>> by_plane;  // (source, sample) per sweep plane
  SourceCurrents currents;
  std::vector<char> magnetic_on;  // per source: carries current in this H half step
  std::vector<T> polarization;
};

std::map<std::string, EngineFactory>& platform_registry() {
  static std::map<std::string, EngineFactory> registry;
  return registry;
}

int axes_of(const YeeLattice& lattice) {
  int n = 0;
  for (int a = 0; a < 3; ++a) n += lattice.has_axis(a) ? 1 : 0;
  return n;
}

}  // namespace

void register_platform(const std::string& name, EngineFactory factory) {
  SPIRE_CHECK(!name.empty() && name != "cpu" && name.find(':') == std::string::npos, ValueError,
              "register_platform: bad platform name '", name, "'");
  platform_registry()[name] = std::move(factory);
}

std::vector<std::string> platforms() {
  std::vector<std::string> names{"cpu"};
  for (const auto& [name, factory] : platform_registry()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::unique_ptr<Simulation::Engine> make_engine(const std::string& platform, const EngineConfig& config) {
  const size_t colon = platform.find(':');
  const std::string name = platform.substr(0, colon);
  EngineConfig cfg = config;
  if (colon != std::string::npos) {
    const std::string number = platform.substr(colon + 1);
    SPIRE_CHECK(!number.empty() && number.size() < 4 &&
                    std::all_of(number.begin(), number.end(), [](unsigned char ch) { return std::isdigit(ch); }),
                ConfigError, "platform '", platform, "': the device after ':' must be a number (as cuda:1)");
    cfg.device = std::stoi(number);
  }
  if (name == "cpu") {
    SPIRE_CHECK(colon == std::string::npos, ConfigError, "platform '", platform, "': cpu takes no device number");
    if (cfg.precision == Precision::float32) return std::make_unique<EngineImpl<float>>(cfg);
    return std::make_unique<EngineImpl<double>>(cfg);
  }
  const auto it = platform_registry().find(name);
  if (it == platform_registry().end()) {
    std::string names;
    for (const std::string& n : platforms()) names += (names.empty() ? "" : ", ") + n;
    throw ConfigError(detail::cat("platform '", platform, "' is not available in this build; platforms: ", names));
  }
  return it->second(cfg);
}

Simulation::Simulation(const YeeLattice& lattice, MaterialArrays materials, const Boundaries& boundaries,
                       double courant, Precision precision, const std::string& platform)
    : lattice_(lattice),
      materials_(std::move(materials)),
      resolved_(resolve(boundaries, lattice)),
      pml_profile_(boundaries.pml_profile),
      precision_(precision),
      platform_(platform),
      courant_(courant) {
  const double limit = courant_limit();
  SPIRE_CHECK(std::isfinite(courant) && courant > 0, ValueError, "Simulation: the Courant number must be > 0, got ",
              courant);
  SPIRE_CHECK(courant <= limit, ValueError, "Simulation: Courant number ", courant, " exceeds the stability limit ",
              limit, " = 1/sqrt(", axes_of(lattice), ") of a ", to_string(lattice.dimensions()), " lattice");
  dt_ = courant * lattice.dx();
  engine_ = make_engine(platform_, engine_config(false));
}

Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

double Simulation::courant_limit() const { return 1 / std::sqrt(double(axes_of(lattice_))); }

EngineConfig Simulation::engine_config(bool store_d) const {
  EngineConfig cfg;
  cfg.lattice = &lattice_;
  cfg.materials = &materials_;
  cfg.boundaries = &resolved_;
  cfg.pml_profile = &pml_profile_;
  cfg.dt = dt_;
  cfg.store_d = store_d;
  cfg.precision = precision_;
  return cfg;
}

void Simulation::add_source(const Source& source) { add_source(discretize(source, lattice_, resolved_)); }

void Simulation::add_source(SourceSamples samples) {
  const std::string name = to_string(samples.component);
  SPIRE_CHECK(lattice_.has(samples.component), ValueError, "Simulation::add_source: a ",
              to_string(lattice_.dimensions()), " problem does not carry ", name);
  SPIRE_CHECK(bool(samples.profile) != bool(samples.distributed), ValueError, "Simulation::add_source (", name,
              "): give exactly one of a time profile and distributed currents");
  SPIRE_CHECK(samples.index.size() == samples.weight.size(), ValueError, "Simulation::add_source (", name, "): ",
              samples.index.size(), " samples but ", samples.weight.size(), " weights");
  for (int64_t idx : samples.index)
    SPIRE_CHECK(idx >= 0 && idx < lattice_.samples(), ValueError, "Simulation::add_source (", name,
                "): sample index ", idx, " outside the lattice's ", lattice_.samples());
  engine_->add_source(samples);
  sources_.push_back(std::move(samples));
}

SimulationState Simulation::save_state() const {
  SimulationState state;
  state.push_back({"steps", {double(steps_)}});
  engine_->save_state(state);
  if (hook_) hook_->save_state(state);
  return state;
}

void Simulation::load_state(const SimulationState& state) {
  const double steps = find_state(state, "steps", 1).values[0];
  SPIRE_CHECK(steps >= 0 && steps == std::floor(steps), ValueError, "Simulation::load_state: bad step count ", steps);
  engine_->load_state(state);
  if (hook_) hook_->load_state(state);
  steps_ = int64_t(steps);
}

void Simulation::set_polarization(std::shared_ptr<PolarizationHook> hook) {
  SPIRE_CHECK(steps_ == 0, ValueError, "Simulation::set_polarization: only before the first step (", steps_,
              " steps taken)");
  const bool had = hook_ != nullptr, has = hook != nullptr;
  if (had == has) {
    hook_ = std::move(hook);
    return;
  }
  // Switch between direct-E and stored-D updates, keeping the fields set so far.
  std::vector<std::pair<Component, std::vector<std::complex<double>>>> kept;
  for (Component c : lattice_.components()) {
    const FieldView v = engine_->view(c);
    std::vector<std::complex<double>> values(size_t(lattice_.samples()));
    for (int64_t i = 0; i < lattice_.samples(); ++i) values[size_t(i)] = v.at(i);
    kept.emplace_back(c, std::move(values));
  }
  // The new engine first: a platform that refuses stored D leaves this run as it was.
  std::unique_ptr<Engine> engine = make_engine(platform_, engine_config(has));
  for (const SourceSamples& s : sources_) engine->add_source(s);
  for (auto& [c, values] : kept) {
    int64_t next = 0;  // set() visits samples in storage order
    engine->set(c, [&](const Vec3&) { return values[size_t(next++)]; }, materials_);
  }
  engine_ = std::move(engine);
  hook_ = std::move(hook);
}

int Simulation::add_step_callback(int64_t every, StepCallback callback) {
  SPIRE_CHECK(every >= 1, ValueError, "Simulation::add_step_callback: every must be >= 1 step, got ", every);
  SPIRE_CHECK(bool(callback), ValueError, "Simulation::add_step_callback: empty callback");
  callbacks_.push_back({next_callback_id_, every, std::move(callback)});
  return next_callback_id_++;
}

void Simulation::remove_step_callback(int id) {
  const auto it = std::find_if(callbacks_.begin(), callbacks_.end(), [&](const Callback& c) { return c.id == id; });
  SPIRE_CHECK(it != callbacks_.end(), ValueError, "Simulation::remove_step_callback: no callback with id ", id);
  callbacks_.erase(it);
}

void Simulation::step() {
  engine_->step(time(), dt_, hook_.get());
  ++steps_;
  // A callback may add or remove callbacks: walk a snapshot of the ids.
  std::vector<int> due;
  for (const Callback& c : callbacks_)
    if (steps_ % c.every == 0) due.push_back(c.id);
  for (int id : due) {
    const auto it = std::find_if(callbacks_.begin(), callbacks_.end(), [&](const Callback& c) { return c.id == id; });
    if (it != callbacks_.end()) {
      StepCallback fn = it->fn;
      fn(*this);
    }
  }
}

void Simulation::run(double until) {
  SPIRE_CHECK(!std::isnan(until), ValueError, "Simulation::run: until is NaN");
  // A tolerance of a millionth of a step keeps until = m dt from taking an extra step to rounding.
  while (time() < until - 1e-6 * dt_) step();
}

void Simulation::run_steps(int64_t steps) {
  SPIRE_CHECK(steps >= 0, ValueError, "Simulation::run_steps: steps must be >= 0, got ", steps);
  for (int64_t i = 0; i < steps; ++i) step();
}

double Simulation::sources_end_time() const {
  double t = -std::numeric_limits<double>::infinity();
  for (const SourceSamples& s : sources_) t = std::max(t, s.end_time());
  return t;
}

FieldView Simulation::field(Component c) const {
  SPIRE_CHECK(lattice_.has(c), ValueError, "Simulation::field: a ", to_string(lattice_.dimensions()),
              " problem does not carry ", to_string(c));
  FieldView v = engine_->view(c);
  v.lattice = &lattice_;
  v.time = is_electric(c) ? time() : time() - 0.5 * dt_;
  return v;
}

void Simulation::set_field(Component c, const std::function<std::complex<double>(const Vec3&)>& value) {
  SPIRE_CHECK(lattice_.has(c), ValueError, "Simulation::set_field: a ", to_string(lattice_.dimensions()),
              " problem does not carry ", to_string(c));
  SPIRE_CHECK(bool(value), ValueError, "Simulation::set_field: empty function");
  engine_->set(c, value, materials_);
}

double Simulation::electric_energy() const { return engine_->electric_energy(materials_); }

double Simulation::magnetic_energy() const {
  // The trial half step leaves the engine as it was; the engine is logically const here.
  return engine_->magnetic_energy(materials_, time(), dt_);
}

double Simulation::energy() const { return electric_energy() + magnetic_energy(); }

}  // namespace spire::elec
