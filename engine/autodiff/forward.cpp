#include "engine/autodiff/forward.h"

#include <algorithm>
#include <vector>

#include "engine/core/op.h"

namespace spire::forward_ad {
namespace {
thread_local std::vector<int> live;      // levels entered and not exited
thread_local std::vector<int> disabled;  // levels whose rule is running
thread_local int next_level = 0;
thread_local std::vector<std::pair<int, std::weak_ptr<TensorImpl>>> carriers;
}  // namespace

int enter_level() {
  live.push_back(next_level);
  return next_level++;
}

void exit_level(int level) {
  live.erase(std::remove(live.begin(), live.end(), level), live.end());
  std::vector<std::pair<int, std::weak_ptr<TensorImpl>>> keep;
  for (auto& [l, weak] : carriers) {
    auto impl = weak.lock();
    if (!impl) continue;
    if (l != level) {
      keep.emplace_back(l, std::move(weak));
      continue;
    }
    if (!impl->autograd) continue;
    auto drop = [&](auto& v) {
      v.erase(std::remove_if(v.begin(), v.end(), [&](auto& p) { return p.first == level; }), v.end());
    };
    drop(impl->autograd->tangents);
    drop(impl->autograd->jets);
  }
  carriers.swap(keep);
}

void note_carrier(const Tensor& t, int level) { carriers.emplace_back(level, t.impl_ptr()); }

bool any_level_active() { return !live.empty(); }

bool level_enabled(int level) {
  return std::find(live.begin(), live.end(), level) != live.end() &&
         std::find(disabled.begin(), disabled.end(), level) == disabled.end();
}

DisableLevel::DisableLevel(int level) : level_(level) { disabled.push_back(level); }
DisableLevel::~DisableLevel() { disabled.pop_back(); }

Tensor make_dual(const Tensor& primal, const Tensor& tangent, int level) {
  SPIRE_CHECK(level_enabled(level), AutodiffError, "make_dual: forward level ", level,
              " is not active");
  SPIRE_CHECK(tangent.shape() == primal.shape(), ShapeError, "make_dual: tangent shape ",
              shape_str(tangent.shape()), " differs from primal shape ", shape_str(primal.shape()));
  // An alias op keeps the primal's reverse-mode history; the tangent is then attached to it alone.
  Tensor dual;
  {
    DisableLevel off(level);
    dual = call1(op_def("alias"), {primal});
  }
  auto& tangents = dual.impl()->meta().tangents;
  tangents.erase(std::remove_if(tangents.begin(), tangents.end(),
                                [&](auto& p) { return p.first == level; }),
                 tangents.end());
  tangents.emplace_back(level, std::make_shared<Tensor>(tangent));
  note_carrier(dual, level);
  return dual;
}

Tensor tangent(const Tensor& t, int level) {
  if (!t.defined() || !t.impl()->autograd) return Tensor();
  for (auto& [l, tan] : t.impl()->autograd->tangents)
    if (l == level) return *tan;
  return Tensor();
}

}  // namespace spire::forward_ad
