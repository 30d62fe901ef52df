// DFT fields to HDF5 (Meep's output_dft): the accumulated transforms of one DftFields monitor
// (dft.h) at every frequency, with the points' coordinates, so that a frequency-domain field map
// can be plotted or post-processed (h5py, ParaView through numpy) without rerunning.
//
// File layout (HDF5, "spire.elec.dft_fields" version 1):
//   /                  attributes: format, format_version, spire_version, job, seed (when given),
//                      units, component ("Ez"), dt, steps (time steps accumulated), normalisation
//                      (the DFT convention of dft.h: sum_n f(t_n) exp(i omega t_n) dt; Meep's
//                      output_dft carries a further 1/sqrt(2 pi))
//   /frequencies       [n_f], c/a
//   /coordinates/x,y,z the points' positions along each axis, in a (one value along an axis the
//                      problem lacks or the region is a slice of)
//   /real, /imag       [n_f][n_z][n_y][n_x] float64: x fastest, as the field snapshots (field_output.h),
//                      so that real[f][0] of a 2D problem is an image with rows along y
// Written to a temporary name and renamed when whole (engine/data/atomic_file.h).
#pragma once
#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "science/elec/dft.h"
#include "science/elec/field_output.h"

namespace spire::elec {

// IOError naming the path when the file cannot be written.
void write_dft_fields(const std::string& path, const DftFields& dft, const Provenance& provenance = {});

// What write_dft_fields wrote, read back (values in DftFields' own order: point p = (i n_y + j) n_z
// + k, frequency-major as DftFields::data()). IOError naming the path and what is missing.
struct DftFieldsFile {
  Component component = Component::Ez;
  std::vector<double> frequencies;
  std::array<std::vector<double>, 3> positions;
  double dt = 0;
  int64_t steps = 0;
  std::vector<std::complex<double>> values;
};
DftFieldsFile read_dft_fields(const std::string& path);

}  // namespace spire::elec
