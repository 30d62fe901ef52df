#include "engine/core/stream.h"

#include <utility>

#include "engine/core/error.h"

namespace spire {
namespace {

// The hooks for `d`'s backend, once `d` is known to exist and to have streams.
const BackendHooks& stream_hooks(Device d, const char* what) {
  SPIRE_CHECK(d.kind != DeviceKind::CPU, DeviceError, what,
              ": streams and events belong to a GPU device, got cpu (CPU work runs in program order)");
  require_device(d, what);
  const BackendHooks& h = backend_hooks(d.kind, what);
  SPIRE_CHECK(h.stream_create && h.event_create, DeviceError, what, ": the ", h.name,
              " backend has no streams");
  return h;
}

}  // namespace

Stream Stream::create(Device device, int priority) {
  const BackendHooks& h = stream_hooks(device, "Stream");
  auto [lowest, highest] = h.stream_priority_range(device.index);
  int p = priority < highest ? highest : priority > lowest ? lowest : priority;
  return Stream(device, h.stream_create(device.index, p), p);
}

Stream Stream::current(Device device) {
  const BackendHooks& h = stream_hooks(device, "current_stream");
  return Stream(device, h.current_stream(device.index), 0);
}

Stream Stream::default_stream(Device device) {
  stream_hooks(device, "default_stream");
  return Stream(device, nullptr, 0);
}

void Stream::set_current(const Stream& s) {
  stream_hooks(s.device_, "set_stream").set_current_stream(s.device_.index, s.handle_);
}

void Stream::synchronize() const {
  stream_hooks(device_, "Stream.synchronize").stream_synchronize(device_.index, handle_);
}

bool Stream::query() const { return stream_hooks(device_, "Stream.query").stream_query(device_.index, handle_); }

void Stream::wait(const Event& e) const {
  if (!e.recorded()) return;  // nothing to wait for, as CUDA's own semantics for an unrecorded event
  stream_hooks(device_, "Stream.wait").stream_wait_event(device_.index, handle_, e.handle());
}

void Stream::wait(const Stream& other) const {
  Event e;
  e.record(other);
  wait(e);
}

Event::Event(bool timing) : timing_(timing) {}

Event::~Event() {
  if (!handle_) return;
  // The backend is still loaded (it registered the handle); destroy never throws.
  if (const BackendHooks* h = &backend_hooks(device_.kind, "Event"); h->event_destroy)
    h->event_destroy(device_.index, handle_);
}

Event::Event(Event&& o) noexcept : timing_(o.timing_), device_(o.device_), handle_(std::exchange(o.handle_, nullptr)) {}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    Event gone(std::move(*this));
    timing_ = o.timing_;
    device_ = o.device_;
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

void Event::record(const Stream& s) {
  const BackendHooks& h = stream_hooks(s.device(), "Event.record");
  if (handle_ && device_ != s.device()) {
    h.event_destroy(device_.index, handle_);  // an event lives on one device; start afresh
    handle_ = nullptr;
  }
  if (!handle_) {
    handle_ = h.event_create(s.device().index, timing_);
    device_ = s.device();
  }
  h.event_record(device_.index, handle_, s.handle());
}

void Event::synchronize() const {
  if (handle_) stream_hooks(device_, "Event.synchronize").event_synchronize(device_.index, handle_);
}

bool Event::query() const {
  return !handle_ || stream_hooks(device_, "Event.query").event_query(device_.index, handle_);
}

float Event::elapsed_time(const Event& end) const {
  SPIRE_CHECK(timing_ && end.timing_, ValueError,
              "Event.elapsed_time: both events need timing enabled (Event(timing=True))");
  SPIRE_CHECK(handle_ && end.handle_, ValueError, "Event.elapsed_time: both events must be recorded first");
  SPIRE_CHECK(device_ == end.device_, ValueError, "Event.elapsed_time: the events were recorded on ",
              device_.str(), " and ", end.device_.str(), "; they must be on one device");
  return stream_hooks(device_, "Event.elapsed_time").event_elapsed_ms(device_.index, handle_, end.handle_);
}

StreamGuard::StreamGuard(const Stream& s) : device_(s.device()), previous_(Stream::current(s.device())) {
  Stream::set_current(s);
}

StreamGuard::~StreamGuard() {
  try {
    Stream::set_current(previous_);
  } catch (...) {
    // Restoring cannot fail once setting did; never throw from a destructor.
  }
}

}  // namespace spire
