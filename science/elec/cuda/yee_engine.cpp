// The cuda platform's engine over a backend (yee_engine.h).
#include "science/elec/cuda/yee_engine.h"

#include <algorithm>

#include "engine/core/error.h"
#include "science/elec/cpml.h"

namespace spire::elec::cuda {

namespace {

constexpr int64_t kChunk = 4096;  // simulation.cpp's ordered_sum chunk

double cell_volume(const YeeLattice& lattice) {
  double v = 1;
  for (int a = 0; a < 3; ++a)
    if (lattice.has_axis(a)) v *= lattice.dx();
  return v;
}

}  // namespace

void check_supported(const EngineConfig& cfg) {
  const char* runs = "it runs real fields (pec, pmc, periodic and pml boundaries) with non-dispersive media";
  SPIRE_CHECK(!cfg.boundaries->complex_fields(), ConfigError,
              "platform cuda: Bloch boundaries (complex fields) are not supported; ", runs,
              " (use platform cpu for Bloch-periodic problems)");
  SPIRE_CHECK(!cfg.store_d, ConfigError, "platform cuda: dispersive media (a polarisation hook) are not supported; ",
              runs, " (use platform cpu for Drude, Lorentz or Debye media)");
}

template <class T>
YeeEngine<T>::YeeEngine(const EngineConfig& cfg, std::unique_ptr<Backend<T>> backend)
    : lattice_(*cfg.lattice), bc_(*cfg.boundaries), backend_(std::move(backend)) {
  check_supported(cfg);
  co_ = make_update_coefficients<T>(*cfg.materials, lattice_, cfg.dt, false);
  Backend<T>* be = backend_.get();
  const size_t n = size_t(lattice_.samples());
  ArrayPointers<T> ptr;
  auto upload = [&](Array& into, const AlignedVector<T>& from) {
    into = Array(be, from.size());
    into.upload(from.data(), from.size());
    return static_cast<const T*>(into.data());
  };
  for (Component c : lattice_.components()) {
    const size_t ci = size_t(int(c));
    field_[ci] = Array(be, n);
    ptr.field[ci] = field_[ci].data();
    table_.field[ci] = field_[ci].data();
    if (!co_.decay[ci].empty()) {
      ptr.decay[ci] = upload(decay_[ci], co_.decay[ci]);
      AlignedVector<T>().swap(co_.decay[ci]);  // only scale is needed on the host
    }
    if (!co_.scale[ci].empty()) ptr.scale[ci] = upload(scale_[ci], co_.scale[ci]);
    ptr.scale_uniform[ci] = co_.scale_uniform[ci];
    for (int a = 0; a < 3; ++a)
      if (has_psi(lattice_, bc_, c, a)) {
        psi_[ci][size_t(a)] = Array(be, size_t(psi_length(lattice_, bc_, a)));
        ptr.psi[ci][size_t(a)] = psi_[ci][size_t(a)].data();
      }
  }
  // The CPU's own CPML tables.
  const Cpml<T> cpml(lattice_, bc_, *cfg.pml_profile, cfg.dt, false);
  for (int a = 0; a < 3; ++a) {
    const CpmlAxis<T>& ax = cpml.axis(a);
    if (!bc_.axis[size_t(a)].active || !ax.active()) continue;
    ptr.pml_low[size_t(a)] = ax.pml_low;
    ptr.pml_high[size_t(a)] = ax.pml_high;
    for (size_t kind = 0; kind < 2; ++kind) {
      ptr.pml_b[size_t(a)][kind] = upload(pml_b_[size_t(a)][kind], ax.b[kind]);
      ptr.pml_c[size_t(a)][kind] = upload(pml_c_[size_t(a)][kind], ax.c[kind]);
      ptr.pml_kappa_term[size_t(a)][kind] = upload(pml_kappa_term_[size_t(a)][kind], ax.kappa_term[kind]);
    }
  }
  h_plan_ = make_step_plan(lattice_, bc_, ptr, true);
  e_plan_ = make_step_plan(lattice_, bc_, ptr, false);
  // fdtd_update.cpp's zero_walls: on a pec (pmc) axis, the tangential E (H) samples at index 0.
  for (WallPlan<T>* w : {&pec_, &pmc_}) {
    const bool electric = w == &pec_;
    for (int a = 0; a < 3; ++a) w->n[a] = lattice_.n(a);
    for (int axis = 0; axis < 3; ++axis) {
      const AxisBoundary& ab = bc_.axis[size_t(axis)];
      if (!ab.active || ab.wall != (electric ? Wall::pec : Wall::pmc)) continue;
      for (Component c : lattice_.components()) {
        if (is_electric(c) != electric || axis_of(c) == axis) continue;
        w->field[w->count] = field_[size_t(int(c))].data();
        w->axis[w->count] = axis;
        w->plane[w->count] = lattice_.samples() / lattice_.n(axis);
        ++w->count;
      }
    }
  }
}

template <class T>
YeeEngine<T>::~YeeEngine() = default;

template <class T>
void YeeEngine<T>::upload_batch(Batch& b, bool electric) {
  b.host.rebuild(sources_, electric, [this](Component c, int64_t i) { return co_.source_factor(c, i); });
  Backend<T>* be = backend_.get();
  const SourceBatch& h = b.host;
  const size_t n = h.entries();
  b.index = Buffer<int64_t, T>(be, n);
  b.factor = Buffer<double, T>(be, n);
  b.slot = Buffer<int32_t, T>(be, n);
  b.source = Buffer<int32_t, T>(be, n);
  b.component = Buffer<int8_t, T>(be, n);
  b.values = Buffer<double, T>(be, h.upload_size());
  b.index.upload(h.index.data(), n);
  b.factor.upload(h.factor.data(), n);
  b.slot.upload(h.slot.data(), n);
  b.source.upload(h.source.data(), n);
  b.component.upload(h.component.data(), n);
}

template <class T>
void YeeEngine<T>::apply_sources(Batch& b, double t_mid, double dt) {
  if (b.host.empty() || !b.host.fill(sources_, currents_, t_mid, dt, b.upload)) return;
  b.values.upload(b.upload.data(), b.upload.size());
  SourceEntries e;
  e.index = b.index.data();
  e.factor = b.factor.data();
  e.slot = b.slot.data();
  e.source = b.source.data();
  e.component = b.component.data();
  const double* on = b.values.data();
  const double* values = on + sources_.size();
  for (size_t l = 0; l + 1 < b.host.layer_begin.size(); ++l)
    backend_->add_sources(e, b.host.layer_begin[l], b.host.layer_begin[l + 1], on, values, table_);
}

template <class T>
void YeeEngine<T>::step(double t_n, double dt, PolarizationHook* hook) {
  SPIRE_CHECK(hook == nullptr, ConfigError, "platform cuda: polarisation hooks are not supported");
  stale();
  backend_->update(h_plan_, true);
  apply_sources(magnetic_, t_n, dt);
  if (pmc_.count) backend_->zero_walls(pmc_);
  backend_->update(e_plan_, false);
  apply_sources(electric_, t_n + 0.5 * dt, dt);
  if (pec_.count) backend_->zero_walls(pec_);
}

template <class T>
void YeeEngine<T>::add_source(SourceSamples s) {
  sources_.push_back(std::move(s));
  currents_.add();
  // Both kinds: the on flags of a batch span every source of the run.
  upload_batch(magnetic_, false);
  upload_batch(electric_, true);
}

template <class T>
std::vector<T> YeeEngine<T>::download(const Array& a) const {
  std::vector<T> host(a.size());
  a.download(host.data(), host.size());
  return host;
}

template <class T>
FieldView YeeEngine<T>::view(Component c) const {
  const size_t ci = size_t(int(c));
  if (!fresh_[ci]) {
    host_[ci] = download(field_[ci]);
    fresh_[ci] = true;
  }
  FieldView v;
  v.lattice = &lattice_;
  v.component = c;
  v.precision = sizeof(T) == 4 ? Precision::float32 : Precision::float64;
  v.re = host_[ci].data();
  return v;
}

template <class T>
void YeeEngine<T>::set(Component c, const std::function<std::complex<double>(const Vec3&)>& value,
                       const MaterialArrays&) {
  std::vector<T> re(size_t(lattice_.samples()));
  for (int64_t i = 0; i < lattice_.n(0); ++i)
    for (int64_t j = 0; j < lattice_.n(1); ++j)
      for (int64_t k = 0; k < lattice_.n(2); ++k)
        re[size_t(lattice_.index(i, j, k))] = T(value(lattice_.position(c, i, j, k)).real());
  field_[size_t(int(c))].upload(re.data(), re.size());
  const WallPlan<T>& w = is_electric(c) ? pec_ : pmc_;
  if (w.count) backend_->zero_walls(w);
  stale();
}

template <class T>
double YeeEngine<T>::ordered_sum(Component c, const T* a, const T* b, const MaterialArrays& m) const {
  const size_t ci = size_t(int(c));
  const std::vector<double>& inv = m.inverse[ci];
  const int64_t n = lattice_.samples();
  SPIRE_CHECK(int64_t(inv.size()) == n, ValueError, "platform cuda: the energy needs ", n, " values of ",
              is_electric(c) ? "inv_eps" : "inv_mu", " for ", to_string(c), ", got ", inv.size());
  if (inverse_kind_[ci] == 0) {
    if (std::all_of(inv.begin(), inv.end(), [&](double v) { return v == inv[0]; })) {
      inverse_kind_[ci] = 1;
      inverse_uniform_[ci] = inv[0];
    } else {
      inverse_kind_[ci] = 2;
      inverse_[ci] = Buffer<double, T>(backend_.get(), inv.size());
      inverse_[ci].upload(inv.data(), inv.size());
    }
  }
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  if (int64_t(partial_.size()) < chunks) partial_ = Buffer<double, T>(backend_.get(), size_t(chunks));
  backend_->energy_chunks(a, b, inverse_kind_[ci] == 2 ? inverse_[ci].data() : nullptr, inverse_uniform_[ci], n,
                          kChunk, partial_.data());
  std::vector<double> partial(static_cast<size_t>(chunks));
  partial_.download(partial.data(), partial.size());
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

template <class T>
double YeeEngine<T>::electric_energy(const MaterialArrays& m) const {
  double total = 0;
  for (Component c : lattice_.components())
    if (is_electric(c)) {
      const T* e = field_[size_t(int(c))].data();
      total += ordered_sum(c, e, e, m);
    }
  return 0.5 * total * cell_volume(lattice_);
}

template <class T>
double YeeEngine<T>::magnetic_energy(const MaterialArrays& m, double t_n, double dt) {
  // H^{n-1/2} . B^{n+1/2}: a trial H half step, then H and its CPML state restored.
  Backend<T>* be = backend_.get();
  for (Component c : lattice_.components()) {
    if (is_electric(c)) continue;
    const size_t ci = size_t(int(c));
    if (saved_h_[ci].empty()) saved_h_[ci] = Array(be, field_[ci].size());
    be->copy(saved_h_[ci].data(), field_[ci].data(), field_[ci].size() * sizeof(T));
    for (size_t a = 0; a < 3; ++a) {
      if (psi_[ci][a].empty()) continue;
      if (saved_psi_[ci][a].empty()) saved_psi_[ci][a] = Array(be, psi_[ci][a].size());
      be->copy(saved_psi_[ci][a].data(), psi_[ci][a].data(), psi_[ci][a].size() * sizeof(T));
    }
  }
  be->update(h_plan_, true);
  apply_sources(magnetic_, t_n, dt);
  if (pmc_.count) be->zero_walls(pmc_);
  double total = 0;
  for (Component c : lattice_.components())
    if (!is_electric(c)) {
      const size_t ci = size_t(int(c));
      total += ordered_sum(c, saved_h_[ci].data(), field_[ci].data(), m);
    }
  for (Component c : lattice_.components()) {
    if (is_electric(c)) continue;
    const size_t ci = size_t(int(c));
    be->copy(field_[ci].data(), saved_h_[ci].data(), field_[ci].size() * sizeof(T));
    for (size_t a = 0; a < 3; ++a)
      if (!psi_[ci][a].empty()) be->copy(psi_[ci][a].data(), saved_psi_[ci][a].data(), psi_[ci][a].size() * sizeof(T));
  }
  return 0.5 * total * cell_volume(lattice_);
}

template <class T>
void YeeEngine<T>::save_state(SimulationState& out) const {
  auto as_double = [](const std::vector<T>& v) { return std::vector<double>(v.begin(), v.end()); };
  for (Component c : lattice_.components()) {
    const size_t ci = size_t(int(c));
    out.push_back({"E/" + to_string(c) + "/re", as_double(download(field_[ci]))});
    for (int a = 0; a < 3; ++a)
      if (!psi_[ci][size_t(a)].empty()) out.push_back({psi_name(c, a), as_double(download(psi_[ci][size_t(a)]))});
  }
  currents_.save_state(sources_, out);
}

template <class T>
void YeeEngine<T>::load_state(const SimulationState& in) {
  auto load = [&](const std::string& name, Array& into) {
    const StateArray& a = find_state(in, name, int64_t(into.size()));
    std::vector<T> host(a.values.size());
    std::transform(a.values.begin(), a.values.end(), host.begin(), [](double v) { return T(v); });
    into.upload(host.data(), host.size());
  };
  for (Component c : lattice_.components()) {
    const size_t ci = size_t(int(c));
    load("E/" + to_string(c) + "/re", field_[ci]);
    for (int a = 0; a < 3; ++a)
      if (!psi_[ci][size_t(a)].empty()) load(psi_name(c, a), psi_[ci][size_t(a)]);
  }
  currents_.load_state(sources_, in);
  stale();
}

template class YeeEngine<float>;
template class YeeEngine<double>;

}  // namespace spire::elec::cuda
