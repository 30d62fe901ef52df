#include "engine/parallel/data_parallel.h"

#include <unordered_map>
#include <unordered_set>

#include "engine/autodiff/hooks.h"
#include "engine/autodiff/mode.h"
#include "engine/autodiff/node.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"
#include "engine/parallel/runtime.h"
#include "engine/train/model_checkpoint.h"
#include "engine/train/weights.h"

namespace spire::parallel {

struct DataParallel::Slot {
  std::string name;
  Tensor param;
  size_t bucket = 0;
  int64_t offset = 0;  // elements from the start of the bucket's buffer
  bool ready = false;
};

struct DataParallel::Bucket {
  std::vector<size_t> slots;  // in buffer order
  DType dtype;
  Device device;
  int64_t numel = 0;          // gradient elements; the buffer holds numel + slots.size() (the flags)
  size_t pending = 0;         // slots not yet ready in this round
  Tensor buffer;
  std::unique_ptr<Work> work;
};

namespace {

std::shared_ptr<Communicator> or_world(std::shared_ptr<Communicator> comm) {
  return comm ? std::move(comm) : world_ptr();
}

// rank 0's values of t everywhere, t keeping its identity (set_data); over NCCL for CUDA tensors.
void broadcast_into(Communicator& comm, Tensor t) {  // a handle: set_data reaches the shared tensor
  NoGradGuard no_grad;
  Tensor c = copy(t.detach());
  comm.on(t.device())->broadcast(c, 0);
  t.set_data(c);
}

}  // namespace

DataParallel::DataParallel(nn::ModulePtr module, std::shared_ptr<Communicator> comm, DataParallelOptions options)
    : nn::Module("DataParallel"), module_(std::move(module)), comm_(or_world(std::move(comm))), options_(options) {
  SPIRE_CHECK(module_ != nullptr, ValueError, "DataParallel: the module is null");
  SPIRE_CHECK(options_.bucket_cap_mb > 0, ValueError, "DataParallel: bucket_cap_mb must be > 0, got ",
              options_.bucket_cap_mb);
  register_module("module", module_);

  // All ranks start from rank 0's state (each may have initialised its replica differently).
  for (auto& [name, p] : module_->named_parameters()) broadcast_into(*comm_, p);
  for (auto& [name, b] : module_->named_buffers()) broadcast_into(*comm_, b);

  for (auto& [name, p] : module_->named_parameters())
    if (p.requires_grad()) slots_.push_back(Slot{name, p});
  plan_buckets();
  reached_.assign(slots_.size(), false);
  for (size_t k = 0; k < slots_.size(); ++k)
    hook_ids_.push_back(autodiff::add_post_accumulate_grad_hook(slots_[k].param, [this, k](const Tensor&) {
      on_grad_ready(k);
    }));
}

// Buckets in reverse registration order (gradients of the last layers arrive first), one dtype
// and device each, closed when the next parameter would take them past the cap. Planned again
// when .to() has moved or converted parameters since (every rank converts alike, so every rank
// plans the same buckets).
void DataParallel::plan_buckets() {
  buckets_.clear();
  const double cap_bytes = options_.bucket_cap_mb * 1024.0 * 1024.0;
  double bucket_bytes = 0;
  for (size_t k = slots_.size(); k-- > 0;) {
    Slot& s = slots_[k];
    const Tensor& p = s.param;
    Bucket* b = buckets_.empty() ? nullptr : buckets_.back().get();
    bool fits = b && b->dtype == p.dtype() && b->device == p.device() && bucket_bytes + double(p.nbytes()) <= cap_bytes;
    if (!fits) {
      buckets_.push_back(std::make_unique<Bucket>());
      b = buckets_.back().get();
      b->dtype = p.dtype();
      b->device = p.device();
      bucket_bytes = 0;
    }
    s.bucket = buckets_.size() - 1;
    s.offset = b->numel;
    b->numel += p.numel();
    b->slots.push_back(k);
    bucket_bytes += double(p.nbytes());
  }
}

bool DataParallel::buckets_stale() const {
  for (const Slot& s : slots_) {
    const Bucket& b = *buckets_[s.bucket];
    if (s.param.dtype() != b.dtype || s.param.device() != b.device) return true;
  }
  return false;
}

DataParallel::~DataParallel() {
  for (size_t k = 0; k < slots_.size(); ++k) autodiff::remove_post_accumulate_grad_hook(slots_[k].param, hook_ids_[k]);
  // Buckets still in flight are waited for by their Work's destructor.
}

std::vector<std::vector<int64_t>> DataParallel::bucket_indices() const {
  std::vector<std::vector<int64_t>> out;
  for (auto& b : buckets_) {
    out.emplace_back();
    for (size_t k : b->slots) out.back().push_back(int64_t(k));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Forward: the round's bookkeeping around the wrapped module.

void DataParallel::before_forward() {
  SPIRE_CHECK(!round_open_, ValueError,
              "DataParallel: the gradient synchronisation of the previous backward did not finish: some "
              "parameters that forward used got no gradient (a loss using only part of the outputs?). Call "
              "finish_gradient_sync() after backward and before optimizer.step(), or make the loss depend on "
              "every output");
  if (is_training() && options_.broadcast_buffers) sync_buffers();
  if (!GradMode::enabled() || !sync_enabled_) return;
  armed_ = true;
  any_forward_ = true;
  if (reached_fresh_) {
    reached_.assign(slots_.size(), false);
    reached_fresh_ = false;
  }
}

void DataParallel::after_forward(const Tensors& outputs) {
  if (!GradMode::enabled() || !sync_enabled_) return;
  // The parameters the outputs depend on: the leaves at the ends of the graph's edges.
  std::unordered_map<const TensorImpl*, size_t> slot_of;
  for (size_t k = 0; k < slots_.size(); ++k) slot_of[slots_[k].param.impl()] = k;
  std::unordered_set<const Node*> seen;
  std::vector<std::shared_ptr<Node>> stack;
  auto visit_leaf = [&](const TensorImpl* impl) {
    auto it = slot_of.find(impl);
    if (it != slot_of.end()) reached_[it->second] = true;
  };
  for (const Tensor& y : outputs) {
    if (!y.defined() || !y.requires_grad()) continue;
    if (y.is_leaf()) {
      visit_leaf(y.impl());
      continue;
    }
    Edge e = gradient_edge(y);
    if (e.node && seen.insert(e.node.get()).second) stack.push_back(e.node);
  }
  while (!stack.empty()) {
    std::shared_ptr<Node> n = std::move(stack.back());
    stack.pop_back();
    if (auto* acc = dynamic_cast<AccumulateGrad*>(n.get())) {
      if (auto leaf = acc->leaf.lock()) visit_leaf(leaf.get());
      continue;
    }
    for (const Edge& e : n->next)
      if (e.node && seen.insert(e.node.get()).second) stack.push_back(e.node);
  }
}

Tensors DataParallel::forward(const Tensors& inputs) {
  before_forward();
  Tensors out = (*module_)(inputs);
  after_forward(out);
  return out;
}

Tensor DataParallel::forward(const Tensor& input) {
  before_forward();
  Tensor out = (*module_)(input);
  after_forward({out});
  return out;
}

void DataParallel::sync_buffers() {
  if (comm_->size() == 1) return;
  for (auto& [name, b] : module_->named_buffers()) broadcast_into(*comm_, b);
}

// ---------------------------------------------------------------------------------------------
// Backward: the round.

void DataParallel::start_round() {
  if (buckets_stale()) plan_buckets();  // nothing of this round is launched yet
  round_open_ = true;
  next_bucket_ = 0;
  for (auto& b : buckets_) b->pending = b->slots.size();
  for (size_t k = 0; k < slots_.size(); ++k) {
    slots_[k].ready = false;
    // Not reached by this round's forwards: no gradient will come; ready now. (No forward at all:
    // a backward through a retained graph; every parameter is expected.)
    if (any_forward_ && !reached_[k]) {
      slots_[k].ready = true;
      buckets_[slots_[k].bucket]->pending--;
    }
  }
}

void DataParallel::on_grad_ready(size_t k) {
  if (!sync_enabled_) return;  // no_sync: gradients accumulate locally
  if (!round_open_) start_round();
  Slot& s = slots_[k];
  SPIRE_CHECK(!s.ready, ValueError, "DataParallel: parameter '", s.name,
              "' got a gradient twice in one synchronisation round (two backward passes without "
              "finish_gradient_sync() in between, or one that its forward did not reach). Accumulate over "
              "several backward passes inside no_sync(), or call finish_gradient_sync() between them");
  s.ready = true;
  buckets_[s.bucket]->pending--;
  launch_ready_buckets();
}

void DataParallel::launch_ready_buckets() {
  // Strictly in bucket order, so every rank issues the same collectives in the same order.
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_]->pending == 0) launch(next_bucket_++);
  if (next_bucket_ == buckets_.size()) complete_round();
}

void DataParallel::launch(size_t index) {
  NoGradGuard no_grad;
  Bucket& b = *buckets_[index];
  Tensors parts;
  std::vector<double> flags;
  for (size_t k : b.slots) {
    const Tensor& p = slots_[k].param;
    Tensor g = p.grad();
    if (g.defined()) {
      SPIRE_CHECK(g.dtype() == b.dtype && g.device() == b.device && g.shape() == p.shape(), ValueError,
                  "DataParallel: the gradient of '", slots_[k].name, "' has dtype ", spire::name(g.dtype()),
                  " and shape ", shape_str(g.shape()), "; its bucket was made for ", spire::name(b.dtype), " and ",
                  shape_str(p.shape()), " on ", b.device.str(), " (a gradient must have its parameter's dtype, "
                  "shape and device)");
      parts.push_back(reshape(g.detach(), {-1}));
    } else {
      parts.push_back(zeros({p.numel()}, b.dtype, b.device));
    }
    flags.push_back(g.defined() ? 1.0 : 0.0);
  }
  Tensor f = from_vector(flags, {int64_t(flags.size())});
  parts.push_back(spire::to(cast(f, b.dtype), b.device));
  b.buffer = concat(parts, 0);
  b.work = comm_->on(b.device)->all_reduce_async(b.buffer, ReduceOp::Mean);
  ++reductions_started_;
}

void DataParallel::complete_round() {
  NoGradGuard no_grad;
  for (auto& bp : buckets_) {
    Bucket& b = *bp;
    b.work->wait();
    b.work.reset();
    std::vector<double> flags = slice(b.buffer, 0, b.numel, std::nullopt).to_vector();
    for (size_t j = 0; j < b.slots.size(); ++j) {
      Slot& s = slots_[b.slots[j]];
      // Flag 0 everywhere: no rank had a gradient; leave none, as single-process training would.
      if (flags[j] > 0)
        s.param.set_grad(reshape(slice(b.buffer, 0, s.offset, s.offset + s.param.numel()), s.param.shape()));
      else
        s.param.set_grad(Tensor());
    }
    b.buffer = Tensor();
  }
  round_open_ = false;
  armed_ = false;
  reached_fresh_ = true;
}

void DataParallel::finish_gradient_sync() {
  if (!sync_enabled_ || (!round_open_ && !armed_)) return;
  if (!round_open_) start_round();
  for (size_t k = 0; k < slots_.size(); ++k) {
    if (slots_[k].ready) continue;
    slots_[k].ready = true;
    buckets_[slots_[k].bucket]->pending--;
  }
  launch_ready_buckets();
}

bool DataParallel::sync_pending() const { return round_open_; }

DataParallel::NoSync::NoSync(DataParallel& dp) : dp_(dp), previous_(dp.sync_enabled_) { dp.sync_enabled_ = false; }
DataParallel::NoSync::~NoSync() { dp_.sync_enabled_ = previous_; }

nn::LoadResult DataParallel::load_state_dict(const nn::StateDict& state, bool strict) {
  bool prefixed = false;
  for (auto& [k, v] : state)
    if (k.rfind("module.", 0) == 0) prefixed = true;
  if (!prefixed && !state.empty()) return module_->load_state_dict(state, strict);
  return nn::Module::load_state_dict(state, strict);
}

// ---------------------------------------------------------------------------------------------
// Helpers

bool is_main_process(const Communicator* comm) { return (comm ? comm->rank() : rank()) == 0; }

data::DataLoader distributed_loader(std::shared_ptr<const data::Dataset> dataset, data::LoaderOptions options,
                                   const Communicator* comm) {
  SPIRE_CHECK(dataset != nullptr, ValueError, "distributed_loader: the dataset is null");
  const Communicator& c = comm ? *comm : world();
  auto sampler = std::make_shared<data::DistributedSampler>(dataset->size(), c.size(), c.rank(), options.shuffle,
                                                            options.seed, options.drop_last);
  options.shuffle = false;  // the sampler shuffles
  return data::DataLoader(std::move(dataset), options, std::move(sampler));
}

train::ModelCheckpointOptions save_on_main_only(train::ModelCheckpointOptions options, const Communicator* comm) {
  bool main = is_main_process(comm);
  train::WeightsWriter inner = options.writer;
  if (!inner)
    inner = [](const std::string& path, nn::Module& model, optim::Optimizer* opt, optim::LRScheduler* sched,
               int64_t epoch) { train::save_weights(path, model, opt, sched, epoch); };
  options.writer = [inner, main](const std::string& path, nn::Module& model, optim::Optimizer* opt,
                                 optim::LRScheduler* sched, int64_t epoch) {
    if (main) inner(path, model, opt, sched, epoch);
  };
  return options;
}

}  // namespace spire::parallel
