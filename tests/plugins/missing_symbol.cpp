// A plugin that uses a function nothing defines: load_library must fail and name the symbol.
#include "engine/core/op.h"

int spire_test_symbol_nobody_defines(int);

namespace {
int forced = spire_test_symbol_nobody_defines(1);
}  // namespace
