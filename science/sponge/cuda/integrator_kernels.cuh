// The integrators' per-particle kernel bodies on the cuda platform: the kicks, drifts, velocity
// scaling, Langevin O update and centre-of-mass removal of md_integrator.cpp and langevin.cpp,
// operation for operation, so that a body run on the host gives the CPU's numbers (to the last
// bit where the compiler contracts the same products into fused multiply-adds as the CPU build
// does; within a few ulp otherwise).
//
// Arrays are those of DeviceForceField: 3n doubles x0 y0 z0 x1 ... for positions, velocities and
// forces; masses per particle, 0 for a fixed particle (which nothing here moves).
//
// Sums over particles (the kinetic energy for a thermostat and for Langevin's heat, the momentum
// for centre-of-mass removal) are taken in 64-bit fixed point (fixed_point.cuh): each particle's
// term is rounded to a multiple of 2^-32 and the integers added, so the total has the same bits in
// any order, on any number of threads. A body returns its particle's terms; on the device a block
// adds its threads' integers (exactly) and one atomic per block adds the block's sum; on the host
// (tests) the terms are added one by one, with the same result.
//
// Langevin noise: particle i's normals at step n are Philox blocks 2i and 2i + 1 of the stream
// MdRandom::stream(RandomTag::langevin, n) under the integrator's seed, Box-Muller on each
// (md_random.h's philox_normal4, whose arithmetic is written to give the same bits on every
// device), so a cuda run draws exactly the noise of a cpu run with the same seed.
//
// Also here, in host code: step_scheme(), what a step does for a host integrator (ConfigError for
// what the platform does not run), and advance(), the step's sequence of operations written once
// over an executor, which the device runs as kernel launches and the host tests as loops over these
// bodies, so the tests check the very sequence the GPU follows.
#pragma once
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <memory>

#include "engine/core/error.h"
#include "engine/core/host_device.h"
#include "engine/random/philox.h"
#include "science/sponge/berendsen.h"
#include "science/sponge/bussi.h"
#include "science/sponge/constraints.h"
#include "science/sponge/cuda/device_vec.cuh"
#include "science/sponge/cuda/fixed_point.cuh"
#include "science/sponge/langevin.h"
#include "science/sponge/md_random.h"
#include "science/sponge/nose_hoover.h"
#include "science/sponge/velocity_verlet.h"

