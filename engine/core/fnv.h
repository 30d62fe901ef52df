// FNV-1a hashing of values fed one at a time, for the fingerprints that checkpoints store and
// compare on resume (science/sponge/checkpoint.cpp, science/elec/checkpoint.cpp): the same bytes
// give the same hash on every run and thread count, and values are fed field by field (never a
// struct's bytes, whose padding is undefined).
//
// Encoding: an arithmetic or enum value is its object bytes (native byte order); a string or vector
// is its length as uint64_t, then its characters or elements; a complex number its real then its
// imaginary part. A package's own types are fed by a function fnv_feed(Fnv1a&, const T&) in the
// type's namespace, found by argument-dependent lookup (science/elec/checkpoint.cpp feeds Vec3).
//
// The offset basis 1469598103934665603 is one digit short of FNV's published 14695981039346656037;
// the checkpoints already written hold hashes made with it, so it stays (any odd 64-bit start
// hashes as well for a fingerprint).
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace spire {

struct Fnv1a {
  uint64_t h = 1469598103934665603ull;

  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  template <class T>
  Fnv1a& operator()(const T& v) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>)
      bytes(&v, sizeof v);
    else
      fnv_feed(*this, v);  // the type's own encoding, from its namespace
    return *this;
  }
  Fnv1a& operator()(const std::string& s) {
    (*this)(uint64_t(s.size()));
    bytes(s.data(), s.size());
    return *this;
  }
  template <class T>
  Fnv1a& operator()(const std::complex<T>& z) {
    return (*this)(z.real())(z.imag());
  }
  template <class T>
  Fnv1a& operator()(const std::vector<T>& v) {
    (*this)(uint64_t(v.size()));
    for (const T& x : v) (*this)(x);
    return *this;
  }
};

}  // namespace spire
