#include "engine/autodiff/mode.h"

namespace spire {
namespace {
thread_local bool grad_enabled = true;
thread_local bool anomaly_enabled = false;
}  // namespace

bool GradMode::enabled() { return grad_enabled; }
void GradMode::set(bool on) { grad_enabled = on; }
bool AnomalyMode::enabled() { return anomaly_enabled; }
void AnomalyMode::set(bool on) { anomaly_enabled = on; }

}  // namespace spire
