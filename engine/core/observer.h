// Op observers watch every op call while they are installed: FLOP counters, profilers, tracers.
// Dispatch tells each installed observer about each call that ran a kernel or made a view, once its
// outputs exist. Calls inside vmap are seen as the physical ops its batching rules run, so what an
// observer sees is the work actually done. With no observer installed a call pays one relaxed
// atomic load.
//
//   FlopCounter flops;
//   {
//     ObserverScope scope(flops);   // installed for every thread until the scope ends
//     loss = model(x); loss.backward();
//   }
//   flops.total();                  // forward and backward matmul/conv FLOPs
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/op.h"

namespace spire {

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  // Called from the thread that made the call; observers used across threads synchronise themselves.
  virtual void on_call(const OpDef& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                       const Attrs& attrs) = 0;
};

// Installs `observer` for the scope's lifetime; scopes nest and may overlap across threads.
class ObserverScope {
 public:
  explicit ObserverScope(OpObserver& observer);
  ~ObserverScope();
  ObserverScope(const ObserverScope&) = delete;
  ObserverScope& operator=(const ObserverScope&) = delete;

 private:
  OpObserver* observer_;
};

namespace observers {
bool active();  // any observer installed
void notify(const OpDef& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
            const Attrs& attrs);
}  // namespace observers

// Sums OpDef::flops over the calls it sees, per op name. Ops without a FLOP rule count 0 (as in
// PyTorch's FlopCounterMode: elementwise work is not counted).
class FlopCounter : public OpObserver {
 public:
  void on_call(const OpDef& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
               const Attrs& attrs) override;
  double total() const;
  std::map<std::string, double> by_op() const;
  void reset();

 private:
  mutable std::mutex mutex_;
  std::map<std::string, double> by_op_;
  double total_ = 0;
};

}  // namespace spire
