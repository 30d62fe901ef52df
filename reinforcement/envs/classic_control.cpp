#include "reinforcement/envs/classic_control.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"

// Every expression below keeps Gymnasium's operand order: floating-point addition and
// multiplication do not associate, and the parity tests compare bits. This file is compiled with
// -ffp-contract=off (see CMakeLists.txt) for the same reason.
namespace spire::rl {
namespace {
constexpr double kPi = std::numbers::pi;

// gymnasium.envs.classic_control.utils.maybe_parse_reset_bounds, with the allowed keys checked.
std::pair<double, double> reset_bounds(const std::string& env, const ResetOptions& options, double low, double high) {
  for (auto& [k, v] : options)
    SPIRE_CHECK(k == "low" || k == "high", ValueError, env, ".reset: unknown option '", k, "' (allowed: low, high)");
  if (auto it = options.find("low"); it != options.end()) low = it->second;
  if (auto it = options.find("high"); it != options.end()) high = it->second;
  SPIRE_CHECK(!(low > high), ValueError, env, ".reset: lower bound (", low, ") must be lower than higher bound (",
              high, ")");
  return {low, high};
}

float f32(double x) { return static_cast<float>(x); }

// NumPy's `x ** 2` on a float64 (float32) scalar calls libm's pow (powf), which can differ from the
// correctly rounded x * x in the last bit. GCC folds pow(x, 2.0) into x * x, so the exponent is
// hidden from it. (np.square, used by CartPole, is the plain product.)
double pow2(double x) {
  double two = 2.0;
  asm("" : "+x"(two));
  return std::pow(x, two);
}
float pow2(float x) {
  float two = 2.0f;
  asm("" : "+x"(two));
  return std::pow(x, two);
}
}  // namespace

// ---- CartPole-v1 ---------------------------------------------------------------------------------
double CartPoleEnv::theta_threshold_radians() { return 12 * 2 * kPi / 360; }

CartPoleEnv::CartPoleEnv(bool sutton_barto_reward)
    : Env("CartPole-v1",
          Space::box({f32(-kXThreshold * 2), -INFINITY, f32(-theta_threshold_radians() * 2), -INFINITY},
                     {f32(kXThreshold * 2), INFINITY, f32(theta_threshold_radians() * 2), INFINITY}, {4}),
          Space::discrete(2)),
      sutton_barto_reward_(sutton_barto_reward) {}

void CartPoleEnv::do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) {
  auto [low, high] = reset_bounds(id(), options, -0.05, 0.05);
  for (double& v : s_) v = rng.uniform(low, high);
  steps_beyond_terminated_.reset();
  write_observation(obs);
}

Transition CartPoleEnv::do_step(int64_t action, std::span<const float>, std::span<float> obs) {
  const double total_mass = kMassPole + kMassCart;
  const double polemass_length = kMassPole * kLength;
  auto [x, x_dot, theta, theta_dot] = s_;
  const double force = action == 1 ? kForceMag : -kForceMag;
  const double costheta = std::cos(theta), sintheta = std::sin(theta);
  const double temp = (force + polemass_length * (theta_dot * theta_dot) * sintheta) / total_mass;
  const double thetaacc = (kGravity * sintheta - costheta * temp) /
                          (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / total_mass));
  const double xacc = temp - polemass_length * thetaacc * costheta / total_mass;
  // kinematics_integrator == "euler"
  x = x + kTau * x_dot;
  x_dot = x_dot + kTau * xacc;
  theta = theta + kTau * theta_dot;
  theta_dot = theta_dot + kTau * thetaacc;
  s_[0] = x, s_[1] = x_dot, s_[2] = theta, s_[3] = theta_dot;
  const double th = theta_threshold_radians();
  const bool terminated = x < -kXThreshold || x > kXThreshold || theta < -th || theta > th;
  double reward;
  if (!terminated) {
    reward = sutton_barto_reward_ ? 0.0 : 1.0;
  } else if (!steps_beyond_terminated_) {
    steps_beyond_terminated_ = 0;
    reward = sutton_barto_reward_ ? -1.0 : 1.0;
  } else {
    ++*steps_beyond_terminated_;  // stepping past the end: Gymnasium gives 0 (-1 with Sutton-Barto)
    reward = sutton_barto_reward_ ? -1.0 : 0.0;
  }
  write_observation(obs);
  return {reward, terminated, false};
}

