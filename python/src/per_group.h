// Scheduler and callback options that take a number or one number per parameter group.
#pragma once
#include "common.h"
#include "engine/optim/scheduler.h"

namespace spire::python {

// A float or a list of floats, one per parameter group (max_lr, min_lr, ...); TypeError otherwise.
optim::PerGroup per_group(py::handle h, const char* who, const char* what);
// The Python value back: a float for a single value, else a list.
inline py::object per_group_value(const optim::PerGroup& v) {
  return v.is_scalar() ? py::object(py::float_(v.values()[0])) : py::object(py::cast(v.values()));
}

}  // namespace spire::python