namespace spire::sponge::cuda {

// ---- bodies ----

// v_i += (h / m_i) F_i for a mobile particle (MdIntegrator::kick).
SPIRE_HD inline void kick_particle(int64_t i, double h, const double* mass, const double* force, double* velocity) {
  const double m = mass[i];
  if (!(m > 0)) return;
  const double c = h / m;
  for (int k = 0; k < 3; ++k) velocity[3 * i + k] += c * force[3 * i + k];
}

// r_i += h v_i for a mobile particle (MdIntegrator::drift).
SPIRE_HD inline void drift_particle(int64_t i, double h, const double* mass, const double* velocity, double* position) {
  if (!(mass[i] > 0)) return;
  for (int k = 0; k < 3; ++k) position[3 * i + k] += h * velocity[3 * i + k];
}

// The first half of every scheme's step, for one particle: the kick, the reference positions of the
// constraints (when `reference` is given: the positions before the drift), and the drift.
SPIRE_HD inline void kick_drift_particle(int64_t i, double kick, double drift, const double* mass, const double* force,
                                         double* velocity, double* position, double* reference) {
  kick_particle(i, kick, mass, force, velocity);
  if (reference)
    for (int k = 0; k < 3; ++k) reference[3 * i + k] = position[3 * i + k];
  drift_particle(i, drift, mass, velocity, position);
}

// v_i *= s for a mobile particle (MdIntegrator::scale_velocities).
SPIRE_HD inline void scale_particle(int64_t i, double s, const double* mass, double* velocity) {
  if (!(mass[i] > 0)) return;
  for (int k = 0; k < 3; ++k) velocity[3 * i + k] *= s;
}

// m_i |v_i|^2, twice particle i's kinetic energy (MdIntegrator::kinetic_energy sums these, fixed
// particles included: their mass makes them 0).
SPIRE_HD inline double twice_kinetic(int64_t i, const double* mass, const double* velocity) {
  return mass[i] * norm2(load3(velocity, i));
}

// Three standard normals for particle `draw` of Philox stream `stream` under `seed`: blocks 2 draw
// and 2 draw + 1, Box-Muller on each, the fourth normal unused (md_random.h's MdRandom::normal3).
SPIRE_HD inline V3 philox_normal3(uint64_t seed, uint64_t stream, uint64_t draw) {
  V3 z;
  double unused;
  philox::Block b = philox::block(seed, stream, 2 * draw);
  philox::box_muller(philox::unit_double_open0(b[0], b[1]), philox::unit_double(b[2], b[3]), z.x, z.y);
  b = philox::block(seed, stream, 2 * draw + 1);
  philox::box_muller(philox::unit_double_open0(b[0], b[1]), philox::unit_double(b[2], b[3]), z.z, unused);
  return z;
}

// What the Langevin O update of one step needs: a = exp(-gamma dt), b2kt = (1 - a^2) k_B T, and the
// noise's seed and stream (MdRandom::stream(RandomTag::langevin, step)).
struct LangevinStep {
  double a = 1, b2kt = 0;
  uint64_t seed = 0, stream = 0;
};

// Particle i's noise sqrt((1 - a^2) k_B T / m) R (zero for a fixed particle), as LangevinMiddle::advance.
SPIRE_HD inline V3 langevin_noise(int64_t i, const LangevinStep& o, const double* mass) {
  const double m = mass[i];
  if (!(m > 0)) return V3{};
  return philox_normal3(o.seed, o.stream, uint64_t(i)) * std::sqrt(o.b2kt / m);
}

// The O update of particle i: v = a v + noise, the noise given (projected onto the constraints) or,
// when `noise` is null, drawn here. Returns m |v|^2 before (first) and after (second) the update,
// the terms of the heat the update adds.
struct KineticPair {
  double before = 0, after = 0;
};
SPIRE_HD inline KineticPair langevin_o_particle(int64_t i, const LangevinStep& o, const double* mass,
                                                const double* noise, double* velocity) {
  KineticPair k;
  k.before = twice_kinetic(i, mass, velocity);
  if (mass[i] > 0) {
    const V3 r = noise ? load3(noise, i) : langevin_noise(i, o, mass);
    const V3 v = load3(velocity, i) * o.a + r;
    velocity[3 * i] = v.x, velocity[3 * i + 1] = v.y, velocity[3 * i + 2] = v.z;
  }
  k.after = twice_kinetic(i, mass, velocity);
  return k;
}

// m_i v_i for a mobile particle (the centre of mass's momentum, MdIntegrator::step), else 0.
SPIRE_HD inline V3 particle_momentum(int64_t i, const double* mass, const double* velocity) {
  const double m = mass[i];
  if (m == 0) return V3{};
  return load3(velocity, i) * m;
}

// The centre of mass's velocity from the fixed-point momentum and the mobile particles' mass.
SPIRE_HD inline V3 com_velocity(const long long* momentum, double total_mass) {
  return {from_fixed(momentum[0]) / total_mass, from_fixed(momentum[1]) / total_mass,
          from_fixed(momentum[2]) / total_mass};
}

// v_i -= v_com for a mobile particle.
SPIRE_HD inline void remove_com_particle(int64_t i, const V3& v_com, const double* mass, double* velocity) {
  if (!(mass[i] > 0)) return;
  velocity[3 * i] -= v_com.x, velocity[3 * i + 1] -= v_com.y, velocity[3 * i + 2] -= v_com.z;
}

// The kinetic energy the centre of mass's removal takes out (booked as heat: heat -= this).
SPIRE_HD inline double com_kinetic(const V3& v_com, double total_mass) { return 0.5 * total_mass * norm2(v_com); }

// LangevinMiddle's heat of one O update, middle_kinetic_ - before, from the sums of m v^2 before
// (kinetic[0]) and after (kinetic[1]).
SPIRE_HD inline double langevin_heat_change(const long long* kinetic) {
  return 0.5 * from_fixed(kinetic[1]) - 0.5 * from_fixed(kinetic[0]);
}

// ---- the step ----

// Where a step's fixed-point sums go (zeroed at its start, so what is left after a chunk of steps
// is its last step's: the constraint virial the host reports).
enum StepSlot : int {
  kKineticBefore = 0,      // Langevin's O update: m v^2 before (0) and after (1)
  kThermostatKinetic = 2,  // the thermostat's half steps: 2 and 3
  kMomentum = 4,           // 4, 5, 6
  kPositionVirial = 7,     // 7 .. 15: SHAKE and SETTLE (and LangevinMiddle's projection after its kick)
  kVelocityVirial = 16,    // 16 .. 24: RATTLE and SETTLE's velocity part
  kStepSlots = 25
};

// What a step does, fixed for a run.
struct StepScheme {
  bool langevin = false;     // LangevinMiddle; else VelocityVerlet
  bool thermostat = false;   // VelocityVerlet's, through Ops::thermostat_factor
  bool constrained = false;  // SHAKE/RATTLE clusters or SETTLE waters
  bool remove_com = true;
  double dt = 0, friction = 0;
  double total_mass = 0;  // of the mobile particles
  LangevinStep o;         // a, b2kt and seed; the stream is the step's
  ConstraintOptions constraints;
};

inline const char* const kCudaRuns =
    "the cuda platform runs velocity_verlet (NVE, or with a bussi, berendsen or nose_hoover thermostat) and "
    "langevin_middle, with SHAKE/RATTLE and SETTLE constraints and without a barostat";

// A copy of a thermostat, to compute its factors on the host from the device's kinetic energies:
// the same class and settings, so the same physics and the same random draws. ConfigError for a
// kind it does not know.
inline ThermostatPtr copy_thermostat(const Thermostat& t) {
  if (auto* b = dynamic_cast<const BussiThermostat*>(&t))
    return std::make_shared<BussiThermostat>(b->temperature(), b->time_constant(), b->seed());
  if (auto* b = dynamic_cast<const BerendsenThermostat*>(&t))
    return std::make_shared<BerendsenThermostat>(b->temperature(), b->time_constant());
  if (auto* c = dynamic_cast<const NoseHooverChain*>(&t))
    return std::make_shared<NoseHooverChain>(c->temperature(), c->time_constant(), c->options());
  throw ConfigError(detail::cat("platform cuda: the thermostat ", t.name(), " has no copy here; ", kCudaRuns));
}

// The scheme of a host integrator for `system`, its thermostat copied (and set up) into
// `thermostat` (null without one). ConfigError naming what the cuda platform runs for another
// integrator or a barostat; Constraints' ValueErrors for bad constraints.
inline StepScheme step_scheme(const System& system, const Integrator& integrator, ThermostatPtr& thermostat) {
  const auto* verlet = dynamic_cast<const VelocityVerlet*>(&integrator);
  const auto* langevin = dynamic_cast<const LangevinMiddle*>(&integrator);
  SPIRE_CHECK(verlet || langevin, ConfigError, "platform cuda: the integrator ", integrator.name(),
              " has no CUDA kernels; ", kCudaRuns);
  const MdIntegrator& md = verlet ? static_cast<const MdIntegrator&>(*verlet) : *langevin;
  SPIRE_CHECK(!md.barostat(), ConfigError, "platform cuda: the ", md.barostat() ? md.barostat()->name() : "",
              " barostat runs on the cpu platform only; ", kCudaRuns);
  StepScheme s;
  s.langevin = langevin != nullptr;
  s.dt = integrator.dt();
  s.remove_com = md.options().remove_com_motion;
  s.constraints = md.options().constraints;
  s.constrained = !Constraints(system, s.constraints).empty();
  thermostat = nullptr;
  if (verlet && verlet->thermostat()) {
    s.thermostat = true;
    thermostat = copy_thermostat(*verlet->thermostat());
    thermostat->setup(system.degrees_of_freedom(s.remove_com), system.units.boltzmann);
  }
  if (langevin) {
    // LangevinMiddle::advance's coefficients, computed as it computes them.
    s.friction = langevin->friction();
    s.o.a = std::exp(-s.friction * s.dt);
    const double kt = system.units.boltzmann * langevin->temperature();
    const double b2 = -std::expm1(-2 * s.friction * s.dt);
    s.o.b2kt = b2 * kt;
    s.o.seed = langevin->seed();
  }
  // The centre of mass's mass as MdIntegrator::step sums it: the mobile particles in order.
  for (double m : system.mass)
    if (m != 0) s.total_mass += m;
  return s;
}

// One step (MdIntegrator::step with VelocityVerlet's or LangevinMiddle's advance) from step
// `step`, written once over the operations of an executor: the device's (kernel launches on its
// stream, cuda_dynamics.cpp) or the host tests' (loops over the bodies, with the cpu's forces), so
// the tests run this very sequence. The caller then advances its clock (time += dt, step += 1)
// after advance(): centre-of-mass removal, the last part, does not depend on it. Ops provides
//   zero_sums(); kick_drift(kick, drift) (the kick, the constraints' reference, the drift);
//   drift(h); kick(h); scale(s); twice_kinetic(slot) -> the fixed-point sum of m v^2, waited for;
//   thermostat_factor(kinetic, step, half); langevin_noise(o); constrain_noise(); langevin_o(o,
//   projected); langevin_heat(); constrain_positions(dt, position_factor); compute_forces();
//   constrain_velocities(velocity_factor, virial slot); remove_com(total_mass).
template <class Ops>
void advance(Ops& ops, const StepScheme& s, int64_t step) {
  const double h = 0.5 * s.dt;
  // MdIntegrator::finish_step: SHAKE/SETTLE, the forces at the new positions, the last half kick,
  // RATTLE/SETTLE on the velocities.
  auto finish = [&] {
    if (s.constrained) ops.constrain_positions(s.dt, 0.5 * s.dt * s.dt);
    ops.compute_forces();
    ops.kick(h);
    if (s.constrained) ops.constrain_velocities(h, kVelocityVirial);
  };
  // VelocityVerlet::thermostat_half: the factor for the kinetic energy now (1 changes no bit and
  // is not applied).
  auto thermostat_half = [&](int half) {
    const double kinetic = 0.5 * from_fixed(ops.twice_kinetic(kThermostatKinetic + half));
    const double factor = ops.thermostat_factor(kinetic, step, half);
    if (factor != 1) ops.scale(factor);
  };
  ops.zero_sums();
  if (!s.langevin) {
    if (s.thermostat) thermostat_half(0);
    ops.kick_drift(h, s.dt);
    finish();
    if (s.thermostat) thermostat_half(1);
  } else {
    if (s.constrained) {
      // LangevinMiddle::advance: the kicked velocities projected onto the constraints (into the
      // position stage of the constraint virial), then the reference and the drift (a kick of 0
      // changes no bit).
      ops.kick(h);
      ops.constrain_velocities(h, kPositionVirial);
      ops.kick_drift(0, h);
    } else {
      ops.kick_drift(h, h);
    }
    if (s.friction > 0) {
      LangevinStep o = s.o;
      o.stream = MdRandom::stream(RandomTag::langevin, uint64_t(step));
      if (s.constrained) {
        // The noise in the constraints' tangent space at the step's starting positions.
        ops.langevin_noise(o);
        ops.constrain_noise();
      }
      ops.langevin_o(o, s.constrained);
      ops.langevin_heat();
    }
    ops.drift(h);
    finish();
  }
  if (s.remove_com && s.total_mass > 0) ops.remove_com(s.total_mass);
}

// ---- fixed-point sums over a block (device) ----

#if defined(__CUDACC__)
// Adds each thread's values[k] to totals[k]: the block's integers summed exactly (warp shuffles,
// then one warp over the warps' sums), one atomic per value per block. Every thread of the block
// must call it (threads without an item pass zeros); blockDim.x a multiple of 32, at most 1024.
template <int K>
__device__ inline void block_commit(long long* totals, const long long (&values)[K]) {
  __shared__ unsigned long long warp_sums[K][32];
  const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5), warps = int((blockDim.x + 31) >> 5);
  __syncthreads();  // a previous call's readers are done with warp_sums
  for (int k = 0; k < K; ++k) {
    unsigned long long s = (unsigned long long)values[k];
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (lane == 0) warp_sums[k][warp] = s;
  }
  __syncthreads();
  if (warp != 0) return;
  for (int k = 0; k < K; ++k) {
    unsigned long long s = lane < warps ? warp_sums[k][lane] : 0ull;
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (lane == 0 && s != 0) atomicAdd(reinterpret_cast<unsigned long long*>(totals + k), s);
  }
}
#endif

