#include "engine/parallel/communicator.h"

#include <atomic>
#include <map>
#include <mutex>

namespace spire::parallel {
namespace {

std::mutex g_mutex;
std::map<int64_t, std::weak_ptr<Communicator>>& table() {
  static auto* t = new std::map<int64_t, std::weak_ptr<Communicator>>();  // outlives static destructors
  return *t;
}

}  // namespace

ReduceOp reduce_op_from_name(const std::string& n) {
  if (n == "sum") return ReduceOp::Sum;
  if (n == "mean") return ReduceOp::Mean;
  if (n == "max") return ReduceOp::Max;
  if (n == "min") return ReduceOp::Min;
  throw ValueError("unknown reduction '" + n + "'; allowed: sum, mean, max, min");
}

const char* name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Mean: return "mean";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
  }
  return "?";
}

Communicator::Communicator() {
  static std::atomic<int64_t> next{1};
  id_ = next++;
}

Communicator::~Communicator() {
  std::lock_guard<std::mutex> lock(g_mutex);
  table().erase(id_);
}

void Communicator::enrol(const std::shared_ptr<Communicator>& c) {
  std::lock_guard<std::mutex> lock(g_mutex);
  table()[c->id()] = c;
}

namespace {
std::mutex g_factories_mutex;
CommunicatorFactory g_factories[kNumDeviceKinds];
std::pair<int, int> key_of(Device d) { return {int(d.kind), d.index}; }
}  // namespace

void register_communicator_backend(DeviceKind kind, CommunicatorFactory make) {
  std::lock_guard<std::mutex> lock(g_factories_mutex);
  g_factories[int(kind)] = std::move(make);
}

void Communicator::set_origin(const std::shared_ptr<Communicator>& origin, bool owning) {
  origin_ = origin;
  if (owning) origin_owned_ = origin;
}

void Communicator::adopt_twin(const std::shared_ptr<Communicator>& twin) {
  std::lock_guard<std::mutex> lock(twins_mutex_);
  twins_[key_of(twin->device())] = twin;
}

std::shared_ptr<Communicator> Communicator::on(Device d) {
  if (d == device()) return shared_from_this();
  if (auto origin = origin_.lock()) return origin->on(d);
  std::lock_guard<std::mutex> lock(twins_mutex_);
  auto it = twins_.find(key_of(d));
  if (it != twins_.end()) return it->second;
  CommunicatorFactory make;
  {
    std::lock_guard<std::mutex> g(g_factories_mutex);
    make = g_factories[int(d.kind)];
  }
  SPIRE_CHECK(make, DeviceError, "no communicator backend for ", d.str(), " tensors: the ", backend(),
              " communicator works on ", device().str(), ", and this build has no ",
              d.kind == DeviceKind::CUDA ? "CUDA backend (NCCL)" : "backend for that device",
              "; move the tensors with .to(\"", device().str(), "\")");
  std::shared_ptr<Communicator> twin = make(*this, d);
  twin->set_origin(shared_from_this(), false);
  twins_[key_of(d)] = twin;
  return twin;
}

std::shared_ptr<Communicator> Communicator::find(int64_t id) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = table().find(id);
  std::shared_ptr<Communicator> c = it == table().end() ? nullptr : it->second.lock();
  SPIRE_CHECK(c, ValueError, "communicator ", id, " does not exist (it was freed, or the id is wrong)");
  return c;
}

}  // namespace spire::parallel