void CartPoleEnv::do_set_state(std::span<const double> s) {
  std::copy(s.begin(), s.end(), s_);
  steps_beyond_terminated_.reset();
}

void CartPoleEnv::write_observation(std::span<float> obs) const {
  for (int i = 0; i < 4; ++i) obs[i] = f32(s_[i]);
}

// ---- Acrobot-v1 ----------------------------------------------------------------------------------
double AcrobotEnv::max_vel_1() { return 4 * kPi; }
double AcrobotEnv::max_vel_2() { return 9 * kPi; }

AcrobotEnv::AcrobotEnv()
    : Env("Acrobot-v1",
          Space::box({-1, -1, -1, -1, f32(-max_vel_1()), f32(-max_vel_2())},
                     {1, 1, 1, 1, f32(max_vel_1()), f32(max_vel_2())}, {6}),
          Space::discrete(3)) {}

void AcrobotEnv::do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) {
  auto [low, high] = reset_bounds(id(), options, -0.1, 0.1);
  for (double& v : s_) v = f32(rng.uniform(low, high));  // Gymnasium: .astype(np.float32)
  write_observation(obs);
}

void AcrobotEnv::dsdt(const double* sa, double* out) {
  const double m1 = kLinkMass1, m2 = kLinkMass2, l1 = kLinkLength1, lc1 = kLinkComPos1, lc2 = kLinkComPos2;
  const double I1 = kLinkMoi, I2 = kLinkMoi, g = 9.8;
  const double a = sa[4];
  const double theta1 = sa[0], theta2 = sa[1], dtheta1 = sa[2], dtheta2 = sa[3];
  const double d1 = m1 * (lc1 * lc1) + m2 * ((l1 * l1) + (lc2 * lc2) + 2 * l1 * lc2 * std::cos(theta2)) + I1 + I2;
  const double d2 = m2 * ((lc2 * lc2) + l1 * lc2 * std::cos(theta2)) + I2;
  const double phi2 = m2 * lc2 * g * std::cos(theta1 + theta2 - kPi / 2.0);
  const double phi1 = -m2 * l1 * lc2 * pow2(dtheta2) * std::sin(theta2) -
                      2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * std::sin(theta2) +
                      (m1 * lc1 + m2 * l1) * g * std::cos(theta1 - kPi / 2) + phi2;
  // book_or_nips == "book"
  const double ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * pow2(dtheta1) * std::sin(theta2) - phi2) /
                          (m2 * (lc2 * lc2) + I2 - pow2(d2) / d1);
  const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
  out[0] = dtheta1, out[1] = dtheta2, out[2] = ddtheta1, out[3] = ddtheta2, out[4] = 0.0;
}

namespace {
// acrobot.wrap and acrobot.bound.
double wrap(double x, double m, double M) {
  const double diff = M - m;
  while (x > M) x = x - diff;
  while (x < m) x = x + diff;
  return x;
}
double bound(double x, double m, double M) { return std::min(std::max(x, m), M); }
}  // namespace

Transition AcrobotEnv::do_step(int64_t action, std::span<const float>, std::span<float> obs) {
  static constexpr double kTorque[3] = {-1.0, 0.0, +1};
  // acrobot.rk4(self._dsdt, s_augmented, [0, self.dt]): one classical Runge-Kutta step.
  double y0[5] = {s_[0], s_[1], s_[2], s_[3], kTorque[action]};
  const double dt = kDt - 0, dt2 = dt / 2.0;
  double k1[5], k2[5], k3[5], k4[5], y[5];
  dsdt(y0, k1);
  for (int i = 0; i < 5; ++i) y[i] = y0[i] + dt2 * k1[i];
  dsdt(y, k2);
  for (int i = 0; i < 5; ++i) y[i] = y0[i] + dt2 * k2[i];
  dsdt(y, k3);
  for (int i = 0; i < 5; ++i) y[i] = y0[i] + dt * k3[i];
  dsdt(y, k4);
  for (int i = 0; i < 4; ++i) s_[i] = y0[i] + dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  s_[0] = wrap(s_[0], -kPi, kPi);
  s_[1] = wrap(s_[1], -kPi, kPi);
  s_[2] = bound(s_[2], -max_vel_1(), max_vel_1());
  s_[3] = bound(s_[3], -max_vel_2(), max_vel_2());
  const bool terminated = -std::cos(s_[0]) - std::cos(s_[1] + s_[0]) > 1.0;
  write_observation(obs);
  return {terminated ? 0.0 : -1.0, terminated, false};
}

