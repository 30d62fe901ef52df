// Three-vectors and 3x3 tensors in double precision: positions, velocities, forces, box vectors,
// virials and pressure tensors. Plain structs so that arrays of them are arrays of doubles (x, y, z
// contiguous, as LAMMPS's x[i][3]) that kernels can walk directly.
#pragma once
#include <array>
#include <cmath>

namespace spire::sponge {

struct Vec3 {
  double x = 0, y = 0, z = 0;

  double& operator[](int k) { return k == 0 ? x : k == 1 ? y : z; }
  double operator[](int k) const { return k == 0 ? x : k == 1 ? y : z; }
  Vec3& operator+=(const Vec3& o) { x += o.x; y += o.y; z += o.z; return *this; }
  Vec3& operator-=(const Vec3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  Vec3& operator*=(double s) { x *= s; y *= s; z *= s; return *this; }
  friend Vec3 operator+(Vec3 a, const Vec3& b) { return a += b; }
  friend Vec3 operator-(Vec3 a, const Vec3& b) { return a -= b; }
  friend Vec3 operator-(const Vec3& a) { return {-a.x, -a.y, -a.z}; }
  friend Vec3 operator*(Vec3 a, double s) { return a *= s; }
  friend Vec3 operator*(double s, Vec3 a) { return a *= s; }
  friend Vec3 operator/(const Vec3& a, double s) { return {a.x / s, a.y / s, a.z / s}; }
  friend bool operator==(const Vec3&, const Vec3&) = default;
};

inline double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm2(const Vec3& a) { return dot(a, a); }
inline double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

// Row-major 3x3: m[3 * row + col]. Virials W_ab = sum over pairs of r_a f_b and pressure tensors.
struct Mat3 {
  std::array<double, 9> m{};

  double& operator()(int r, int c) { return m[3 * r + c]; }
  double operator()(int r, int c) const { return m[3 * r + c]; }
  Mat3& operator+=(const Mat3& o) {
    for (int k = 0; k < 9; ++k) m[k] += o.m[k];
    return *this;
  }
  Mat3& operator*=(double s) {
    for (double& v : m) v *= s;
    return *this;
  }
  friend Mat3 operator+(Mat3 a, const Mat3& b) { return a += b; }
  friend Mat3 operator*(Mat3 a, double s) { return a *= s; }
  double trace() const { return m[0] + m[4] + m[8]; }
  // The outer product a b^T added in place (a pair's contribution r_ij f_ij^T to the virial).
  void add_outer(const Vec3& a, const Vec3& b) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) m[3 * r + c] += a[r] * b[c];
  }
  static Mat3 identity() {
    Mat3 i;
    i.m[0] = i.m[4] = i.m[8] = 1;
    return i;
  }
};

}  // namespace spire::sponge
