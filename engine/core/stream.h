// Streams and events of a device backend, without the engine linking it: a Stream is a queue of
// work on one device (kernels and copies run in its order; different streams may overlap), an
// Event is a marker recorded on a stream, to make another stream wait for it or to time the work
// between two of them. Both go through the backend's hooks (engine/core/transfer.h) as opaque
// handles. CUDA-only for now: on a device kind without streams the constructors throw DeviceError.
#pragma once
#include <memory>
#include <optional>

#include "engine/core/device.h"
#include "engine/core/transfer.h"

namespace spire {

class Event;

class Stream {
 public:
  // A new stream on `device` (CUDA's convention for priority: 0 is normal, lower numbers run
  // first, clamped into the device's range). Streams come from a pool of 32 per device and
  // priority, handed out round robin and never destroyed, so two Stream objects may share one.
  static Stream create(Device device, int priority = 0);
  // The stream Spire's work on `device` goes to from this thread.
  static Stream current(Device device);
  // The device's default (legacy) stream, where work goes when no other stream is made current.
  static Stream default_stream(Device device);
  // Makes `s` current on its device for this thread (StreamGuard does it for a scope).
  static void set_current(const Stream& s);

  Device device() const { return device_; }
  void* handle() const { return handle_; }
  int priority() const { return priority_; }
  // Waits until every piece of work queued on this stream so far is done.
  void synchronize() const;
  // Whether every piece of work queued on it so far is done (does not wait).
  bool query() const;
  // Work queued on this stream from now on waits until `e` has completed (the host does not wait).
  void wait(const Event& e) const;
  // Work queued on this stream from now on waits for all of `other`'s work queued so far.
  void wait(const Stream& other) const;

  bool operator==(const Stream& o) const { return device_ == o.device_ && handle_ == o.handle_; }

 private:
  Stream(Device d, void* h, int priority) : device_(d), handle_(h), priority_(priority) {}
  Device device_;
  void* handle_ = nullptr;  // null: the default stream
  int priority_ = 0;
};

class Event {
 public:
  // `timing`: allows elapsed_time (costs a little at record time). The backend event is created
  // on the first record, on the recording stream's device.
  explicit Event(bool timing = false);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&&) noexcept;
  Event& operator=(Event&&) noexcept;

  // Marks the point in `s` reached by the work queued so far.
  void record(const Stream& s);
  void record(Device d) { record(Stream::current(d)); }
  // Waits until the recorded point is reached (at once when never recorded).
  void synchronize() const;
  // Whether the recorded point has been reached (true when never recorded).
  bool query() const;
  // Milliseconds between this event and `end`, both recorded with timing and completed.
  float elapsed_time(const Event& end) const;

  bool recorded() const { return handle_ != nullptr; }
  Device device() const { return device_; }
  void* handle() const { return handle_; }
  bool timing() const { return timing_; }

 private:
  bool timing_ = false;
  Device device_;
  void* handle_ = nullptr;
};

// Makes a stream current on its device, and that device current, for a scope.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& s);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  DeviceGuard device_;
  Stream previous_;
};

}  // namespace spire
