// The periodic cell in a form kernels take by value, with the same minimum image, wrapping and
// fractional coordinates as Box (box.h), operation for operation, so a kernel body run on the host
// gives the CPU platform's bits.
#pragma once
#include <cmath>

#include "engine/core/host_device.h"
#include "science/sponge/box.h"

namespace spire::sponge::cuda {

struct DeviceBox {
  int periodic = 0;
  double ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0;  // a = (ax,0,0), b = (bx,by,0), c = (cx,cy,cz)

  static DeviceBox of(const Box& box) {
    DeviceBox d;
    d.periodic = box.periodic();
    if (d.periodic) d.ax = box.a().x, d.bx = box.b().x, d.by = box.b().y, d.cx = box.c().x, d.cy = box.c().y, d.cz = box.c().z;
    return d;
  }

  // Box::min_image: c first, then b, then a, each by rounding to nearest.
  SPIRE_HD void min_image(double& x, double& y, double& z) const {
    if (!periodic) return;
    const double n3 = rint(z / cz);
    x -= n3 * cx, y -= n3 * cy, z -= n3 * cz;
    const double n2 = rint(y / by);
    x -= n2 * bx, y -= n2 * by;
    x -= rint(x / ax) * ax;
  }

  // Box::to_fractional.
  SPIRE_HD void to_fractional(double x, double y, double z, double& sx, double& sy, double& sz) const {
    sz = z / cz;
    sy = (y - sz * cy) / by;
    sx = (x - sy * bx - sz * cx) / ax;
  }

  // Box::from_fractional.
  SPIRE_HD void from_fractional(double sx, double sy, double sz, double& x, double& y, double& z) const {
    x = sx * ax + sy * bx + sz * cx;
    y = sy * by + sz * cy;
    z = sz * cz;
  }

  double volume() const { return ax * by * cz; }
};

}  // namespace spire::sponge::cuda
