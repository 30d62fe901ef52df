#include "reinforcement/mcts/parallel.h"

#include <omp.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace spire::rl {

int default_threads() { return std::max(1, omp_get_max_threads()); }

namespace {

thread_local bool in_worker = false;

class Pool {
 public:
  void run(int64_t n, int threads, const std::function<void(int64_t)>& body) {
    std::unique_lock call(call_mutex_, std::try_to_lock);
    if (in_worker || !call.owns_lock()) {  // nested, or the pool is busy with another caller
      for (int64_t i = 0; i < n; ++i) body(i);
      return;
    }
    std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
    {
      std::lock_guard lock(mutex_);
      while (static_cast<int>(workers_.size()) < threads - 1) workers_.emplace_back([this, id = workers_.size()] { work(static_cast<int>(id)); });
      body_ = &body;
      errors_ = &errors;
      n_ = n;
      helpers_ = threads - 1;
      next_.store(0);
      done_.store(0);
      open_ = true;
      ++generation_;
    }
    wake_.notify_all();
    claim();
    {
      std::unique_lock lock(mutex_);
      open_ = false;  // a worker waking from now on finds nothing to do
      finished_.wait(lock, [&] { return done_.load() == n_ && inside_ == 0; });
      body_ = nullptr;
      errors_ = nullptr;
    }
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  // Takes indices until none is left.
  void claim() {
    for (int64_t i; (i = next_.fetch_add(1)) < n_;) {
      try {
        (*body_)(i);
      } catch (...) {
        (*errors_)[static_cast<size_t>(i)] = std::current_exception();
      }
      if (done_.fetch_add(1) + 1 == n_) {
        std::lock_guard lock(mutex_);
        finished_.notify_all();
      }
    }
  }

  void work(int id) {
    in_worker = true;
    uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (!open_ || id >= helpers_) continue;
      ++inside_;
      lock.unlock();
      claim();
      lock.lock();
      if (--inside_ == 0) finished_.notify_all();
    }
  }

  std::mutex call_mutex_, mutex_;
  std::condition_variable wake_, finished_;
  std::vector<std::thread> workers_;
  const std::function<void(int64_t)>* body_ = nullptr;
  std::vector<std::exception_ptr>* errors_ = nullptr;
  int64_t n_ = 0;
  int helpers_ = 0, inside_ = 0;
  bool open_ = false;
  uint64_t generation_ = 0;
  std::atomic<int64_t> next_{0}, done_{0};
};

// Never destroyed: its workers sleep until the process ends (no join at exit, where the
// interpreter or other statics may already be gone).
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void parallel_over_impl(int64_t n, int threads, const std::function<void(int64_t)>& body) {
  pool().run(n, threads, body);
}

}  // namespace spire::rl
