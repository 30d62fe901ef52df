#include <cmath>

#include "engine/core/error.h"
#include "science/flow/chebyshev.h"
#include "science/flow/fourier.h"
#include "science/flow/space.h"

namespace spire::flow {

namespace {
void check_size(const char* key, int n, bool even) {
  SPIRE_CHECK(n >= 4, ConfigError, "discretization.", key, " = ", n, ": must be at least 4");
  SPIRE_CHECK(!even || n % 2 == 0, ConfigError, "discretization.", key, " = ", n,
              ": a Fourier basis needs an even number of points");
}
}  // namespace

std::unique_ptr<Space> make_space(const Discretization& d) {
  SPIRE_CHECK(d.basis == "fourier" || d.basis == "chebyshev", ConfigError, "discretization.basis = \"",
              d.basis, "\": unknown basis (allowed: fourier, chebyshev)");
  SPIRE_CHECK(d.dims == 1 || d.dims == 2, ConfigError, "domain: ", d.dims,
              " dimensions (allowed: 1 with x, 2 with x and y)");
  SPIRE_CHECK(std::isfinite(d.dealias) && d.dealias >= 1, ConfigError, "discretization.dealias = ",
              d.dealias, ": must be >= 1 (1 turns dealiasing off; 1.5 is the 3/2 rule)");
  SPIRE_CHECK(std::isfinite(d.x0) && std::isfinite(d.x1) && d.x1 > d.x0, ConfigError, "domain.x = [",
              d.x0, ", ", d.x1, "]: needs x1 > x0");
  if (d.dims == 2)
    SPIRE_CHECK(std::isfinite(d.y0) && std::isfinite(d.y1) && d.y1 > d.y0, ConfigError, "domain.y = [",
                d.y0, ", ", d.y1, "]: needs y1 > y0");
  const bool fourier = d.basis == "fourier";
  if (fourier) {
    SPIRE_CHECK(d.periodic, ConfigError,
                "discretization.basis = \"fourier\" needs domain.periodic = true (use basis = \"chebyshev\" "
                "for a bounded domain)");
    check_size(d.dims == 2 ? "n (x)" : "n", d.nx, true);
    if (d.dims == 2) check_size("n (y)", d.ny, true);
    return std::make_unique<FourierSpace>(d);
  }
  SPIRE_CHECK(!d.periodic, ConfigError,
              "discretization.basis = \"chebyshev\" needs domain.periodic = false (use basis = \"fourier\" "
              "for a periodic domain)");
  SPIRE_CHECK(d.dims == 1, ConfigError,
              "discretization.basis = \"chebyshev\" is 1D only (domain has y); allowed in 2D: fourier");
  check_size("n", d.nx, false);
  return make_chebyshev_space(d);
}

}  // namespace spire::flow
