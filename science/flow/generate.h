// `spire pde generate`: many samples of a family (or of one job with random initial fields) into
// one HDF5 file in the PDEBench and/or PDEformer layout.
//
// Samples run on threads within a rank and are split over MPI ranks; each rank writes its own
// part file and rank 0 joins them. Finished samples are checkpointed in `<out>.partial/`, so a
// run that crashed continues where it stopped and the finished file equals an uninterrupted
// run's for the same seed. Samples that blow up, grow beyond the bound or checkerboard (energy
// piling up at the grid scale) are rejected and replaced by the next sample index; the file
// records how many were rejected and why.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "science/flow/job.h"

namespace spire::flow {

struct GenerateSettings {
  long samples = 1;
  uint64_t seed = 0;
  int threads = 0;               // 0: spire::num_threads()
  bool resume = true;            // continue from <out>.partial/ when it belongs to this job
  double checkerboard = 1e-2;    // reject when the top 1/8 of modes hold more than this energy share
  // A candidate that is not finite or grows beyond the bound is solved again with the time step
  // divided by 10, up to `refine` times (0 to 3), before it counts as rejected: a blow-up at a
  // large step can be the explicit terms' instability rather than the sample's, and rejecting it
  // would leave the stiffer samples of a family out of the data set.
  int refine = 0;
};

struct GenerateReport {
  long accepted = 0;
  std::map<std::string, long> rejected;  // reason ("not finite", "beyond bound", "checkerboard") -> count
  long resumed = 0;                      // samples taken from a previous run
  long refined = 0;                      // samples kept at a refined time step (GenerateSettings::refine)
  double seconds = 0;
};

// Progress: samples done so far, of settings.samples.
using GenerateProgress = std::function<void(long done, long total)>;

GenerateReport generate(const PdeJob& job, const std::string& out, const GenerateSettings& settings,
                        const GenerateProgress& progress = {});

}  // namespace spire::flow
