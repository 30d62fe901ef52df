// Writes each epoch's logs to a file as training goes (Keras's CSVLogger, plus HDF5):
//   CSV (any other name): a header "epoch,<keys...>" then one row per epoch, written and flushed
//     at the end of each epoch; values as Python's repr, so they read back exactly; keys are
//     those of the first epoch (later ones are left out, as Keras does). append continues an
//     existing file under its header.
//   .h5 / .hdf5: an int64 dataset "epoch" and one float64 dataset per key (sorted; NaN where an
//     epoch lacks the key), the whole file rewritten to a temporary name and renamed over the
//     target each epoch, so readers never see half a file. append starts from the epochs the
//     file already holds.
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/train/callback.h"

namespace spire::train {

struct HistoryLoggerOptions {
  std::string path = "";
  bool append = false;
  std::string separator = ",";  // CSV only
  // HDF5 only: rewrite the file every write_every epochs (1: each epoch); 0: only on flush() and at
  // the end of training (for runs of many short epochs, where rewriting each time costs O(n^2)).
  int64_t write_every = 1;
};

class HistoryLogger : public Callback {
 public:
  explicit HistoryLogger(HistoryLoggerOptions options);
  ~HistoryLogger() override;
  HistoryLogger(const HistoryLogger&) = delete;
  HistoryLogger& operator=(const HistoryLogger&) = delete;

  void on_train_begin() override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;
  void on_train_end(const History& history) override;
  // HDF5: writes every row so far now (atomically); CSV rows are already on disk.
  void flush();

  const HistoryLoggerOptions& options() const { return options_; }
  bool is_hdf5() const { return hdf5_; }
  // The epochs written by this logger's current run (and, for HDF5 with append, those before).
  const std::vector<std::pair<int64_t, Logs>>& rows() const { return rows_; }

 private:
  void close();
  void write_csv_row(int64_t epoch, const Logs& logs);
  void write_hdf5() const;
  void read_hdf5();
  HistoryLoggerOptions options_;
  bool hdf5_;
  std::FILE* file_ = nullptr;
  std::optional<std::vector<std::string>> keys_;
  bool unwritten_ = false;  // HDF5 rows not yet in the file  // the CSV's columns after "epoch"
  std::vector<std::pair<int64_t, Logs>> rows_;
};

// Whether a path names an HDF5 file (.h5 / .hdf5, any case).
bool is_hdf5_path(const std::string& path);

}  // namespace spire::train
