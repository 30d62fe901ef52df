// Intra-op threads: how many threads one engine op (and the BLAS call inside it) may use, for the
// calling thread, as torch.set_num_threads. Small ops run serially whatever the setting (the
// kernels have a grain size). A program that runs several threads of its own (RL actors, data
// loaders) should give each of them one intra-op thread, or their thread teams contend for the
// cores: a PPO run on two busy cores measured 55x slower with two intra-op threads per thread.
#pragma once

namespace spire {

// The calling thread's setting (OpenMP's max threads; threads started later inherit the default).
int num_threads();
// n >= 1; ValueError otherwise.
void set_num_threads(int n);

// Sets the calling thread's intra-op threads for a scope and restores them after.
class NumThreadsGuard {
 public:
  explicit NumThreadsGuard(int n) : previous_(num_threads()) { set_num_threads(n); }
  ~NumThreadsGuard() { set_num_threads(previous_); }
  NumThreadsGuard(const NumThreadsGuard&) = delete;
  NumThreadsGuard& operator=(const NumThreadsGuard&) = delete;

 private:
  int previous_;
};

}  // namespace spire
