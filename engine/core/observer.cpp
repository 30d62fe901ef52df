#include "engine/core/observer.h"

#include <algorithm>
#include <atomic>

namespace spire {
namespace {

// The installed observers. Notification copies the list under the lock and calls outside it, so an
// observer may itself call ops (which are then not observed: see `reentered`).
std::mutex g_mutex;
std::vector<OpObserver*> g_observers;
std::atomic<int> g_count{0};
thread_local bool reentered = false;

}  // namespace

ObserverScope::ObserverScope(OpObserver& observer) : observer_(&observer) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_observers.push_back(observer_);
  g_count.store(int(g_observers.size()), std::memory_order_relaxed);
}

ObserverScope::~ObserverScope() {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = std::find(g_observers.rbegin(), g_observers.rend(), observer_);
  if (it != g_observers.rend()) g_observers.erase(std::next(it).base());
  g_count.store(int(g_observers.size()), std::memory_order_relaxed);
}

namespace observers {

bool active() { return g_count.load(std::memory_order_relaxed) > 0; }

void notify(const OpDef& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
            const Attrs& attrs) {
  if (reentered) return;
  std::vector<OpObserver*> list;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    list = g_observers;
  }
  reentered = true;
  try {
    for (OpObserver* o : list) o->on_call(op, inputs, outputs, attrs);
  } catch (...) {
    reentered = false;
    throw;
  }
  reentered = false;
}

}  // namespace observers

void FlopCounter::on_call(const OpDef& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                          const Attrs& attrs) {
  if (!op.flops) return;
  double f = op.flops(inputs, outputs, attrs);
  std::lock_guard<std::mutex> lock(mutex_);
  by_op_[op.name] += f;
  total_ += f;
}

double FlopCounter::total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_;
}

std::map<std::string, double> FlopCounter::by_op() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_op_;
}

void FlopCounter::reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  by_op_.clear();
  total_ = 0;
}

}  // namespace spire
