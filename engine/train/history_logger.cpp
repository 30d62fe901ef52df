#include "engine/train/history_logger.h"

#include <hdf5.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>

#include "engine/data/atomic_file.h"
#include "engine/data/hdf5_lock.h"
#include "engine/data/hdf5_util.h"
#include "engine/train/format.h"

namespace spire::train {

namespace {

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

// A CSV field, quoted when it holds the separator, a quote or a line break (csv.QUOTE_MINIMAL).
std::string csv_field(const std::string& s, const std::string& sep) {
  if (s.find(sep) == std::string::npos && s.find_first_of("\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The fields of one CSV line (quotes undone).
std::vector<std::string> split_csv(const std::string& line, const std::string& sep) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (line.compare(i, sep.size(), sep) == 0) {
      out.push_back(cur);
      cur.clear();
      i += sep.size() - 1;
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

using Lock = std::lock_guard<std::recursive_mutex>;

using H = data::Hdf5Id;
using QuietErrors = data::QuietHdf5Errors;

void write_column(hid_t file, const std::string& name, hid_t type, const void* data, size_t n, const std::string& path) {
  hsize_t dims[1] = {hsize_t(n)};
  H space(H5Screate_simple(1, dims, nullptr), H5Sclose);
  H ds(H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  SPIRE_CHECK(ds >= 0, IOError, "HistoryLogger: cannot create dataset '", name, "' in '", path, "'");
  if (n > 0)
    SPIRE_CHECK(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, IOError,
                "HistoryLogger: cannot write dataset '", name, "' in '", path, "'");
}

}  // namespace

bool is_hdf5_path(const std::string& path) { return ends_with_ci(path, ".h5") || ends_with_ci(path, ".hdf5"); }

HistoryLogger::HistoryLogger(HistoryLoggerOptions options) : options_(std::move(options)) {
  SPIRE_CHECK(!options_.path.empty(), ValueError, "HistoryLogger: path is empty");
  SPIRE_CHECK(!options_.separator.empty(), ValueError, "HistoryLogger: separator is empty");
  hdf5_ = is_hdf5_path(options_.path);
}

HistoryLogger::~HistoryLogger() { close(); }

void HistoryLogger::close() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

void HistoryLogger::on_train_begin() {
  close();
  keys_.reset();
  rows_.clear();
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = options_.append && fs::exists(options_.path, ec) && fs::file_size(options_.path, ec) > 0;
  if (hdf5_) {
    if (exists) read_hdf5();
    return;
  }
  if (exists) {
    std::ifstream in(options_.path);
    std::string header;
    if (std::getline(in, header)) {
      auto fields = split_csv(header, options_.separator);
      keys_.emplace(fields.begin() + (fields.empty() ? 0 : 1), fields.end());
    }
  }
  file_ = std::fopen(options_.path.c_str(), options_.append ? "a" : "w");
  SPIRE_CHECK(file_ != nullptr, IOError, "HistoryLogger: cannot open '", options_.path, "' for writing");
}

void HistoryLogger::write_csv_row(int64_t epoch, const Logs& logs) {
  const std::string& sep = options_.separator;
  std::string text;
  if (!keys_) {
    keys_ = logs.keys();
    text += "epoch";
    for (const auto& k : *keys_) text += sep + csv_field(k, sep);
    text += "\r\n";  // csv.writer's line ending
  }
  text += std::to_string(epoch);
  for (const auto& k : *keys_) {
    auto v = logs.get(k);
    text += sep + (v ? python_repr(*v) : std::string());
  }
  text += "\r\n";
  // One write per epoch, flushed at once: a reader sees whole rows.
  SPIRE_CHECK(std::fwrite(text.data(), 1, text.size(), file_) == text.size() && std::fflush(file_) == 0, IOError,
              "HistoryLogger: cannot write to '", options_.path, "'");
}

void HistoryLogger::on_epoch_end(int64_t epoch, Logs& logs) {
  if (!hdf5_) {
    SPIRE_CHECK(file_ != nullptr, ValueError, "HistoryLogger: on_epoch_end before on_train_begin");
    write_csv_row(epoch, logs);
    rows_.emplace_back(epoch, logs);
    return;
  }
  rows_.emplace_back(epoch, logs);
  unwritten_ = true;
  if (options_.write_every > 0 && rows_.size() % size_t(options_.write_every) == 0) flush();
}

void HistoryLogger::flush() {
  if (!hdf5_ || !unwritten_) return;
  write_hdf5();
  unwritten_ = false;
}

void HistoryLogger::on_train_end(const History&) {
  flush();
  close();
}

void HistoryLogger::write_hdf5() const {
  std::set<std::string> keys;
  for (const auto& [e, logs] : rows_)
    for (const auto& [k, v] : logs) keys.insert(k);
  keys.erase("epoch");
  data::write_atomically(options_.path, "HistoryLogger", [&](const std::string& tmp) {
    Lock lock(data::hdf5_mutex());
    QuietErrors quiet;
    H file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    SPIRE_CHECK(file >= 0, IOError, "HistoryLogger: cannot create '", tmp, "'");
    std::vector<int64_t> epochs;
    for (const auto& [e, logs] : rows_) epochs.push_back(e);
    write_column(file, "epoch", H5T_NATIVE_INT64, epochs.data(), epochs.size(), options_.path);
    for (const auto& k : keys) {
      std::vector<double> col;
      for (const auto& [e, logs] : rows_) col.push_back(logs.get(k).value_or(std::numeric_limits<double>::quiet_NaN()));
      write_column(file, k, H5T_NATIVE_DOUBLE, col.data(), col.size(), options_.path);
    }
  });
}

void HistoryLogger::read_hdf5() {
  Lock lock(data::hdf5_mutex());
  QuietErrors quiet;
  const std::string& path = options_.path;
  H file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  SPIRE_CHECK(file >= 0, IOError, "HistoryLogger: cannot append to '", path, "': not an HDF5 file");
  auto read = [&](const std::string& name, hid_t type, void* out, hsize_t& n) {
    H ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (ds < 0) return false;
    H space(H5Dget_space(ds), H5Sclose);
    if (H5Sget_simple_extent_ndims(space) != 1) return false;
    hsize_t dims[1];
    H5Sget_simple_extent_dims(space, dims, nullptr);
    if (!out) {
      n = dims[0];
      return true;
    }
    if (dims[0] != n) return false;
    return n == 0 || H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
  };
  hsize_t n = 0;
  SPIRE_CHECK(read("epoch", H5T_NATIVE_INT64, nullptr, n), IOError, "HistoryLogger: cannot append to '", path,
              "': it has no 1-D dataset 'epoch' (not a HistoryLogger file)");
  std::vector<int64_t> epochs(n);
  SPIRE_CHECK(read("epoch", H5T_NATIVE_INT64, epochs.data(), n), IOError, "HistoryLogger: cannot read 'epoch' of '",
              path, "'");
  for (auto e : epochs) rows_.emplace_back(e, Logs{});
  H5G_info_t info;
  SPIRE_CHECK(H5Gget_info(file, &info) >= 0, IOError, "HistoryLogger: cannot list '", path, "'");
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    ssize_t len = H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (len < 0) continue;
    std::string name(size_t(len) + 1, '\0');
    H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(size_t(len));
    if (name != "epoch") names.push_back(name);
  }
  for (const auto& name : names) {
    std::vector<double> col(n);
    if (!read(name, H5T_NATIVE_DOUBLE, col.data(), n)) continue;  // not a column of this logger
    for (hsize_t i = 0; i < n; ++i)
      if (!std::isnan(col[i])) rows_[i].second.set(name, col[i]);
  }
}

}  // namespace spire::train
