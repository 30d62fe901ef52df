// DeviceForceField (device_force_field.h): the CPU terms' parameters uploaded once, and per
// compute() the neighbour list brought up to date, then the kernels of neighbor_kernels.cuh,
// nonbonded_kernels.cuh, pme_kernels.cuh and bonded_kernels.cuh in turn on one stream, every
// contribution added in fixed point, and the forces converted to doubles last. The energies and
// virial stay on the device as fixed-point totals until download(), which adds the parts that
// depend on the box alone (force_parameters.h).
#include "science/sponge/cuda/device_force_field.h"

#include <cufft.h>

#include <algorithm>
#include <array>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "engine/backends/cuda/runtime.h"
#include "engine/core/error.h"
#include "science/sponge/cuda/device_buffer.h"
#include "science/sponge/cuda/force_parameters.h"

namespace spire::sponge::cuda {
namespace {

void check_cufft(cufftResult result, const char* what) {
  if (result != CUFFT_SUCCESS)
    throw DeviceError(::spire::detail::cat("cufft: ", what, " failed with cufftResult ", int(result),
                                  " (see cufft.h's cufftResult_t for its meaning)"));
}

// One value at `device` (waits for the stream).
template <class T>
T read_back(const T* device, cudaStream_t stream) {
  T value{};
  SPIRE_CUDA_CHECK(cudaMemcpyAsync(&value, device, sizeof(T), cudaMemcpyDeviceToHost, stream),
                   "cudaMemcpyAsync (sponge read back)");
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize (sponge read back)");
  return value;
}

// The number of low bits that hold every key below `count`.
int key_bits(int64_t count) {
  int bits = 1;
  while ((int64_t(1) << bits) < count) ++bits;
  return bits;
}

}  // namespace

struct DeviceForceField::Impl {
  ForceParameters p;
  cudaStream_t stream;

  DeviceBuffer<double> charge, mass, lj_table, erf[4];
  DeviceBuffer<int> type;
  DeviceBuffer<int64_t> excl_offsets;
  DeviceBuffer<int32_t> excl_partners;
  DeviceBuffer<IndexPair> exclusions;
  DeviceBuffer<Pair14> pairs14;
  DeviceBuffer<Bond> bonds;
  DeviceBuffer<Angle> angles;
  DeviceBuffer<Torsion> torsions;
  DeviceBuffer<Improper> impropers;
  DeviceBuffer<RestraintTerm> restraints;

  DeviceBuffer<long long> force_fixed, totals;

  // The neighbour list and its build workspace.
  DeviceBuffer<double> reference, wrapped, sorted_x;
  DeviceBuffer<int> cell, index, sorted_cell, sorted_index, cell_start, flags;  // flags: moved, bad particle
  DeviceBuffer<int64_t> counts, offsets;
  DeviceBuffer<int32_t> neighbors;
  DeviceBuffer<unsigned char> scratch;
  DeviceBuffer<Bounds> bounds;
  Box list_box;
  int64_t builds = 0;

  // PME: the mesh (fixed at the first evaluation, as the CPU term's), its plans and arrays.
  std::array<int, 3> mesh{};
  cufftHandle forward = 0, backward = 0;
  bool planned = false;
  DeviceBuffer<int> pme_index;
  DeviceBuffer<double> theta, dtheta, mesh_real, spectrum, moduli;
  DeviceBuffer<long long> mesh_fixed;

  Box box;  // of the latest compute()
  bool computed = false;

