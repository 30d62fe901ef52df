// The checkpoint of one finished sample of `spire pde generate` (generate.cpp), in
// `<out>.partial/`: a small HDF5 file with the sample's snapshot times, its fields in float64
// and its family coefficients, written atomically, so a file that exists is whole. Not the
// output format (output.h): the finished file is written from these.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "science/flow/solver.h"

namespace spire::flow {

using Coefficients = std::map<std::string, std::vector<double>>;

void write_chunk(const std::string& path, const Solution& solution, const Coefficients& coef);
// Fills t, fields and steps (the caller adds the grid); IOError naming the path otherwise.
void read_chunk(const std::string& path, Solution& solution, Coefficients& coef);

}  // namespace spire::flow
