// Fields (fields.h): allocation of the per-component arrays, zero-initialised.
#include "science/elec/fields.h"

namespace spire::elec {

template <class T>
Fields<T>::Fields(const YeeLattice& lattice, bool complex_fields, bool store_d)
    : lattice_(lattice), complex_(complex_fields), store_d_(store_d) {
  const size_t n = size_t(lattice.samples());
  for (Component c : lattice.components()) {
    const size_t i = size_t(int(c));
    for (int p = 0; p < parts(); ++p) {
      field_[i][size_t(p)].assign(n, T(0));
      if (store_d && is_electric(c)) d_[i][size_t(p)].assign(n, T(0));
    }
  }
}

template <class T>
T* Fields<T>::pointer(Store& s, Component c, FieldPart part) {
  auto& v = s[size_t(int(c))][size_t(int(part))];
  return v.empty() ? nullptr : v.data();
}

template class Fields<float>;
template class Fields<double>;

}  // namespace spire::elec
