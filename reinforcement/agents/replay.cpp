#include "reinforcement/agents/replay.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/error.h"

namespace spire::rl::agents {

// --- SumTree ---

SumTree::SumTree(int64_t capacity) : capacity_(capacity) {
  SPIRE_CHECK(capacity >= 1, ValueError, "SumTree: capacity must be >= 1, got ", capacity);
  leaves_ = 1;
  while (leaves_ < capacity) leaves_ *= 2;
  sum_.assign(size_t(2 * leaves_), 0.0);
  // Unset leaves hold +inf in the min tree, so that the minimum is over the leaves in use.
  min_.assign(size_t(2 * leaves_), std::numeric_limits<double>::infinity());
}

void SumTree::set(int64_t i, double value) {
  SPIRE_CHECK(i >= 0 && i < capacity_ && value >= 0 && std::isfinite(value), ValueError, "SumTree.set: leaf ", i,
              " of ", capacity_, " with value ", value, " (needs a finite value >= 0)");
  size_t k = size_t(leaves_ + i);
  sum_[k] = min_[k] = value;
  for (k /= 2; k >= 1; k /= 2) {
    sum_[k] = sum_[2 * k] + sum_[2 * k + 1];
    min_[k] = std::min(min_[2 * k], min_[2 * k + 1]);
  }
}

int64_t SumTree::find(double mass) const {
  size_t k = 1;
  while (k < size_t(leaves_)) {
    double left = sum_[2 * k];
    if (mass < left) {
      k = 2 * k;
    } else {
      mass -= left;
      k = 2 * k + 1;
    }
  }
  // Rounding can carry a mass at the very top past the last leaf with a value: step back to it.
  int64_t i = int64_t(k) - leaves_;
  i = std::min(i, capacity_ - 1);
  while (i > 0 && sum_[size_t(leaves_ + i)] == 0.0) --i;
  return i;
}

// --- ReplayBuffer ---

ReplayBuffer::ReplayBuffer(int64_t capacity, int64_t obs_dim, ReplayOptions options)
    : capacity_(capacity), obs_dim_(obs_dim), options_(options), tree_(options.prioritized ? capacity : 1) {
  SPIRE_CHECK(capacity >= 1, ValueError, "ReplayBuffer: capacity must be >= 1, got ", capacity);
  SPIRE_CHECK(obs_dim >= 1, ValueError, "ReplayBuffer: obs_dim must be >= 1, got ", obs_dim);
  SPIRE_CHECK(options.alpha >= 0 && options.priority_eps > 0, ValueError,
              "ReplayBuffer: needs alpha >= 0 and priority_eps > 0, got alpha=", options.alpha,
              ", priority_eps=", options.priority_eps);
  obs_.assign(size_t(capacity * obs_dim), 0.0f);
  next_obs_.assign(size_t(capacity * obs_dim), 0.0f);
  returns_.assign(size_t(capacity), 0.0f);
  discounts_.assign(size_t(capacity), 0.0f);
  actions_.assign(size_t(capacity), 0);
}

void ReplayBuffer::add(std::span<const float> observation, int64_t action, double ret,
                       std::span<const float> next_observation, double discount) {
  SPIRE_CHECK(int64_t(observation.size()) == obs_dim_ && int64_t(next_observation.size()) == obs_dim_, ValueError,
              "ReplayBuffer.add: expected observations of ", obs_dim_, " values, got ", observation.size(), " and ",
              next_observation.size());
  std::copy(observation.begin(), observation.end(), obs_.begin() + next_ * obs_dim_);
  std::copy(next_observation.begin(), next_observation.end(), next_obs_.begin() + next_ * obs_dim_);
  actions_[size_t(next_)] = action;
  returns_[size_t(next_)] = float(ret);
  discounts_[size_t(next_)] = float(discount);
  if (options_.prioritized) tree_.set(next_, std::pow(max_priority_, options_.alpha));
  next_ = (next_ + 1) % capacity_;
  size_ = std::min(size_ + 1, capacity_);
}

ReplaySample ReplayBuffer::sample(int64_t batch, double beta, spire::Generator& gen) const {
  SPIRE_CHECK(size_ > 0, ValueError, "ReplayBuffer.sample: the buffer is empty");
  SPIRE_CHECK(batch >= 1, ValueError, "ReplayBuffer.sample: batch must be >= 1, got ", batch);
  ReplaySample out;
  out.slots.resize(size_t(batch));
  out.weights = ones({batch}, DType::Float32);
  if (!options_.prioritized) {
    Tensor index = randint({batch}, 0, size_, DType::Int64, gen);
    std::copy_n(index.data<int64_t>(), batch, out.slots.begin());
  } else {
    SPIRE_CHECK(beta >= 0, ValueError, "ReplayBuffer.sample: beta must be >= 0, got ", beta);
    Tensor u = uniform({batch}, 0.0, 1.0, DType::Float64, gen);
    const double* pu = u.data<double>();
    const double total = tree_.total(), slice = total / double(batch);
    // w_i / max_k w_k = (P(i) / P_min)^-beta: N and the total cancel.
    const double p_min = tree_.min();
    float* pw = out.weights.data<float>();
    for (int64_t i = 0; i < batch; ++i) {
      double mass = std::min((double(i) + pu[i]) * slice, std::nextafter(total, 0.0));
      int64_t s = tree_.find(mass);
      out.slots[size_t(i)] = s;
      pw[i] = float(std::pow(tree_.get(s) / p_min, -beta));
    }
  }
  out.observations = empty({batch, obs_dim_}, DType::Float32);
  out.next_observations = empty({batch, obs_dim_}, DType::Float32);
  out.actions = empty({batch}, DType::Int64);
  out.returns = empty({batch}, DType::Float32);
  out.discounts = empty({batch}, DType::Float32);
  float *po = out.observations.data<float>(), *pn = out.next_observations.data<float>();
  float *pr = out.returns.data<float>(), *pd = out.discounts.data<float>();
  int64_t* pa = out.actions.data<int64_t>();
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t s = out.slots[size_t(i)];
    std::copy_n(obs_.begin() + s * obs_dim_, obs_dim_, po + i * obs_dim_);
    std::copy_n(next_obs_.begin() + s * obs_dim_, obs_dim_, pn + i * obs_dim_);
    pa[i] = actions_[size_t(s)];
    pr[i] = returns_[size_t(s)];
    pd[i] = discounts_[size_t(s)];
  }
  return out;
}

