// The verdict lines every sponge validation program prints: `ok: ...` or `FAILED: ...` per check,
// with a count of failures for its exit status. Header-only: each program is built from one source.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace spire::sponge::validate {

inline int failures = 0;

inline void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

// Mean of a time series and its standard error from `blocks` consecutive block means (the
// samples left over by the division are dropped from the end). Honest only when each block is
// several correlation times long; compare two block counts to see whether it is.
struct Estimate {
  double mean = 0, error = 0;
};

inline Estimate block_average(const std::vector<double>& x, int blocks) {
  if (blocks < 2 || x.size() < size_t(blocks)) return {NAN, NAN};
  const size_t len = x.size() / size_t(blocks);
  Estimate e;
  std::vector<double> means;
  for (int b = 0; b < blocks; ++b) {
    double m = 0;
    for (size_t i = size_t(b) * len; i < size_t(b + 1) * len; ++i) m += x[i];
    means.push_back(m / double(len));
    e.mean += means.back() / blocks;
  }
  double var = 0;
  for (double m : means) var += (m - e.mean) * (m - e.mean);
  e.error = std::sqrt(var / double(blocks - 1) / double(blocks));
  return e;
}

}  // namespace spire::sponge::validate
