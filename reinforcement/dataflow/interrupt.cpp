#include "reinforcement/dataflow/interrupt.h"

#include <atomic>
#include <csignal>
#include <mutex>

namespace spire::rl::dataflow {
namespace {

std::atomic<bool> g_requested{false};
std::mutex g_mutex;
int g_depth = 0;
struct sigaction g_previous_int, g_previous_term;

extern "C" void on_signal(int sig) {
  if (sig == SIGINT && g_requested.load()) {  // the second Ctrl-C: the default action
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  g_requested.store(true);
}

}  // namespace

InterruptScope::InterruptScope() {
  std::lock_guard lock(g_mutex);
  if (g_depth++ > 0) return;
  g_requested.store(false);
  struct sigaction a {};
  a.sa_handler = on_signal;
  sigemptyset(&a.sa_mask);
  sigaction(SIGINT, &a, &g_previous_int);
  sigaction(SIGTERM, &a, &g_previous_term);
}

InterruptScope::~InterruptScope() {
  std::lock_guard lock(g_mutex);
  if (--g_depth > 0) return;
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

bool InterruptScope::requested() { return g_requested.load(); }

}  // namespace spire::rl::dataflow
