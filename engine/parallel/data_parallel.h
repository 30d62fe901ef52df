// Data-parallel training (torch.nn.parallel.DistributedDataParallel): every rank holds a replica of
// the model, runs it on its own shard of the global batch, and the gradients are averaged over the
// ranks before the optimizer step, so every replica takes the same step.
//
//   auto model = std::make_shared<parallel::DataParallel>(net);   // broadcasts rank 0's parameters
//   auto loader = parallel::distributed_loader(dataset, {.batch_size = 32, .shuffle = true});
//   for (auto it = loader.iter(); auto batch = it.next();) {
//     optimizer.zero_grad();
//     loss_fn((*model)(x), y).backward();   // gradients averaged while backward runs
//     optimizer.step();
//   }
//
// Overlap. Parameters are grouped into buckets of at most bucket_cap_mb megabytes, in reverse
// registration order (backward reaches the last layers first), one dtype and device per bucket
// (planned again at the next backward when .to() has converted or moved the model since).
// Each parameter carries a post-accumulate-grad hook (autodiff/hooks.h). When every parameter of a
// bucket is ready, its gradients are flattened into one buffer and its all_reduce_async(Mean)
// starts, while backward goes on with the earlier layers. When the last bucket has started, the
// hook waits for all of them and writes the averaged values back into each parameter's .grad.
//
// The synchronisation round. forward() records which parameters its outputs reach (a walk of the
// graph, as torch's find_unused_parameters). When the first hook of a round fires, the parameters
// that no forward of the round reached are marked ready at once. Buckets are launched strictly in
// bucket order, each exactly once per round: bucket k starts only when it and every bucket before it
// are ready. So every rank issues the same collectives in the same order, whichever parameters its
// local data used (the rule that keeps ranks in step). A parameter that did not fire contributes its
// current .grad (a gradient accumulated under no_sync) or zeros. With each gradient travels a flag
// "this rank has a gradient"; a parameter whose flag is 0 on every rank keeps an undefined .grad,
// as it would in single-process training, so optimizers skip it alike.
//
// A round ends in the hook that completes the last bucket. When a parameter that forward reached
// gets no gradient (a loss that uses only part of the output), the round stays open: call
// finish_gradient_sync() (collective) before optimizer.step(); it starts the remaining buckets and
// writes back. The next forward() finishes an open round too, but that is too late for the step
// in between, so forward() raises then (the job ends with the message rather than silently
// diverging replicas), unless the round was already finished.
//
// Accumulation. Inside no_sync() (a scope object) the hooks do nothing: gradients accumulate
// locally, and the first backward after the scope averages the accumulated sums (torch's
// no_sync). Several backward calls per round without no_sync are also correct (each averages its
// own gradient added to an already averaged one), only slower.
//
// Determinism. A bucket's reduction is the communicator's all_reduce, which combines ranks in rank
// order: the result is the same bits on every rank and every run, and does not depend on bucket
// boundaries or on when each bucket was launched (the mean is elementwise).
//
// State. The wrapped model is the child "module", so state_dict keys are "module.<name>" as torch's
// DDP. load_state_dict (this class's) also takes a plain model's dict (no key starts with "module."):
// it is loaded into the wrapped model. module() gives the plain model (its state_dict has no
// prefix), which is what to save for single-process use.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/loader.h"
#include "engine/data/sampler.h"
#include "engine/nn/module.h"
#include "engine/parallel/communicator.h"

namespace spire::train {
struct ModelCheckpointOptions;
}

namespace spire::parallel {

struct DataParallelOptions {
  double bucket_cap_mb = 25;       // largest bucket, in MiB (a larger parameter gets a bucket alone)
  bool broadcast_buffers = true;   // rank 0's buffers to every rank at each training forward
};

class DataParallel : public nn::Module {
 public:
  // comm nullptr: the world communicator. Collective: every rank of comm constructs it (rank 0's
  // parameters and buffers are broadcast to all).
  DataParallel(nn::ModulePtr module, std::shared_ptr<Communicator> comm = nullptr,
               DataParallelOptions options = {});
  ~DataParallel() override;