  Impl(const System& system, const ForceField& forces, cudaStream_t s) : p(force_parameters(system, forces)), stream(s) {
    const int64_t n = p.particles;
    charge.upload(p.charge, stream);
    mass.upload(p.mass, stream);
    type.upload(p.type, stream);
    lj_table.upload(p.lj_table, stream);
    for (int k = 0; k < 4; ++k) erf[k].upload(p.erf_table[k], stream);
    excl_offsets.upload(p.excl_offsets, stream);
    excl_partners.upload(p.excl_partners, stream);
    exclusions.upload(p.exclusions, stream);
    pairs14.upload(p.pairs14, stream);
    bonds.upload(p.bonds, stream);
    angles.upload(p.angles, stream);
    torsions.upload(p.torsions, stream);
    impropers.upload(p.impropers, stream);
    restraints.upload(p.restraints, stream);
    force_fixed.resize(size_t(3 * n));
    totals.resize(size_t(p.slots()));
    if (p.list_cutoff > 0) {
      for (DeviceBuffer<double>* b : {&reference, &wrapped, &sorted_x}) b->resize(size_t(3 * n));
      for (DeviceBuffer<int>* b : {&cell, &index, &sorted_cell, &sorted_index}) b->resize(size_t(n));
      flags.resize(2);
      counts.resize(size_t(n + 1));
      offsets.resize(size_t(n + 1));
      bounds.resize(1);
    }
    // The uploads read host vectors that live as long as this object; wait anyway, so that a
    // failure shows here rather than in the first compute().
    SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize (sponge force field upload)");
  }

  ~Impl() {
    if (planned) cufftDestroy(forward), cufftDestroy(backward);
  }

  void update_list(const double* x, const Box& b) {
    bool stale = builds == 0 || !(b == list_box);
    if (!stale) {
      MovedArgs m;
      m.x = x, m.reference = reference.data(), m.box = DeviceBox::of(b);
      m.limit = 0.25 * p.skin * p.skin;
      m.moved = flags.data();
      SPIRE_CUDA_CHECK(cudaMemsetAsync(flags.data(), 0, sizeof(int), stream), "cudaMemsetAsync (sponge moved flag)");
      launch_neighbor_moved(m, p.particles, stream);
      stale = read_back(flags.data(), stream) != 0;
    }
    if (stale) build_list(x, b);
  }

