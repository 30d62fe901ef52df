// The verdict lines every sponge validation program prints: `ok: ...` or `FAILED: ...` per check,
// with a count of failures for its exit status. Header-only: each program is built from one source.
#pragma once
#include <cstdio>
#include <string>

namespace spire::sponge::validate {

inline int failures = 0;

inline void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

}  // namespace spire::sponge::validate