void ReplayBuffer::update_priorities(std::span<const int64_t> slots, std::span<const double> td_errors) {
  SPIRE_CHECK(options_.prioritized, ValueError, "ReplayBuffer.update_priorities: the buffer is not prioritized");
  SPIRE_CHECK(slots.size() == td_errors.size(), ValueError, "ReplayBuffer.update_priorities: ", slots.size(),
              " slots and ", td_errors.size(), " errors");
  for (size_t i = 0; i < slots.size(); ++i) {
    SPIRE_CHECK(slots[i] >= 0 && slots[i] < size_ && std::isfinite(td_errors[i]), ValueError,
                "ReplayBuffer.update_priorities: slot ", slots[i], " of ", size_, " with error ", td_errors[i]);
    const double p = std::abs(td_errors[i]) + options_.priority_eps;
    max_priority_ = std::max(max_priority_, p);
    tree_.set(slots[i], std::pow(p, options_.alpha));
  }
}

optim::StateDict ReplayBuffer::state_dict() const {
  auto floats = [](const std::vector<float>& v, int64_t rows, int64_t cols) {
    Tensor t = empty(cols == 0 ? Shape{rows} : Shape{rows, cols}, DType::Float32);
    std::copy_n(v.begin(), rows * std::max<int64_t>(cols, 1), t.data<float>());
    return t;
  };
  optim::StateDict out;
  out.set("capacity", capacity_);
  out.set("size", size_);
  out.set("next", next_);
  out.set("observations", floats(obs_, size_, obs_dim_));
  out.set("next_observations", floats(next_obs_, size_, obs_dim_));
  out.set("returns", floats(returns_, size_, 0));
  out.set("discounts", floats(discounts_, size_, 0));
  Tensor actions = empty({size_}, DType::Int64);
  std::copy_n(actions_.begin(), size_, actions.data<int64_t>());
  out.set("actions", actions);
  if (options_.prioritized) {
    Tensor leaves = empty({size_}, DType::Float64);
    for (int64_t i = 0; i < size_; ++i) leaves.data<double>()[i] = tree_.get(i);
    out.set("priorities", leaves);  // p^alpha
    out.set("max_priority", max_priority_);
  }
  return out;
}