void AcrobotEnv::do_set_state(std::span<const double> s) { std::copy(s.begin(), s.end(), s_); }

void AcrobotEnv::write_observation(std::span<float> obs) const {
  obs[0] = f32(std::cos(s_[0]));
  obs[1] = f32(std::sin(s_[0]));
  obs[2] = f32(std::cos(s_[1]));
  obs[3] = f32(std::sin(s_[1]));
  obs[4] = f32(s_[2]);
  obs[5] = f32(s_[3]);
}

// ---- MountainCar-v0 ------------------------------------------------------------------------------
MountainCarEnv::MountainCarEnv(double goal_velocity)
    : Env("MountainCar-v0",
          Space::box({f32(kMinPosition), f32(-kMaxSpeed)}, {f32(kMaxPosition), f32(kMaxSpeed)}, {2}),
          Space::discrete(3)),
      goal_velocity_(goal_velocity) {}

void MountainCarEnv::do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) {
  auto [low, high] = reset_bounds(id(), options, -0.6, -0.4);
  position_ = rng.uniform(low, high);
  velocity_ = 0;
  write_observation(obs);
}

Transition MountainCarEnv::do_step(int64_t action, std::span<const float>, std::span<float> obs) {
  double position = position_, velocity = velocity_;
  velocity += static_cast<double>(action - 1) * kForce + std::cos(3 * position) * (-kGravity);
  velocity = std::min(std::max(velocity, -kMaxSpeed), kMaxSpeed);
  position += velocity;
  position = std::min(std::max(position, kMinPosition), kMaxPosition);
  if (position == kMinPosition && velocity < 0) velocity = 0;
  const bool terminated = position >= kGoalPosition && velocity >= goal_velocity_;
  position_ = position, velocity_ = velocity;
  write_observation(obs);
  return {-1.0, terminated, false};
}

void MountainCarEnv::do_set_state(std::span<const double> s) { position_ = s[0], velocity_ = s[1]; }

void MountainCarEnv::write_observation(std::span<float> obs) const {
  obs[0] = f32(position_);
  obs[1] = f32(velocity_);
}

// ---- MountainCarContinuous-v0 --------------------------------------------------------------------
ContinuousMountainCarEnv::ContinuousMountainCarEnv(double goal_velocity)
    : Env("MountainCarContinuous-v0",
          Space::box({f32(kMinPosition), f32(-kMaxSpeed)}, {f32(kMaxPosition), f32(kMaxSpeed)}, {2}),
          Space::box(f32(kMinAction), f32(kMaxAction), {1})),
      goal_velocity_(goal_velocity) {}

void ContinuousMountainCarEnv::do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) {
  auto [low, high] = reset_bounds(id(), options, -0.6, -0.4);
  position_ = rng.uniform(low, high);
  velocity_ = 0;
  float32_state_ = false;
  write_observation(obs);
}

// NumPy 2 arithmetic between a float32 scalar and a Python float happens in float32 (the Python
// float is rounded first); between float32 and float64 scalars, in float64. A value below is
// "float32" while Gymnasium holds it as np.float32 and float64 while it is a Python float or
// np.float64. Comparisons with Python floats follow the same rule.
Transition ContinuousMountainCarEnv::do_step(int64_t, std::span<const float> action, std::span<float> obs) {
  const float a = action[0];
  // force = min(max(action[0], min_action), max_action): np.float32, or the Python float bound.
  double force = a;
  bool force_f32 = true;
  if (kMinAction > force) force = kMinAction, force_f32 = false;
  if (kMaxAction < force) force = kMaxAction, force_f32 = false;

  double position = position_, velocity = velocity_;
  bool pos_f32 = float32_state_, vel_f32 = float32_state_;
  // velocity += force * self.power - 0.0025 * math.cos(3 * position)
  const double three_pos = pos_f32 ? f32(3 * position) : 3 * position;
  const double c = 0.0025 * std::cos(three_pos);
  double term;
  bool term_f32;
  if (force_f32) {
    term = f32(f32(force * f32(kPower)) - f32(c));
    term_f32 = true;
  } else {
    term = force * kPower - c;
    term_f32 = false;
  }
  if (vel_f32) velocity = f32(velocity + (term_f32 ? term : f32(term)));
  else velocity = velocity + term;
  // Comparisons against Python floats: in float32 when the left side is np.float32.
  auto cmp_bound = [](bool is_f32, double b) { return is_f32 ? static_cast<double>(f32(b)) : b; };
  if (velocity > cmp_bound(vel_f32, kMaxSpeed)) velocity = kMaxSpeed, vel_f32 = false;
  if (velocity < cmp_bound(vel_f32, -kMaxSpeed)) velocity = -kMaxSpeed, vel_f32 = false;
  // position += velocity
  if (pos_f32) position = f32(position + (vel_f32 ? velocity : f32(velocity)));
  else position = position + velocity;
  if (position > cmp_bound(pos_f32, kMaxPosition)) position = kMaxPosition, pos_f32 = false;
  if (position < cmp_bound(pos_f32, kMinPosition)) position = kMinPosition, pos_f32 = false;
  if (position == cmp_bound(pos_f32, kMinPosition) && velocity < 0) velocity = 0, vel_f32 = false;
  const bool terminated =
      position >= cmp_bound(pos_f32, kGoalPosition) && velocity >= cmp_bound(vel_f32, goal_velocity_);
  double reward = terminated ? 100.0 : 0.0;
  reward -= pow2(static_cast<double>(a)) * 0.1;  // the unclipped action, as Gymnasium
  position_ = f32(position), velocity_ = f32(velocity);  // self.state = np.array(..., dtype=np.float32)
  float32_state_ = true;
  write_observation(obs);
  return {reward, terminated, false};
}

