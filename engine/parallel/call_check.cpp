#include "engine/parallel/call_check.h"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "engine/core/error.h"
#include "engine/parallel/communicator.h"

namespace spire::parallel {
namespace {

constexpr const char* kCalls[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "barrier"};
constexpr int64_t kBroadcast = 4;
constexpr int64_t kMaxDims = 8;

std::string describe(const CallFingerprint& f) {
  std::string s = f[0] >= 0 ? kCalls[f[0]] : "another collective";
  if (f[3] < 0) return s;
  s += detail::cat(" with ", name(static_cast<DType>(f[1])), " [");
  if (f[3] <= kMaxDims)
    for (int64_t d = 0; d < f[3]; ++d) s += detail::cat(d ? ", " : "", f[size_t(4 + d)]);
  else
    s += detail::cat(f[4], " elements in ", f[3], " dimensions");
  s += "]";
  if (f[2] >= 0)
    s += f[0] == kBroadcast ? detail::cat(" from root ", f[2])
                            : detail::cat(" (", name(static_cast<ReduceOp>(f[2])), ")");
  return s;
}

}  // namespace

bool call_checks_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("SPIRE_DISTRIBUTED_DEBUG");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

CallFingerprint call_fingerprint(const char* call, const Tensor* tensor, int64_t detail) {
  CallFingerprint f{};
  f[0] = -1;
  for (size_t i = 0; i < std::size(kCalls); ++i)
    if (std::strcmp(call, kCalls[i]) == 0) f[0] = int64_t(i);
  f[1] = tensor ? int64_t(tensor->dtype()) : -1;
  f[2] = detail;
  f[3] = tensor ? tensor->dim() : -1;
  if (tensor && tensor->dim() <= kMaxDims)
    for (int64_t d = 0; d < tensor->dim(); ++d) f[size_t(4 + d)] = tensor->shape(d);
  else if (tensor)
    f[4] = tensor->numel();
  return f;
}

void check_fingerprints(const char* call, const std::vector<CallFingerprint>& all) {
  for (size_t r = 1; r < all.size(); ++r)
    SPIRE_CHECK(all[r] == all[0], ValueError, call, ": the ranks disagree (SPIRE_DISTRIBUTED_DEBUG): rank 0 calls ",
                describe(all[0]), ", rank ", r, " calls ", describe(all[r]));
}

}  // namespace spire::parallel