void ReplayBuffer::load_state_dict(const optim::StateDict& in) {
  const int64_t capacity = in.integer("capacity"), size = in.integer("size"), next = in.integer("next");
  SPIRE_CHECK(capacity == capacity_, ValueError, "ReplayBuffer.load_state_dict: the saved buffer has capacity ",
              capacity, ", this one ", capacity_);
  SPIRE_CHECK(size >= 0 && size <= capacity_ && next >= 0 && next < capacity_, ValueError,
              "ReplayBuffer.load_state_dict: size ", size, " and next ", next, " do not fit capacity ", capacity_);
  auto check = [&](const char* key, DType dtype, int64_t n) {
    Tensor t = in.tensor(key);
    SPIRE_CHECK(t.dtype() == dtype && t.numel() == n && t.is_contiguous(), ValueError,
                "ReplayBuffer.load_state_dict: '", key, "' should hold ", n, " values of ", name(dtype), ", got ",
                t.numel(), " of ", name(t.dtype()));
    return t;
  };
  ReplayBuffer fresh(capacity_, obs_dim_, options_);
  auto load = [&](const char* key, std::vector<float>& to, int64_t n) {
    Tensor t = check(key, DType::Float32, n);
    std::copy_n(t.data<float>(), n, to.begin());
  };
  load("observations", fresh.obs_, size * obs_dim_);
  load("next_observations", fresh.next_obs_, size * obs_dim_);
  load("returns", fresh.returns_, size);
  load("discounts", fresh.discounts_, size);
  Tensor actions = check("actions", DType::Int64, size);
  std::copy_n(actions.data<int64_t>(), size, fresh.actions_.begin());
  if (options_.prioritized) {
    Tensor leaves = check("priorities", DType::Float64, size);
    for (int64_t i = 0; i < size; ++i) fresh.tree_.set(i, leaves.data<double>()[i]);
    fresh.max_priority_ = in.number("max_priority");
  }
  fresh.size_ = size;
  fresh.next_ = next;
  *this = std::move(fresh);
}

// --- NStepAssembler ---

NStepAssembler::NStepAssembler(int64_t num_envs, int64_t obs_dim, int64_t n, double gamma)
    : obs_dim_(obs_dim), n_(n), gamma_(gamma), envs_(size_t(num_envs)) {
  SPIRE_CHECK(num_envs >= 1 && obs_dim >= 1 && n >= 1 && gamma >= 0 && gamma <= 1, ValueError,
              "NStepAssembler: needs num_envs >= 1, obs_dim >= 1, n >= 1 and 0 <= gamma <= 1, got ", num_envs, ", ",
              obs_dim, ", ", n, ", ", gamma);
}

void NStepAssembler::push(int64_t env, std::span<const float> observation, int64_t action, double reward,
                          std::span<const float> next_observation, bool terminated, bool truncated,
                          ReplayBuffer& out) {
  SPIRE_CHECK(env >= 0 && env < int64_t(envs_.size()), ValueError, "NStepAssembler.push: environment ", env,
              " of ", envs_.size());
  SPIRE_CHECK(int64_t(observation.size()) == obs_dim_ && int64_t(next_observation.size()) == obs_dim_, ValueError,
              "NStepAssembler.push: expected observations of ", obs_dim_, " values");
  Pending& p = envs_[size_t(env)];
  p.observations.insert(p.observations.end(), observation.begin(), observation.end());
  p.actions.push_back(action);
  p.rewards.push_back(reward);
  if (terminated || truncated) {
    while (!p.actions.empty()) emit(env, next_observation, terminated, out);
  } else if (int64_t(p.actions.size()) == n_) {
    emit(env, next_observation, false, out);
  }
}

