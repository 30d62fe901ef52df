// PDB files (wwPDB format v3.3, fixed columns): ATOM/HETATM, CRYST1 and CONECT records.
//
// Reading takes the first model (up to the first ENDMDL), the first alternate location of each
// atom (blank or 'A'), and ignores every other record. Coordinates are converted from angstrom to
// nm; CRYST1's a b c alpha beta gamma become reduced box vectors (OpenMM's and GROMACS's
// convention: a along x, b in the xy plane, then tilts reduced into [-1/2, 1/2] of the shorter
// vectors); the unit cell 1 1 1 90 90 90 that the format prescribes for structures that are not crystals
// means no box. Errors (ParseError) name the file, the line number, the columns and what was
// there.
//
// Writing puts out CRYST1 (when the box is periodic), one ATOM or HETATM record per particle
// (HETATM for residues that are not standard amino or nucleic acids, water included), optional
// CONECT records for the bond graph (bonds, constraints, rigid waters' O-H), and END. Serial
// numbers above 99999 and residue numbers above 9999 wrap, as GROMACS writes them.
#pragma once
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge {

struct PdbAtom {
  bool hetero = false;       // HETATM rather than ATOM
  int serial = 0;
  std::string name;          // columns 13-16, spaces trimmed
  char alt_loc = ' ';
  std::string residue_name;  // columns 18-20 (and 21, as some programs write four letters)
  char chain = ' ';
  int residue_id = 0;
  char insertion = ' ';
  Vec3 position;             // nm
  double occupancy = 1, b_factor = 0;
  std::string element;       // columns 77-78, or taken from the name's columns 13-14 when blank
  int formal_charge = 0;     // columns 79-80 ("2+", "1-")
};

struct PdbFile {
  std::vector<PdbAtom> atoms;
  Box box;                                 // none() without CRYST1
  std::vector<std::pair<int, int>> bonds;  // from CONECT: atom indices, i < j, sorted, unique

  // Positions and box, zero velocities.
  State state() const;
  // A System in md units: one particle per atom, type = element (the atom name where the element
  // is unknown), mass of the element (OpenMM's element table), charge 0, atom and residue names and
  // residue ids kept; no bonded topology. ValueError naming the atom when an element has no mass.
  System system() const;
};

PdbFile read_pdb(const std::string& path);
// `source` names the input in error messages.
PdbFile parse_pdb(std::istream& in, const std::string& source);

struct PdbWriteOptions {
  bool conect = false;  // CONECT records for the bond graph (needs serial numbers below 100000)
  std::string title;    // a TITLE record when not empty
};

// Particle names from system.atom_name (else the type name), residues from residue_name and
// residue_id (else "UNK" and one residue per particle); elements from the type name when it is an
// element symbol, else the atom name's leading letter where that is one.
void write_pdb(std::ostream& out, const System& system, const State& state, const PdbWriteOptions& options = {});
// Written to a temporary name and renamed when whole.
void write_pdb(const std::string& path, const System& system, const State& state,
               const PdbWriteOptions& options = {});

// Reduced box vectors for a cell of edge lengths a, b, c and angles alpha (b, c), beta (a, c),
// gamma (a, b) in degrees; lengths in the units given. ValueError for a cell that does not exist.
Box box_from_lengths_angles(double a, double b, double c, double alpha, double beta, double gamma);
// The inverse: {a, b, c} and {alpha, beta, gamma} in degrees.
std::pair<Vec3, Vec3> lengths_angles(const Box& box);

// OpenMM's element mass (amu) for a symbol ("C", "Cl", case-insensitive); 0 when not in the table.
double element_mass(const std::string& symbol);

}  // namespace spire::sponge
