// Conversions shared by the spire._C._rl bindings: reset seeds and reset options from Python.
#pragma once
#include <optional>

#include "common.h"
#include "reinforcement/envs/env.h"

namespace spire::python {

// None or an int in [0, 2**64); `who` names the caller in errors.
inline std::optional<uint64_t> to_seed(py::handle seed, const std::string& who) {
  if (seed.is_none()) return std::nullopt;
  SPIRE_CHECK(!py::isinstance<py::bool_>(seed) && py::hasattr(seed, "__index__"), DTypeError, who,
              ": seed must be None or a non-negative int, got ", type_name(seed));
  py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(seed.ptr()));
  SPIRE_CHECK(py::cast<bool>(i.attr("__ge__")(0)) && py::cast<bool>(i.attr("__lt__")(py::int_(1).attr("__lshift__")(64))),
              ValueError, who, ": seed must be in [0, 2**64), got ", py::str(i).cast<std::string>());
  return py::cast<uint64_t>(i);
}

// None or a dict of names to numbers (Gymnasium's reset options).
inline rl::ResetOptions to_options(py::handle options, const std::string& who) {
  rl::ResetOptions out;
  if (options.is_none()) return out;
  SPIRE_CHECK(py::isinstance<py::dict>(options), DTypeError, who, ": options must be a dict, got ", type_name(options));
  for (auto [k, v] : py::cast<py::dict>(options)) out[py::cast<std::string>(k)] = py::cast<double>(v);
  return out;
}

}  // namespace spire::python
