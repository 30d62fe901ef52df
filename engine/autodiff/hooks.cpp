#include "engine/autodiff/hooks.h"

#include <algorithm>
#include <atomic>

namespace spire::autodiff {

int64_t add_post_accumulate_grad_hook(const Tensor& leaf, GradHook hook) {
  SPIRE_CHECK(leaf.defined() && leaf.requires_grad() && leaf.is_leaf(), ValueError,
              "add_post_accumulate_grad_hook: needs a leaf tensor that requires grad (a parameter)");
  SPIRE_CHECK(bool(hook), ValueError, "add_post_accumulate_grad_hook: the hook is empty");
  static std::atomic<int64_t> next_id{1};
  int64_t id = next_id++;
  leaf.impl()->meta().post_accumulate_hooks.emplace_back(id, std::move(hook));
  return id;
}

bool remove_post_accumulate_grad_hook(const Tensor& leaf, int64_t id) {
  if (!leaf.defined() || !leaf.impl()->autograd) return false;
  auto& hooks = leaf.impl()->autograd->post_accumulate_hooks;
  auto it = std::find_if(hooks.begin(), hooks.end(), [id](const auto& h) { return h.first == id; });
  if (it == hooks.end()) return false;
  hooks.erase(it);
  return true;
}

}  // namespace spire::autodiff
