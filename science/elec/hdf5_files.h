// What every HDF5 file of the electromagnetics package shares (results, checkpoints, field
// snapshots, DFT fields, flux data, point series): the attributes that identify the file and the
// run behind it, and complex datasets. Files are written and opened through the engine
// (engine/data/hdf5_file.h: whole files, the HDF5 lock, format checks), datasets and plain
// attributes with engine/data/hdf5_util.h; this adds only what is elec's own.
//
// Every file's root carries format ("spire.elec.<kind>", UTF-8 string), format_version (int64) and
// spire_version; files of a run add its provenance: job (the job's TOML, may be empty), seed (when
// there is one) and units (the normalised units, below). Complex values are stored as the compound
// type {r, i} of two float64, which h5py reads as complex128 (and Meep's tools as r/i pairs).
// Callers hold data::hdf5_mutex(); errors are IOErrors starting with `who`.
#pragma once
#include <hdf5.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/hdf5_util.h"

namespace spire::elec {

struct Provenance;  // field_output.h

namespace h5 {

// The units attribute: Meep's normalised units, which every elec quantity is in.
inline constexpr const char* kUnits =
    "normalised: lengths in a, time in a/c, frequencies in c/a; eps0 = mu0 = c = 1";

// format, format_version and spire_version on a new file's root.
void write_format(hid_t file, const std::string& format, int64_t version, const std::string& who);
// job, seed (only when the provenance has one) and units.
void write_provenance(hid_t file, const Provenance& provenance, const std::string& who);

// A complex dataset of shape dims ({r, i} compound); returns it open, for attributes.
data::Hdf5Id write_complex(hid_t loc, const std::string& path, const std::vector<hsize_t>& dims,
                           const std::complex<double>* values, const std::string& who);

}  // namespace h5
}  // namespace spire::elec