  using nn::Module::forward;
  Tensors forward(const Tensors& inputs) override;
  Tensor forward(const Tensor& input) override;

  // For bindings whose forward is not an engine call (a Python module with keyword arguments):
  // before_forward() before calling the module, after_forward(outputs) with the tensors it returned.
  void before_forward();
  void after_forward(const Tensors& outputs);

  // Collective: completes an open round (see the file comment); nothing when none is open.
  void finish_gradient_sync();
  // Whether a round has started (a hook fired) and not finished.
  bool sync_pending() const;

  // RAII scope without gradient averaging (torch's `with ddp.no_sync():`).
  class NoSync {
   public:
    explicit NoSync(DataParallel& dp);
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DataParallel& dp_;
    bool previous_;
  };
  NoSync no_sync() { return NoSync(*this); }
  bool require_backward_grad_sync() const { return sync_enabled_; }
  void set_require_backward_grad_sync(bool on) { sync_enabled_ = on; }

  nn::ModulePtr module() const { return module_; }
  Communicator& communicator() const { return *comm_; }
  std::shared_ptr<Communicator> communicator_ptr() const { return comm_; }
  const DataParallelOptions& options() const { return options_; }
  // The buckets as indices into module()->parameters() (those that require grad), launch order,
  // as planned for the latest round.
  std::vector<std::vector<int64_t>> bucket_indices() const;
  // How many bucket all-reduces have been started (for tests and diagnostics).
  int64_t reductions_started() const { return reductions_started_; }

  // Accepts "module."-prefixed keys (this model's own dict) or a plain model's keys.
  nn::LoadResult load_state_dict(const nn::StateDict& state, bool strict = true);

  struct Bucket;
  struct Slot;

 private:
  void plan_buckets();
  bool buckets_stale() const;  // a parameter's dtype or device changed (.to()) since the plan
  void on_grad_ready(size_t slot);
  void start_round();
  void launch_ready_buckets();
  void launch(size_t bucket);
  void complete_round();
  void sync_buffers();

  nn::ModulePtr module_;
  std::shared_ptr<Communicator> comm_;
  DataParallelOptions options_;
  std::vector<Slot> slots_;                       // one per parameter that requires grad
  std::vector<std::unique_ptr<Bucket>> buckets_;  // launch order
  std::vector<int64_t> hook_ids_;
  std::vector<bool> reached_;                     // per slot: some forward of the round reached it
  bool round_open_ = false;
  bool armed_ = false;          // a training forward happened since the last round ended
  bool reached_fresh_ = true;   // the next forward starts a new reached_ set
  bool any_forward_ = false;
  size_t next_bucket_ = 0;                        // the next bucket to launch in this round
  bool sync_enabled_ = true;
  int64_t reductions_started_ = 0;
};

// rank 0 of comm (the world when nullptr) is the main process: the one that writes checkpoints and
// logs. True in a single process.
bool is_main_process(const Communicator* comm = nullptr);

// A DataLoader over this rank's shard: a DistributedSampler(dataset size, comm size, comm rank)
// taking the options' shuffle, seed and drop_last (torch's DistributedSampler + DataLoader).
// loader.set_epoch(e) reshuffles alike on every rank. With the same per-rank batch size B on n
// ranks, step k of every rank together covers the global batch of n*B samples.
data::DataLoader distributed_loader(std::shared_ptr<const data::Dataset> dataset, data::LoaderOptions options = {},
                                   const Communicator* comm = nullptr);

// ModelCheckpoint options that write only on the main process (the other ranks keep the same
// schedule but write nothing). No barrier: ranks may decide differently whether to save when the
// monitored value is rank-local; call barrier() before other ranks read a file.
train::ModelCheckpointOptions save_on_main_only(train::ModelCheckpointOptions options,
                                                const Communicator* comm = nullptr);

}  // namespace spire::parallel