// ---- launches (integrator_kernels.cu), asynchronous on `stream`, over n particles ----

void launch_kick_drift(int64_t n, double kick, double drift, const double* mass, const double* force, double* velocity,
                       double* position, double* reference, cudaStream_t stream);
void launch_kick(int64_t n, double h, const double* mass, const double* force, double* velocity, cudaStream_t stream);
void launch_drift(int64_t n, double h, const double* mass, const double* velocity, double* position,
                  cudaStream_t stream);
void launch_scale(int64_t n, double s, const double* mass, double* velocity, cudaStream_t stream);
// *total += sum m |v|^2 in fixed point.
void launch_twice_kinetic(int64_t n, const double* mass, const double* velocity, long long* total, cudaStream_t stream);
// noise (3n) = each particle's Langevin noise.
void launch_langevin_noise(int64_t n, const LangevinStep& o, const double* mass, double* noise, cudaStream_t stream);
// The O update (noise null: drawn in the kernel); kinetic[0] += sum m |v|^2 before, kinetic[1] after.
void launch_langevin_o(int64_t n, const LangevinStep& o, const double* mass, const double* noise, double* velocity,
                       long long* kinetic, cudaStream_t stream);
// *heat += (after - before) / 2 from kinetic[0..1] (LangevinMiddle's heat), on one thread.
void launch_langevin_heat(const long long* kinetic, double* heat, cudaStream_t stream);
// momentum[0..2] += sum m v over the mobile particles.
void launch_momentum(int64_t n, const double* mass, const double* velocity, long long* momentum, cudaStream_t stream);
// v -= P / M for the mobile particles, and *heat -= M |P / M|^2 / 2 (MdIntegrator::step).
void launch_remove_com(int64_t n, double total_mass, const double* mass, const long long* momentum, double* velocity,
                       double* heat, cudaStream_t stream);

}  // namespace spire::sponge::cuda