  void build_list(const double* x, const Box& b) {
    const int64_t n = p.particles;
    Bounds extent{};
    if (!b.periodic() && n > 0) {
      launch_neighbor_bounds(x, n, bounds.data(), stream);
      extent = read_back(bounds.data(), stream);
    }
    NeighborArgs a;
    a.x = x, a.n = n, a.box = DeviceBox::of(b);
    a.grid = neighbor_grid(p, b, b.periodic() ? nullptr : &extent);
    const int64_t ncells = a.grid.cells();
    cell_start.resize(size_t(ncells + 1));
    a.wrapped = wrapped.data(), a.cell = cell.data(), a.index = index.data();
    a.sorted_cell = sorted_cell.data(), a.sorted_index = sorted_index.data();
    a.cell_start = cell_start.data(), a.sorted_x = sorted_x.data();
    a.excl_offsets = excl_offsets.data(), a.excl_partners = excl_partners.data();
    a.counts = counts.data(), a.offsets = offsets.data();
    a.bad = flags.data() + 1;
    const int none[2] = {0, int(n)};
    flags.upload(none, 2, stream);
    counts.zero(stream);
    // Workspace for the sort and the scan, sized for both before either runs: growing it between
    // them would free memory the sort may still be using.
    const int bits = key_bits(ncells);
    size_t sort_bytes = 0, scan_bytes = 0;
    SPIRE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, cell.data(), sorted_cell.data(), index.data(),
                                                     sorted_index.data(), n, 0, bits, stream),
                     "cub::DeviceRadixSort::SortPairs (sizing)");
    SPIRE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.data(), offsets.data(), n + 1, stream),
                     "cub::DeviceScan::ExclusiveSum (sizing)");
    scratch.resize(std::max<size_t>({sort_bytes, scan_bytes, 1}));
    if (n > 0) {
      launch_neighbor_bin(a, stream);
      // Stable: within a cell the particles keep their ascending order.
      SPIRE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.data(), sort_bytes, cell.data(), sorted_cell.data(),
                                                       index.data(), sorted_index.data(), n, 0, bits, stream),
                       "cub::DeviceRadixSort::SortPairs (neighbour cells)");
      launch_neighbor_cell_start(a, stream);
      launch_neighbor_gather(a, stream);
      launch_neighbor_rows(a, false, stream);
    }
    SPIRE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), scan_bytes, counts.data(), offsets.data(), n + 1, stream),
                     "cub::DeviceScan::ExclusiveSum (neighbour rows)");
    const int bad = read_back(flags.data() + 1, stream);
    SPIRE_CHECK(bad >= n, ValueError, "NeighborList: particle ", bad,
                " has a non-finite position: the simulation has blown up or was never initialised");
    const int64_t pairs = read_back(offsets.data() + n, stream);
    neighbors.resize(size_t(pairs));
    a.neighbors = neighbors.data();
    launch_neighbor_rows(a, true, stream);
    if (n > 0)
      SPIRE_CUDA_CHECK(cudaMemcpyAsync(reference.data(), x, size_t(3 * n) * sizeof(double), cudaMemcpyDeviceToDevice, stream),
                       "cudaMemcpyAsync (sponge list reference)");
    list_box = b;
    ++builds;
  }

  void plan_mesh(const Box& b) {
    mesh = pme_mesh(p, b);
    check_cufft(cufftPlan3d(&forward, mesh[0], mesh[1], mesh[2], CUFFT_D2Z), "cufftPlan3d (pme, D2Z)");
    const cufftResult made = cufftPlan3d(&backward, mesh[0], mesh[1], mesh[2], CUFFT_Z2D);
    if (made != CUFFT_SUCCESS) {
      cufftDestroy(forward);
      check_cufft(made, "cufftPlan3d (pme, Z2D)");
    }
    planned = true;
    check_cufft(cufftSetStream(forward, stream), "cufftSetStream (pme, D2Z)");
    check_cufft(cufftSetStream(backward, stream), "cufftSetStream (pme, Z2D)");
    moduli.upload(pme_moduli(p.pme_order, mesh), stream);
    const int64_t points = int64_t(mesh[0]) * mesh[1] * mesh[2];
    const int64_t half_points = int64_t(mesh[0]) * mesh[1] * (mesh[2] / 2 + 1);
    mesh_fixed.resize(size_t(points));
    mesh_real.resize(size_t(points));
    spectrum.resize(size_t(2 * half_points));
    pme_index.resize(size_t(3 * p.particles));
    theta.resize(size_t(3 * p.particles * p.pme_order));
    dtheta.resize(size_t(3 * p.particles * p.pme_order));
    // The moduli come from a temporary: wait until they are on the device.
    SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize (pme moduli)");
  }

  void reciprocal(const double* x, const Box& b) {
    if (!planned) plan_mesh(b);
    PmeArgs a;
    a.x = x, a.charge = charge.data();
    a.c = pme_constants(p, mesh, b);
    a.index = pme_index.data(), a.theta = theta.data(), a.dtheta = dtheta.data();
    a.mesh_fixed = mesh_fixed.data(), a.mesh = mesh_real.data(), a.spectrum = spectrum.data();
    a.moduli = moduli.data();
    a.force = force_fixed.data();
    a.slots.totals = totals.data(), a.slots.energy[0] = p.coulomb_slot, a.slots.virial = p.virial_slot;
    mesh_fixed.zero(stream);
    launch_pme_spline(a, p.particles, stream);
    launch_pme_spread(a, p.particles, stream);
    launch_pme_to_real(a, stream);
    check_cufft(cufftExecD2Z(forward, mesh_real.data(), reinterpret_cast<cufftDoubleComplex*>(spectrum.data())),
                "cufftExecD2Z (pme)");
    launch_pme_convolve(a, stream);
    check_cufft(cufftExecZ2D(backward, reinterpret_cast<cufftDoubleComplex*>(spectrum.data()), mesh_real.data()),
                "cufftExecZ2D (pme)");
    launch_pme_interpolate(a, p.particles, stream);
  }

  void compute(const double* x, const Box& b, double* forces) {
    const int64_t n = p.particles;
    SPIRE_CHECK(!p.lj_tail || b.periodic(), ValueError,
                "LennardJones: tail corrections need a periodic box (a density); this one has none");
    if (p.list_cutoff > 0) update_list(x, b);
    force_fixed.zero(stream);
    totals.zero(stream);
    const DeviceBox db = DeviceBox::of(b);
    auto slots = [&](int e0, int e1) {
      TallySlots s;
      s.totals = totals.data(), s.energy[0] = e0, s.energy[1] = e1, s.virial = p.virial_slot;
      return s;
    };
    if (p.lj_slot >= 0 || p.coulomb_slot >= 0) {
      NonbondedArgs a;
      a.x = x, a.box = db, a.offsets = offsets.data(), a.neighbors = neighbors.data();
      a.lj = p.lj, a.type = type.data(), a.lj_table = lj_table.data();
      a.coulomb = p.coulomb, a.charge = charge.data();
      for (int k = 0; k < 4; ++k) a.erf_c[k] = erf[k].data();
      a.force = force_fixed.data();
      a.slots = slots(p.lj_slot, p.coulomb_slot);
      launch_nonbonded_rows(a, n, stream);

      Pair14Args q;
      q.x = x, q.box = db, q.pairs = pairs14.data(), q.lj = p.lj, q.type = type.data(), q.lj_table = lj_table.data();
      q.coulomb = p.coulomb_slot >= 0, q.prefactor = p.coulomb.prefactor, q.charge = charge.data();
      q.force = force_fixed.data();
      q.slots = slots(p.lj_slot, p.coulomb_slot);
      launch_pairs14(q, int64_t(p.pairs14.size()), stream);
    }
    if (p.pme) {
      SPIRE_CHECK(b.periodic(), ValueError, "pme: needs a periodic box");
      ExclusionArgs e;
      e.x = x, e.box = db, e.pairs = exclusions.data(), e.charge = charge.data();
      e.prefactor = p.coulomb.prefactor, e.alpha = p.coulomb.alpha;
      e.force = force_fixed.data();
      e.slots = slots(p.coulomb_slot, -1);
      launch_ewald_exclusions(e, int64_t(p.exclusions.size()), stream);
      reciprocal(x, b);
    }
    auto bonded = [&](auto& args, const auto* terms, int slot) {
      args.x = x, args.box = db, args.terms = terms, args.force = force_fixed.data(), args.slots = slots(slot, -1);
    };
    if (p.bonds_slot >= 0) {
      BondedArgs<Bond> a;
      bonded(a, bonds.data(), p.bonds_slot);
      launch_bonds(a, int64_t(p.bonds.size()), stream);
    }
    if (p.angles_slot >= 0) {
      BondedArgs<Angle> a;
      bonded(a, angles.data(), p.angles_slot);
      launch_angles(a, int64_t(p.angles.size()), stream);
    }
    if (p.torsions_slot >= 0) {
      BondedArgs<Torsion> a;
      bonded(a, torsions.data(), p.torsions_slot);
      launch_torsions(a, int64_t(p.torsions.size()), stream);
    }
    if (p.impropers_slot >= 0) {
      BondedArgs<Improper> a;
      bonded(a, impropers.data(), p.impropers_slot);
      launch_impropers(a, int64_t(p.impropers.size()), stream);
    }
    if (p.restraints_slot >= 0) {
      BondedArgs<RestraintTerm> a;
      bonded(a, restraints.data(), p.restraints_slot);
      launch_restraints(a, int64_t(p.restraints.size()), stream);
    }
    if (p.field_slot >= 0) {
      FieldArgs f;
      f.x = x, f.charge = charge.data(), f.mass = mass.data();
      for (int k = 0; k < 3; ++k) f.field[k] = p.field[k], f.acceleration[k] = p.acceleration[k];
      f.force = force_fixed.data();
      f.slots = slots(p.field_slot, -1);
      f.slots.virial = -1;  // a uniform field has no virial
      launch_external_field(f, n, stream);
    }
    launch_forces_from_fixed(force_fixed.data(), forces, 3 * n, stream);
    box = b;
    computed = true;
  }
};

DeviceForceField::DeviceForceField(const System& system, const ForceField& forces, cudaStream_t stream)
    : impl_(std::make_unique<Impl>(system, forces, stream)) {}

DeviceForceField::~DeviceForceField() = default;

void DeviceForceField::compute(const double* positions, const Box& box, double* forces) {
  impl_->compute(positions, box, forces);
}

void DeviceForceField::download(ForceResult& out) const {
  SPIRE_CHECK(impl_->computed, ValueError, "DeviceForceField::download: no compute() yet, nothing to download");
  const std::vector<long long> totals = impl_->totals.download(impl_->stream);
  collect(impl_->p, totals.data(), impl_->box, out);
}

int64_t DeviceForceField::list_builds() const { return impl_->builds; }

}  // namespace spire::sponge::cuda
