// Custom ops from shared libraries (plugins). A plugin defines ops with the ordinary engine API
// (SPIRE_DEFINE_OP, SPIRE_REGISTER_KERNEL from core/op.h) and is built against libspire_engine,
// e.g. with spire_add_custom_op() from cmake/SpireCustomOp.cmake. Loading it registers its ops,
// which are then called like built-ins: spire::call(spire::op_def("name"), inputs, attrs), with
// every autodiff transform their rules support.
#pragma once
#include <string>
#include <vector>

namespace spire {

// Opens the library at `path` (dlopen, symbols resolved now) and returns the names of the ops it
// defined. Loading the same library again returns the same names. Throws IOError when the file is
// missing or cannot be opened (the loader's message names a missing symbol), and ValueError when
// the library defines an op whose name is taken or registers a kernel for an unknown op; then
// nothing of it stays registered and the library is closed. Load from one thread at a time.
std::vector<std::string> load_library(const std::string& path);

}  // namespace spire
