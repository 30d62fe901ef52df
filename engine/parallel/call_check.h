// SPIRE_DISTRIBUTED_DEBUG=1, as PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL: before each collective
// the ranks compare what they pass (the call, the dtype, the shape, the reduce op or the root),
// and a mismatch is a ValueError on every rank naming the ranks and what each passed, instead of a
// hang, a truncated message or silently wrong values. It costs one small all-gather per
// collective, so it is off by default; turn it on to find the rank that calls out of step. The
// backends gather the fingerprints (MpiCommunicator::check_same_call); this file makes and
// compares them.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::parallel {

// Whether SPIRE_DISTRIBUTED_DEBUG is set to something other than "" or "0" (read once).
bool call_checks_enabled();

// The call, the dtype, the detail (reduce op or root; -1: none), the tensor's rank (-1: none) and
// its first 8 dimensions (beyond 8, the element count).
using CallFingerprint = std::array<int64_t, 12>;
CallFingerprint call_fingerprint(const char* call, const Tensor* tensor, int64_t detail);
// ValueError naming the first rank whose fingerprint differs from rank 0's, and both calls.
void check_fingerprints(const char* call, const std::vector<CallFingerprint>& all);

}  // namespace spire::parallel
