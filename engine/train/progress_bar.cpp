#include "engine/train/progress_bar.h"

#include <cmath>

#include "engine/train/format.h"

namespace spire::train {

ProgressBar::ProgressBar(ProgressBarOptions options) : options_(std::move(options)) {
  SPIRE_CHECK(bool(options_.stream.write), ValueError, "ProgressBar: the stream has no write function");
  SPIRE_CHECK(options_.width > 0, ValueError, "ProgressBar: width must be > 0, got ", options_.width);
  enabled_ = options_.force || options_.stream.is_terminal;
  redraw_ = options_.redraw.value_or(options_.stream.is_terminal);
}

std::string ProgressBar::bar(int64_t done, std::optional<int64_t> total) const {
  if (!total || *total <= 0) return std::to_string(done);
  const int64_t w = options_.width;
  int64_t filled = std::min<int64_t>(w, w * done / *total);
  std::string arrow = filled < w ? ">" : "";
  return std::to_string(done) + "/" + std::to_string(*total) + " [" + std::string(size_t(filled), '=') + arrow +
         std::string(size_t(w - filled - int64_t(arrow.size())), '.') + "]";
}

std::string ProgressBar::format_time(double seconds) {
  auto s = int64_t(std::nearbyint(seconds));  // round half to even, as Python's round
  char buf[64];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60),
                  (long long)(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)(s / 60), (long long)(s % 60));
  return buf;
}

std::string ProgressBar::head() const {
  return "Epoch " + std::to_string(epoch_ + 1) + "/" + std::to_string(params().initial_epoch + params().epochs);
}

void ProgressBar::on_epoch_begin(int64_t epoch) {
  epoch_ = epoch;
  seen_ = 0;
  t0_ = std::chrono::steady_clock::now();
}

void ProgressBar::on_batch_end(int64_t batch, const BatchLogs& logs) {
  seen_ = batch + 1;
  if (!(enabled_ && redraw_)) return;
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  double rate = dt > 0 ? double(seen_) / dt : 0.0;
  std::optional<int64_t> total = params().steps;
  std::string eta = total && rate > 0 ? " ETA " + format_time(double(*total - seen_) / rate) : "";
  // Appended piece by piece: GCC 12 misreports `"literal" + std::string&&` under -Wrestrict.
  std::string line = "\r";
  line.append(head()).append(" ").append(bar(seen_, total)).append(" ").append(printf_double("%.1f", rate));
  line.append(" it/s").append(eta).append(" loss: ").append(printf_double("%.4f", logs.mean_loss));
  options_.stream.write(line);
}

void ProgressBar::on_epoch_end(int64_t epoch, Logs& logs) {
  if (!enabled_) return;
  double dt = logs.get("train_time").value_or(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count());
  double rate = dt > 0 ? double(seen_) / dt : 0.0;
  std::string parts;
  for (const auto& [k, v] : logs) {
    if (k == "time" || k == "train_time") continue;
    if (!parts.empty()) parts += " - ";
    parts += k + ": " + printf_double(k == "lr" || k == "flops" ? "%.4g" : "%.4f", v);
  }
  std::string line = redraw_ ? "\r" : "";
  line.append(head()).append(" ").append(bar(seen_, seen_)).append(" ");
  line.append(printf_double("%.1f", logs.get("time").value_or(dt))).append("s ").append(printf_double("%.1f", rate));
  line.append(" it/s ").append(parts).append("\n");
  options_.stream.write(line);
}

}  // namespace spire::train