void ContinuousMountainCarEnv::do_set_state(std::span<const double> s) {
  position_ = s[0], velocity_ = s[1];
  float32_state_ = false;
}

void ContinuousMountainCarEnv::write_observation(std::span<float> obs) const {
  obs[0] = f32(position_);
  obs[1] = f32(velocity_);
}

// ---- Pendulum-v1 ---------------------------------------------------------------------------------
PendulumEnv::PendulumEnv(double g)
    : Env("Pendulum-v1", Space::box({-1, -1, f32(-kMaxSpeed)}, {1, 1, f32(kMaxSpeed)}, {3}),
          Space::box(f32(-kMaxTorque), f32(kMaxTorque), {1})),
      g_(g) {}

double PendulumEnv::angle_normalize(double x) {
  // NumPy's floored remainder (npy_divmod): fmod, moved into the divisor's sign.
  const double b = 2 * kPi;
  double mod = std::fmod(x + kPi, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod - kPi;
}

void PendulumEnv::do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) {
  double x = kPi, y = 1.0;  // DEFAULT_X, DEFAULT_Y
  for (auto& [k, v] : options) {
    SPIRE_CHECK(k == "x_init" || k == "y_init", ValueError, id(), ".reset: unknown option '", k,
                "' (allowed: x_init, y_init)");
    (k == "x_init" ? x : y) = v;
  }
  // uniform(low=-high, high=high) over [theta, theta_dot]
  theta_ = rng.uniform(-x, x);
  theta_dot_ = rng.uniform(-y, y);
  write_observation(obs);
}

Transition PendulumEnv::do_step(int64_t, std::span<const float> action, std::span<float> obs) {
  const double th = theta_, thdot = theta_dot_;
  // u = np.clip(u, -max_torque, max_torque)[0]: stays float32
  const float u = std::min(std::max(action[0], f32(-kMaxTorque)), f32(kMaxTorque));
  const double an = angle_normalize(th);
  const float uu = pow2(u);                           // np.float32 ** 2
  const double control = f32(f32(0.001) * uu);        // 0.001 * float32 -> float32
  const double costs = pow2(an) + 0.1 * pow2(thdot) + control;
  const double torque = f32(f32(3.0 / (kM * (kL * kL))) * u);  // 3.0 / (m * l**2) * u -> float32
  double newthdot = thdot + (3 * g_ / (2 * kL) * std::sin(th) + torque) * kDt;
  newthdot = std::min(std::max(newthdot, -kMaxSpeed), kMaxSpeed);
  const double newth = th + newthdot * kDt;
  theta_ = newth, theta_dot_ = newthdot;
  write_observation(obs);
  return {-costs, false, false};
}

void PendulumEnv::do_set_state(std::span<const double> s) { theta_ = s[0], theta_dot_ = s[1]; }

void PendulumEnv::write_observation(std::span<float> obs) const {
  obs[0] = f32(std::cos(theta_));
  obs[1] = f32(std::sin(theta_));
  obs[2] = f32(theta_dot_);
}

}  // namespace spire::rl
