// Parameter groups, as torch.optim's: each group is a list of parameters with its own copy of the
// optimizer's options (learning rate, weight decay, ...), so that, say, a pretrained backbone trains
// at a tenth of the head's rate. A group given without options takes the constructor's defaults.
//
// Each options struct lists its options as fields (OptionField) under PyTorch's names, which is
// how state_dict() writes and reads a group ("param_groups.<g>.<name>") and how the Python binding
// reads and writes group["<name>"], with one generic code path for every optimizer.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/optim/state_dict.h"

namespace spire::optim {

// A group as given to a constructor or to add_param_group.
template <class Options>
struct ParamGroup {
  Tensors params;
  std::optional<Options> options = std::nullopt;  // the constructor's defaults when absent
};

// A group inside an optimizer: its parameters (fixed; add groups with add_param_group) and its
// options, which may be edited between steps (they are checked at the next step).
template <class Options>
struct ParamGroupRef {
  std::span<const Tensor> params;
  Options& options;
};

// How the line search of L-BFGS is chosen (torch's line_search_fn: None or "strong_wolfe").
enum class LineSearch { None, StrongWolfe };

// One option of an options struct, by member. In a StateDict, reals are numbers, and integers,
// booleans (0 or 1) and the line search (0: none, 1: strong Wolfe) are integers; an unset optional
// integer is left out. Names with a ".<k>" suffix ("betas.0", "betas.1") are the elements of one
// tuple-valued option of PyTorch's.
template <class Options>
struct OptionField {
  const char* name;
  std::variant<double Options::*, int64_t Options::*, bool Options::*, std::optional<int64_t> Options::*,
               LineSearch Options::*>
      member;
};

// Writes every option of o as "<prefix><name>".
template <class Options>
void write_options(StateDict& s, const std::string& prefix, const Options& o) {
  for (const OptionField<Options>& f : Options::fields()) {
    std::string key = prefix + f.name;
    std::visit(
        [&](auto m) {
          using T = std::remove_cvref_t<decltype(o.*m)>;
          if constexpr (std::is_same_v<T, double>) s.set(key, o.*m);
          else if constexpr (std::is_same_v<T, int64_t>) s.set(key, o.*m);
          else if constexpr (std::is_same_v<T, bool>) s.set(key, int64_t(o.*m));
          else if constexpr (std::is_same_v<T, LineSearch>) s.set(key, int64_t(o.*m == LineSearch::StrongWolfe));
          else if ((o.*m).has_value()) s.set(key, *(o.*m));
        },
        f.member);
  }
}

// o with every option present as "<prefix><name>" replaced (others keep o's values); a ValueError
// naming the key when a boolean or the line search is not 0 or 1. Unknown keys are ignored, as
// PyTorch keeps whatever a saved group holds.
template <class Options>
Options read_options(const StateDict& s, const std::string& prefix, Options o) {
  for (const OptionField<Options>& f : Options::fields()) {
    std::string key = prefix + f.name;
    if (!s.contains(key)) continue;
    std::visit(
        [&](auto m) {
          using T = std::remove_cvref_t<decltype(o.*m)>;
          if constexpr (std::is_same_v<T, double>) {
            o.*m = s.number(key);
          } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, LineSearch>) {
            int64_t v = s.integer(key);
            SPIRE_CHECK(v == 0 || v == 1, ValueError, "state_dict: '", key, "' must be 0 or 1, got ", v);
            if constexpr (std::is_same_v<T, bool>) o.*m = v == 1;
            else o.*m = v == 1 ? LineSearch::StrongWolfe : LineSearch::None;
          } else {
            o.*m = s.integer(key);
          }
        },
        f.member);
  }
  return o;
}

}  // namespace spire::optim
