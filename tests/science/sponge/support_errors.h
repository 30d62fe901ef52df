// Error messages in tests: the text of the ValueError a call throws, to check that it names what
// was wrong and what is allowed.
#pragma once
#include <string>

#include "engine/core/error.h"

namespace spire::sponge::testing {

// e.what() of the ValueError f() throws, or "(no ValueError)".
inline std::string message_of(auto&& f) {
  try {
    f();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "(no ValueError)";
}

}  // namespace spire::sponge::testing
