// Field storage of an FDTD run: one array per carried component (yee.h's storage order), of float or
// double (the real type T). E and H are always stored. The fluxes D and B of the D/B formulation
// (material_arrays.h) are stored only where an update needs them:
//   D: when dispersive polarisations are present, because E = inv_eps (D - P) needs D itself;
//      without polarisations E = inv_eps D is linear in D, and the D step followed by that
//      division is the same update applied to E directly (fdtd_update.h), so D is not kept.
//   B: never: inv_mu is diagonal and non-dispersive, so H = inv_mu B is updated directly.
// Keeping only what the updates read halves the memory traffic of a vacuum or dielectric run,
// which is what bounds an FDTD step's speed.
// Bloch-periodic problems need complex fields: then every stored array has an imaginary part.
// Arrays are 64-byte aligned so the vectorised inner loops start on cache lines.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "science/elec/yee.h"

namespace spire::elec {

enum class FieldPart { real = 0, imag = 1 };

template <class T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

template <class T>
class Fields {
 public:
  Fields(const YeeLattice& lattice, bool complex_fields, bool store_d);

  const YeeLattice& lattice() const { return lattice_; }
  bool is_complex() const { return complex_; }
  bool has_d() const { return store_d_; }
  int parts() const { return complex_ ? 2 : 1; }

  // E (Ex..Ez) or H (Hx..Hz) of a component; nullptr when the problem does not carry it (or for
  // the imaginary part of real fields).
  T* data(Component c, FieldPart part = FieldPart::real) { return pointer(field_, c, part); }
  const T* data(Component c, FieldPart part = FieldPart::real) const {
    return const_cast<Fields*>(this)->data(c, part);
  }
  // D of an electric component; nullptr unless D is stored.
  T* d(Component c, FieldPart part = FieldPart::real) { return store_d_ ? pointer(d_, c, part) : nullptr; }
  const T* d(Component c, FieldPart part = FieldPart::real) const { return const_cast<Fields*>(this)->d(c, part); }

 private:
  using Store = std::array<std::array<AlignedVector<T>, 2>, 6>;
  T* pointer(Store& s, Component c, FieldPart part);

  YeeLattice lattice_;
  bool complex_, store_d_;
  Store field_, d_;
};

extern template class Fields<float>;
extern template class Fields<double>;

}  // namespace spire::elec