void NStepAssembler::emit(int64_t env, std::span<const float> next_observation, bool terminated, ReplayBuffer& out) {
  Pending& p = envs_[size_t(env)];
  const size_t k = p.actions.size();
  // Horner from the newest reward: r_0 + gamma (r_1 + gamma (...)).
  double ret = 0, discount = 1;
  for (size_t j = k; j-- > 0;) {
    ret = p.rewards[j] + gamma_ * ret;
    discount *= gamma_;
  }
  out.add(std::span<const float>(p.observations.data(), size_t(obs_dim_)), p.actions.front(), ret, next_observation,
          terminated ? 0.0 : discount);
  p.observations.erase(p.observations.begin(), p.observations.begin() + obs_dim_);
  p.actions.erase(p.actions.begin());
  p.rewards.erase(p.rewards.begin());
}

optim::StateDict NStepAssembler::state_dict() const {
  optim::StateDict out;
  out.set("num_envs", int64_t(envs_.size()));
  for (size_t e = 0; e < envs_.size(); ++e) {
    const Pending& p = envs_[e];
    const int64_t k = int64_t(p.actions.size());
    const std::string key = "env." + std::to_string(e) + ".";
    out.set(key + "count", k);
    if (k == 0) continue;
    out.set(key + "observations", from_vector(p.observations, {k, obs_dim_}));
    out.set(key + "actions", from_vector(p.actions, {k}));
    out.set(key + "rewards", from_vector(p.rewards, {k}));
  }
  return out;
}

void NStepAssembler::load_state_dict(const optim::StateDict& in) {
  const int64_t num_envs = in.integer("num_envs");
  SPIRE_CHECK(num_envs == int64_t(envs_.size()), ValueError, "NStepAssembler.load_state_dict: saved for ",
              num_envs, " environments, this run has ", envs_.size());
  std::vector<Pending> loaded(envs_.size());
  for (size_t e = 0; e < envs_.size(); ++e) {
    const std::string key = "env." + std::to_string(e) + ".";
    const int64_t k = in.integer(key + "count");
    SPIRE_CHECK(k >= 0 && k < n_, ValueError, "NStepAssembler.load_state_dict: environment ", e, " holds ", k,
                " pending steps, at most ", n_ - 1, " allowed");
    if (k == 0) continue;
    Tensor obs = in.tensor(key + "observations"), act = in.tensor(key + "actions"), rew = in.tensor(key + "rewards");
    SPIRE_CHECK(obs.dtype() == DType::Float32 && obs.numel() == k * obs_dim_ && act.dtype() == DType::Int64 &&
                    act.numel() == k && rew.dtype() == DType::Float64 && rew.numel() == k,
                ValueError, "NStepAssembler.load_state_dict: environment ", e, "'s pending steps do not match");
    Pending& p = loaded[e];
    p.observations.assign(obs.data<float>(), obs.data<float>() + k * obs_dim_);
    p.actions.assign(act.data<int64_t>(), act.data<int64_t>() + k);
    p.rewards.assign(rew.data<double>(), rew.data<double>() + k);
  }
  envs_ = std::move(loaded);
}

// --- State dict parts ---

void put(optim::StateDict& out, const std::string& prefix, const optim::StateDict& part) {
  for (const auto& [key, value] : part.items()) out.set(prefix + key, value);
}

optim::StateDict under(const optim::StateDict& in, const std::string& prefix) {
  optim::StateDict out;
  for (const auto& [key, value] : in.items())
    if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0) out.set(key.substr(prefix.size()), value);
  return out;
}

}  // namespace spire::rl::agents
