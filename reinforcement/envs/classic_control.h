// Gymnasium's classic-control environments (gymnasium/envs/classic_control, v1.0.0) with their
// dynamics, constants, limits and termination. Each step repeats Gymnasium's floating-point
// operations in Gymnasium's order and precision (float64 where NumPy computes in float64, float32
// where NumPy 2's promotion rules compute in float32), so trajectories match to the last bit
// wherever the math library's sin/cos agree with NumPy's.
#pragma once
#include <optional>

#include "reinforcement/envs/env.h"

namespace spire::rl {

// CartPole-v1: push the cart left (0) or right (1); +1 per step until the pole passes 12 degrees or
// the cart leaves +-2.4. State (x, x_dot, theta, theta_dot), float64; observation the same, float32.
class CartPoleEnv : public Env {
 public:
  static constexpr double kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1, kLength = 0.5, kForceMag = 10.0,
                          kTau = 0.02, kXThreshold = 2.4;
  static double theta_threshold_radians();  // 12 * 2 * pi / 360
  // sutton_barto_reward: 0 per step and -1 on termination (Gymnasium's option) instead of +1.
  explicit CartPoleEnv(bool sutton_barto_reward = false);
  std::vector<double> state() const override { return {s_[0], s_[1], s_[2], s_[3]}; }
  std::unique_ptr<Env> clone() const override { return std::unique_ptr<Env>(new CartPoleEnv(*this)); }

 protected:
  void do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) override;
  Transition do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) override;
  void do_set_state(std::span<const double> s) override;
  void write_observation(std::span<float> obs) const override;
  size_t state_size() const override { return 4; }

 private:
  bool sutton_barto_reward_;
  double s_[4] = {0, 0, 0, 0};
  std::optional<int64_t> steps_beyond_terminated_;
};

// Acrobot-v1: torque -1, 0, +1 (actions 0, 1, 2) on the joint between two links; -1 per step until
// the free end rises a link's length above the pivot. RK4 over dt = 0.2 ("book" dynamics); state
// (theta1, theta2, dtheta1, dtheta2); observation (cos t1, sin t1, cos t2, sin t2, dt1, dt2).
class AcrobotEnv : public Env {
 public:
  static constexpr double kDt = 0.2, kLinkLength1 = 1.0, kLinkMass1 = 1.0, kLinkMass2 = 1.0, kLinkComPos1 = 0.5,
                          kLinkComPos2 = 0.5, kLinkMoi = 1.0;
  static double max_vel_1();  // 4 pi
  static double max_vel_2();  // 9 pi
  AcrobotEnv();
  std::vector<double> state() const override { return {s_[0], s_[1], s_[2], s_[3]}; }
  std::unique_ptr<Env> clone() const override { return std::unique_ptr<Env>(new AcrobotEnv(*this)); }
  // The time derivative of (theta1, theta2, dtheta1, dtheta2, torque), Gymnasium's _dsdt.
  static void dsdt(const double* s_augmented, double* out);

 protected:
  void do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) override;
  Transition do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) override;
  void do_set_state(std::span<const double> s) override;
  void write_observation(std::span<float> obs) const override;
  size_t state_size() const override { return 4; }

 private:
  double s_[4] = {0, 0, 0, 0};
};

// MountainCar-v0: push left (0), nothing (1), right (2); -1 per step until position >= 0.5.
class MountainCarEnv : public Env {
 public:
  static constexpr double kMinPosition = -1.2, kMaxPosition = 0.6, kMaxSpeed = 0.07, kGoalPosition = 0.5,
                          kForce = 0.001, kGravity = 0.0025;
  explicit MountainCarEnv(double goal_velocity = 0);
  std::vector<double> state() const override { return {position_, velocity_}; }
  std::unique_ptr<Env> clone() const override { return std::unique_ptr<Env>(new MountainCarEnv(*this)); }

 protected:
  void do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) override;
  Transition do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) override;
  void do_set_state(std::span<const double> s) override;
  void write_observation(std::span<float> obs) const override;
  size_t state_size() const override { return 2; }

 private:
  double goal_velocity_;
  double position_ = 0, velocity_ = 0;
};

// MountainCarContinuous-v0: force in [-1, 1]; +100 on reaching position >= 0.45, minus
// 0.1 * action^2 each step. Gymnasium keeps this state in float32 after the first step (and
// in float64 right after reset); the step reproduces both precisions.
class ContinuousMountainCarEnv : public Env {
 public:
  static constexpr double kMinAction = -1.0, kMaxAction = 1.0, kMinPosition = -1.2, kMaxPosition = 0.6,
                          kMaxSpeed = 0.07, kGoalPosition = 0.45, kPower = 0.0015;
  explicit ContinuousMountainCarEnv(double goal_velocity = 0);
  std::vector<double> state() const override { return {position_, velocity_}; }
  std::unique_ptr<Env> clone() const override { return std::unique_ptr<Env>(new ContinuousMountainCarEnv(*this)); }

 protected:
  void do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) override;
  Transition do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) override;
  // Takes the state as Gymnasium holds it right after reset (float64).
  void do_set_state(std::span<const double> s) override;
  void write_observation(std::span<float> obs) const override;
  size_t state_size() const override { return 2; }

 private:
  double goal_velocity_;
  double position_ = 0, velocity_ = 0;
  bool float32_state_ = false;  // Gymnasium's self.state is a float32 array after any step
};

// Pendulum-v1: torque in [-2, 2]; reward -(angle^2 + 0.1 * theta_dot^2 + 0.001 * torque^2); never
// terminates (the time limit truncates at 200 steps). State (theta, theta_dot); observation
// (cos theta, sin theta, theta_dot).
class PendulumEnv : public Env {
 public:
  static constexpr double kMaxSpeed = 8, kMaxTorque = 2.0, kDt = 0.05, kM = 1.0, kL = 1.0;
  explicit PendulumEnv(double g = 10.0);
  std::vector<double> state() const override { return {theta_, theta_dot_}; }
  std::unique_ptr<Env> clone() const override { return std::unique_ptr<Env>(new PendulumEnv(*this)); }
  // ((x + pi) mod 2 pi) - pi with Python's floored modulo.
  static double angle_normalize(double x);

 protected:
  void do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) override;
  Transition do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) override;
  void do_set_state(std::span<const double> s) override;
  void write_observation(std::span<float> obs) const override;
  size_t state_size() const override { return 2; }

 private:
  double g_;
  double theta_ = 0, theta_dot_ = 0;
};

}  // namespace spire::rl
