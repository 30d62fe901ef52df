// Three-vectors for kernel bodies: Vec3's arithmetic (vec3.h) as __host__ __device__ functions, in
// the same operation order, so a body run on the host rounds as the CPU terms do.
#pragma once
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "science/sponge/cuda/device_box.cuh"
#include "science/sponge/cuda/fixed_point.cuh"

namespace spire::sponge::cuda {

struct V3 {
  double x = 0, y = 0, z = 0;
};

SPIRE_HD inline V3 operator+(const V3& a, const V3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
SPIRE_HD inline V3 operator-(const V3& a, const V3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
SPIRE_HD inline V3 operator-(const V3& a) { return {-a.x, -a.y, -a.z}; }
SPIRE_HD inline V3 operator*(const V3& a, double s) { return {a.x * s, a.y * s, a.z * s}; }
SPIRE_HD inline double dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
SPIRE_HD inline V3 cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
SPIRE_HD inline double norm2(const V3& a) { return dot(a, a); }
SPIRE_HD inline double norm(const V3& a) { return sqrt(dot(a, a)); }

// Particle i of an array of x, y, z triples.
SPIRE_HD inline V3 load3(const double* x, int64_t i) { return {x[3 * i], x[3 * i + 1], x[3 * i + 2]}; }

// Box::min_image of a displacement.
SPIRE_HD inline V3 min_image(const DeviceBox& box, V3 d) {
  box.min_image(d.x, d.y, d.z);
  return d;
}

// f added to particle i's fixed-point force.
SPIRE_HD inline void accumulate3(long long* force, int64_t i, const V3& f) {
  accumulate(force + 3 * i, f.x);
  accumulate(force + 3 * i + 1, f.y);
  accumulate(force + 3 * i + 2, f.z);
}

// a (x) b into the six virial components (xx xy xz yy yz zz, as tally.cuh).
SPIRE_HD inline void add_outer(double* w, const V3& a, const V3& b) {
  w[0] += a.x * b.x, w[1] += a.x * b.y, w[2] += a.x * b.z;
  w[3] += a.y * b.y, w[4] += a.y * b.z, w[5] += a.z * b.z;
}

}  // namespace spire::sponge::cuda
