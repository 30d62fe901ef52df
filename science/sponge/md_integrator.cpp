// The parts every particle integrator shares (md_integrator.h).
#include "science/sponge/md_integrator.h"

#include <algorithm>

#include "engine/core/error.h"
#include "science/sponge/saved_state.h"

namespace spire::sponge {

namespace {
// Loops over particles run threaded above this size; sums are taken per fixed chunk and the
// chunks added in order, so the bits do not depend on the thread count.
constexpr int64_t kParallelAbove = 20000;
constexpr int64_t kSumChunk = 4096;
}  // namespace

MdIntegrator::MdIntegrator(double dt, DynamicsOptions options) : Integrator(dt), options_(options) {}

void MdIntegrator::prepare(const System& system, State& state, ForceField& forces) {
  system.check();
  const int64_t n = system.size();
  SPIRE_CHECK(int64_t(state.positions.size()) == n, ValueError, name(), ": the state has ", state.positions.size(),
              " positions for a system of ", n, " particles");
  if (state.velocities.empty()) state.velocities.assign(size_t(n), Vec3{});
  SPIRE_CHECK(int64_t(state.velocities.size()) == n, ValueError, name(), ": the state has ",
              state.velocities.size(), " velocities for a system of ", n, " particles (or give none: zero)");
  constraints_ = Constraints(system, options_.constraints);
  dof_ = system.degrees_of_freedom(options_.remove_com_motion);
  if (!constraints_.empty()) {
    const double tol = options_.constraints.tolerance;
    if (constraints_.max_deviation(state.box, state.positions) > tol) {
      reference_ = state.positions;
      try {
        constraints_.constrain_positions(state.box, reference_, state.positions, nullptr, dt_, nullptr, 1);
      } catch (const ValueError& e) {
        throw ValueError(detail::cat(name(), ": the initial positions are too far from the constraints to be put "
                                     "on them: ", e.what()));
      }
    }
    if (constraints_.max_velocity_deviation(state.box, state.positions, state.velocities) > tol)
      constraints_.constrain_velocities(state.box, state.positions, state.velocities, nullptr, 1);
  }
  setup(system);
  if (barostat_) barostat_->setup(system, state);
  forces.compute(system, state);
  prepared_size_ = n;
}

void MdIntegrator::step(const System& system, State& state, ForceField& forces) {
  if (prepared_size_ != system.size() || forces.result().forces.size() != state.positions.size())
    prepare(system, state, forces);
  advance(system, state, forces);
  state.time += dt_;
  state.step += 1;
  if (options_.remove_com_motion) {
    // Mass-weighted mean velocity, summed in particle order.
    Vec3 momentum;
    double mass = 0;
    for (int64_t i = 0; i < system.size(); ++i) {
      const double m = system.mass[size_t(i)];
      if (m == 0) continue;
      momentum += m * state.velocities[size_t(i)];
      mass += m;
    }
    if (mass > 0) {
      const Vec3 v_com = momentum / mass;
      heat_ -= 0.5 * mass * norm2(v_com);
      const int64_t n = system.size();
#pragma omp parallel for schedule(static) if (n > kParallelAbove)
      for (int64_t i = 0; i < n; ++i)
        if (system.mass[size_t(i)] > 0) state.velocities[size_t(i)] -= v_com;
    }
  }
  if (barostat_ && state.step % barostat_->frequency() == 0) barostat_->apply(system, state, forces, *this);
}

void MdIntegrator::kick(const System& system, State& state, const ForceField& forces, double h) const {
  const int64_t n = system.size();
  const std::vector<Vec3>& f = forces.result().forces;
#pragma omp parallel for schedule(static) if (n > kParallelAbove)
  for (int64_t i = 0; i < n; ++i) {
    const double m = system.mass[size_t(i)];
    if (m > 0) state.velocities[size_t(i)] += (h / m) * f[size_t(i)];
  }
}

void MdIntegrator::drift(const System& system, State& state, double h) const {
  const int64_t n = system.size();
#pragma omp parallel for schedule(static) if (n > kParallelAbove)
  for (int64_t i = 0; i < n; ++i)
    if (system.mass[size_t(i)] > 0) state.positions[size_t(i)] += h * state.velocities[size_t(i)];
}

double MdIntegrator::kinetic_energy(const System& system, const std::vector<Vec3>& velocities) const {
  const int64_t n = system.size();
  const int64_t chunks = (n + kSumChunk - 1) / kSumChunk;
  std::vector<double> partial(size_t(chunks), 0.0);
#pragma omp parallel for schedule(static) if (n > kParallelAbove)
  for (int64_t c = 0; c < chunks; ++c) {
    double s = 0;
    for (int64_t i = c * kSumChunk; i < std::min(n, (c + 1) * kSumChunk); ++i)
      s += system.mass[size_t(i)] * norm2(velocities[size_t(i)]);
    partial[size_t(c)] = s;
  }
  double total = 0;
  for (double p : partial) total += p;
  return 0.5 * total;
}

void MdIntegrator::scale_velocities(const System& system, State& state, double s) const {
  const int64_t n = system.size();
#pragma omp parallel for schedule(static) if (n > kParallelAbove)
  for (int64_t i = 0; i < n; ++i)
    if (system.mass[size_t(i)] > 0) state.velocities[size_t(i)] *= s;
}

void MdIntegrator::finish_step(const System& system, State& state, ForceField& forces) {
  const double h = 0.5 * dt_;
  Mat3 position_virial, velocity_virial;
  if (!constraints_.empty())
    constraints_.constrain_positions(state.box, reference_, state.positions, &state.velocities, dt_,
                                     &position_virial, 0.5 * dt_ * dt_);
  forces.compute(system, state);
  kick(system, state, forces, h);
  if (!constraints_.empty())
    constraints_.constrain_velocities(state.box, state.positions, state.velocities, &velocity_virial, h);
  constraint_virial_ = (position_virial + kick_projection_virial_ + velocity_virial) * 0.5;
  kick_projection_virial_ = Mat3();
}

double MdIntegrator::conserved_energy(const System& system, const State& state, const ForceField& forces) const {
  double e = kinetic_energy(system, state.velocities) + forces.result().energy() + thermostat_energy() - heat_;
  if (barostat_) e -= barostat_->work();
  return e;
}

IntegratorState MdIntegrator::save_state() const {
  IntegratorState out;
  out["integrator.heat"] = {heat_};
  save_scheme(out);
  if (barostat_) barostat_->save_state(out);
  return out;
}

void MdIntegrator::load_state(const IntegratorState& in) {
  heat_ = saved_value(in, "integrator.heat");
  load_scheme(in);
  if (barostat_) barostat_->load_state(in);
}

}  // namespace spire::sponge
