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

std::shared_ptr<Communicator> Communicator::find(int64_t id) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = table().find(id);
  std::shared_ptr<Communicator> c = it == table().end() ? nullptr : it->second.lock();
  SPIRE_CHECK(c, ValueError, "communicator ", id, " does not exist (it was freed, or the id is wrong)");
  return c;
}

}  // namespace spire::parallel
