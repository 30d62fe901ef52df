// The H5MD writer, read back with the plain HDF5 C API: the layout and attributes H5MD 1.1 defines,
// the exact bits of every frame, shared step/time datasets, units, the completion mark, appending
// and resuming (frames after the restart step dropped, a frame cut short by a crash as well).
// MDAnalysis reading the files: tests/validate/sponge_h5md_mdanalysis.py (it keeps the sample files
// of SpongeH5md.WritesSamplesForPeerReaders through SPONGE_H5MD_SAMPLES).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdlib>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/data/hdf5_util.h"
#include "science/sponge/h5md.h"
#include "tests/common/temp_dir.h"
#include "tests/science/sponge/support_hdf5_read.h"
#include "tests/science/sponge/support_io_doubles.h"

namespace spire::sponge {
namespace {

using testing::quiet;
using data::Hdf5Id;
using testing::NoisyVerlet;
using testing::Toy;
using testing::toy;

// A scratch directory named after the test.
struct TempDir : fixtures::TempDir {
  TempDir() : fixtures::TempDir("sponge_io_h5md_") {}
};

// --- Reading with the C API ---

using Array = testing::DoubleArray;

Array read(hid_t file, const std::string& path) { return testing::read_doubles(file, path); }

std::string text_attr(hid_t file, const std::string& object, const char* name) {
  Hdf5Id obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  return data::read_string_attribute(obj, name).value_or("<missing>");
}

std::vector<int64_t> int_attr(hid_t file, const std::string& object, const char* name) {
  Hdf5Id obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  if (H5Aexists(obj, name) <= 0) return {};
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hdf5Id space(H5Aget_space(attr), H5Sclose);
  std::vector<int64_t> v(size_t(H5Sget_simple_extent_npoints(space)));
  H5Aread(attr, H5T_NATIVE_INT64, v.data());
  return v;
}

bool is_scalar_attr(hid_t file, const std::string& object, const char* name) {
  Hdf5Id obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hdf5Id space(H5Aget_space(attr), H5Sclose);
  return H5Sget_simple_extent_type(space) == H5S_SCALAR;
}

std::vector<std::string> fixed_strings_attr(hid_t file, const std::string& object, const char* name) {
  Hdf5Id obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hdf5Id type(H5Aget_type(attr), H5Tclose);
  Hdf5Id space(H5Aget_space(attr), H5Sclose);
  EXPECT_EQ(H5Tis_variable_str(type), 0) << "H5MD strings are fixed-length";
  const size_t width = H5Tget_size(type), n = size_t(H5Sget_simple_extent_npoints(space));
  std::string block(width * n, '\0');
  H5Aread(attr, type, block.data());
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(std::string(block.c_str() + i * width, strnlen(block.c_str() + i * width, width)));
  return out;
}

bool same_object(hid_t file, const std::string& a, const std::string& b) {
  H5O_info_t ia, ib;
  H5Oget_info_by_name(file, a.c_str(), &ia, H5P_DEFAULT);
  H5Oget_info_by_name(file, b.c_str(), &ib, H5P_DEFAULT);
  return ia.fileno == ib.fileno && ia.addr == ib.addr;
}

struct Frame {
  State state;
  ForceResult forces;
  Observables obs;
};

// Three frames of the toy, 5 steps apart, from the test integrator.
std::vector<Frame> frames_of(Toy& t, int count, int every = 5) {
  ForceField ff = t.forces();
  NoisyVerlet integ(0.002, 1.0, 2.5, 11);
  State st = t.state;
  integ.prepare(t.system, st, ff);
  std::vector<Frame> out;
  for (int f = 0; f < count; ++f) {
    if (f > 0)
      for (int s = 0; s < every; ++s) integ.step(t.system, st, ff);
    out.push_back({st, ff.result(), compute_observables(t.system, st, ff.result(), true)});
  }
  return out;
}

TEST(SpongeH5md, LayoutUnitsAndExactFramesFollowH5md11) {
  TempDir dir;
  Toy t = toy(Units::md());
  const std::vector<Frame> fr = frames_of(t, 3);
  H5mdOptions o;
  o.path = dir.file("traj.h5");
  o.force = true;
  o.author = "Ada Lovelace";
  o.author_email = "ada@example.org";
  o.job_toml = "[system]\nunits = \"md\"\n";
  H5mdWriter w(o);
  for (const Frame& f : fr) w.write_frame(t.system, f.state, f.forces, f.obs);
  EXPECT_TRUE(w.is_open());
  {
    // complete = 0 while open (read through a second handle of this process's library).
    Hdf5Id file(H5Fopen(o.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    ASSERT_GE(file.id, 0);
    EXPECT_EQ(int_attr(file, "/", "complete"), (std::vector<int64_t>{0}));
  }
  w.close();

  Hdf5Id file(H5Fopen(o.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_GE(file.id, 0);
  EXPECT_EQ(int_attr(file, "/", "complete"), (std::vector<int64_t>{1}));
  EXPECT_EQ(int_attr(file, "h5md", "version"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(text_attr(file, "h5md/author", "name"), "Ada Lovelace");
  EXPECT_EQ(text_attr(file, "h5md/author", "email"), "ada@example.org");
  EXPECT_EQ(text_attr(file, "h5md/creator", "name"), "Spire");
  EXPECT_NE(text_attr(file, "h5md/creator", "version"), "<missing>");
  EXPECT_EQ(text_attr(file, "h5md/modules/units", "system"), "SI");

  const std::string p = "particles/all";
  EXPECT_EQ(int_attr(file, p + "/box", "dimension"), (std::vector<int64_t>{3}));
  EXPECT_TRUE(is_scalar_attr(file, p + "/box", "dimension"));
  EXPECT_EQ(fixed_strings_attr(file, p + "/box", "boundary"),
            (std::vector<std::string>{"periodic", "periodic", "periodic"}));

  const Array x = read(file, p + "/position/value"), v = read(file, p + "/velocity/value"),
              f = read(file, p + "/force/value"), step = read(file, p + "/position/step"),
              time = read(file, p + "/position/time"), edges = read(file, p + "/box/edges/value");
  EXPECT_EQ(x.dims, (std::vector<hsize_t>{3, 4, 3}));
  EXPECT_EQ(edges.dims, (std::vector<hsize_t>{3, 3}));
  EXPECT_EQ(step.v, (std::vector<double>{0, 5, 10}));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(time.v[size_t(k)], fr[size_t(k)].state.time);
    EXPECT_EQ(edges.v[3 * size_t(k) + 1], 3.2);
    for (int i = 0; i < 4; ++i)
      for (int a = 0; a < 3; ++a) {
        const size_t at = (size_t(k) * 4 + size_t(i)) * 3 + size_t(a);
        EXPECT_EQ(x.v[at], fr[size_t(k)].state.positions[size_t(i)][a]);
        EXPECT_EQ(v.v[at], fr[size_t(k)].state.velocities[size_t(i)][a]);
        EXPECT_EQ(f.v[at], fr[size_t(k)].forces.forces[size_t(i)][a]);
      }
  }
  // One clock for every element, by hard links.
  for (const std::string& e : {p + "/velocity", p + "/force", p + "/box/edges", std::string("observables/temperature"),
                               std::string("observables/energies/bonds")}) {
    EXPECT_TRUE(same_object(file, p + "/position/step", e + "/step")) << e;
    EXPECT_TRUE(same_object(file, p + "/position/time", e + "/time")) << e;
  }
  EXPECT_EQ(text_attr(file, p + "/position/value", "unit"), "nm");
  EXPECT_EQ(text_attr(file, p + "/velocity/value", "unit"), "nm ps-1");
  EXPECT_EQ(text_attr(file, p + "/force/value", "unit"), "kJ mol-1 nm-1");
  EXPECT_EQ(text_attr(file, p + "/position/time", "unit"), "ps");
  EXPECT_EQ(text_attr(file, p + "/box/edges/value", "unit"), "nm");
  EXPECT_EQ(text_attr(file, "observables/pressure/value", "unit"), "bar");
  EXPECT_EQ(text_attr(file, "observables/volume/value", "unit"), "nm3");
  EXPECT_EQ(text_attr(file, "observables/temperature/value", "unit"), "K");
  EXPECT_EQ(text_attr(file, p + "/mass", "unit"), "u");

  EXPECT_EQ(read(file, p + "/species").v, (std::vector<double>{0, 1, 0, 1}));
  EXPECT_EQ(read(file, p + "/mass").v, t.system.mass);
  EXPECT_EQ(read(file, p + "/charge").v, t.system.charge);
  const Array pe = read(file, "observables/potential_energy/value"),
              bonds = read(file, "observables/energies/bonds/value"),
              ptensor = read(file, "observables/pressure_tensor/value"), temp = read(file, "observables/temperature/value");
  EXPECT_EQ(ptensor.dims, (std::vector<hsize_t>{3, 3, 3}));
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(pe.v[k], fr[k].forces.energy());
    EXPECT_EQ(bonds.v[k], fr[k].forces.energy_of("bonds"));
    EXPECT_EQ(temp.v[k], fr[k].obs.temperature);
    EXPECT_EQ(ptensor.v[9 * k + 5], fr[k].obs.pressure_tensor(1, 2));
  }
  EXPECT_EQ(text_attr(file, "parameters", "units"), "md");
  {
    Hdf5Id ds(H5Dopen2(file, "parameters/job", H5P_DEFAULT), H5Dclose);
    Hdf5Id type(H5Dget_type(ds), H5Tclose);
    char* s = nullptr;
    H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s);
    EXPECT_EQ(std::string(s), o.job_toml);
    H5free_memory(s);
  }
}

TEST(SpongeH5md, ReducedUnitsTriclinicAndOpenBoxes) {
  TempDir dir;
  Toy t = toy(Units::lj());
  t.state.box = Box::triclinic({3, 0, 0}, {0.5, 3.2, 0}, {-0.4, 0.3, 3.4});
  std::vector<Frame> fr = frames_of(t, 2);
  H5mdOptions o;
  o.path = dir.file("lj.h5");
  o.float32 = true;
  {
    H5mdWriter w(o);
    for (const Frame& f : fr) w.write_frame(t.system, f.state, f.forces, f.obs);
  }  // the destructor closes
  {
    Hdf5Id file(H5Fopen(o.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    EXPECT_EQ(int_attr(file, "/", "complete"), (std::vector<int64_t>{1}));
    const Array edges = read(file, "particles/all/box/edges/value"), x = read(file, "particles/all/position/value");
    EXPECT_EQ(edges.dims, (std::vector<hsize_t>{2, 3, 3}));
    EXPECT_EQ(edges.v[3], 0.5);  // row b
    EXPECT_EQ(edges.v[6], -0.4);
    EXPECT_EQ(x.v[4], double(float(fr[0].state.positions[1].y)));  // stored as float32
    EXPECT_EQ(text_attr(file, "particles/all/position/value", "unit"), "<missing>");  // reduced units
    EXPECT_EQ(text_attr(file, "observables/pressure/value", "unit"), "<missing>");
    EXPECT_FALSE(H5Lexists(file, "h5md/modules", H5P_DEFAULT) > 0);
  }
  Toy open = toy(Units::md(), false);
  fr = frames_of(open, 1);
  o.path = dir.file("open.h5");
  {
    H5mdWriter w(o);
    w.write_frame(open.system, fr[0].state, fr[0].forces, fr[0].obs);
  }
  Hdf5Id file(H5Fopen(o.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EXPECT_EQ(fixed_strings_attr(file, "particles/all/box", "boundary"), (std::vector<std::string>{"none", "none", "none"}));
  EXPECT_FALSE(H5Lexists(file, "particles/all/box/edges", H5P_DEFAULT) > 0);
  EXPECT_FALSE(H5Lexists(file, "observables/pressure", H5P_DEFAULT) > 0);
}

TEST(SpongeH5md, AppendsAfterCloseAndResumeDropsFramesAfterTheRestartStep) {
  TempDir dir;
  Toy t = toy();
  const std::vector<Frame> fr = frames_of(t, 6, 2);  // steps 0, 2, ..., 10
  H5mdOptions o;
  o.path = dir.file("grow.h5");
  {
    H5mdWriter w(o);
    for (int k = 0; k < 3; ++k) w.write_frame(t.system, fr[size_t(k)].state, fr[size_t(k)].forces, fr[size_t(k)].obs);
    w.close();
    for (int k = 3; k < 6; ++k) w.write_frame(t.system, fr[size_t(k)].state, fr[size_t(k)].forces, fr[size_t(k)].obs);
    EXPECT_EQ(w.frames(), 6);
  }
  {
    // A crash in the middle of a frame: one element got frame 6, the others did not.
    Hdf5Id file(H5Fopen(o.path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    Hdf5Id ds(H5Dopen2(file, "particles/all/position/value", H5P_DEFAULT), H5Dclose);
    const hsize_t dims[3] = {7, 4, 3};
    H5Dset_extent(ds, dims);
  }
  Simulation sim(t.system, fr[3].state, t.forces(), std::make_shared<NoisyVerlet>(0.002, 1.0, 2.5, 11), quiet(11));
  sim.prepare();
  H5mdWriter w(o);
  EXPECT_TRUE(w.resume(sim, 6));  // frame of step 6 kept
  EXPECT_EQ(w.frames(), 4);
  w.write_frame(t.system, fr[5].state, fr[5].forces, fr[5].obs);  // step 10 next
  w.close();
  Hdf5Id file(H5Fopen(o.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  EXPECT_EQ(read(file, "particles/all/position/step").v, (std::vector<double>{0, 2, 4, 6, 10}));
  const Array x = read(file, "particles/all/position/value"), ke = read(file, "observables/kinetic_energy/value");
  EXPECT_EQ(x.dims[0], 5u);
  EXPECT_EQ(ke.v.size(), 5u);
  EXPECT_EQ(x.v[4 * 12], fr[5].state.positions[0].x);
  EXPECT_EQ(ke.v[3], fr[3].obs.kinetic_energy);
}

TEST(SpongeH5md, RefusesToAppendAnotherSystemsFrames) {
  TempDir dir;
  Toy t = toy();
  std::vector<Frame> fr = frames_of(t, 1);
  H5mdOptions o;
  o.path = dir.file("four.h5");
  { H5mdWriter(o).write_frame(t.system, fr[0].state, fr[0].forces, fr[0].obs); }
  System three = t.system;
  three.mass.pop_back(), three.charge.pop_back(), three.type.pop_back();
  State st = t.state;
  st.positions.pop_back(), st.velocities.pop_back();
  Simulation sim(three, st, ForceField(), std::make_shared<NoisyVerlet>(0.002, 1.0, 2.5, 11), quiet(11));
  sim.prepare();
  try {
    H5mdWriter(o).resume(sim, 0);
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("3 particles"), std::string::npos) << e.what();
  }
  EXPECT_THROW(H5mdWriter(H5mdOptions{}), ValueError);  // no path
  H5mdOptions nothing = o;
  nothing.position = nothing.velocity = nothing.force = nothing.observables = false;
  EXPECT_THROW(H5mdWriter{nothing}, ValueError);
}

// Sample files in md and lj units and a triclinic box, complete and closed: the files that
// tests/validate/sponge_h5md_mdanalysis.py has MDAnalysis read (it sets SPONGE_H5MD_SAMPLES to the
// directory to keep them in; otherwise they go to a temporary directory).
TEST(SpongeH5md, WritesSamplesForPeerReaders) {
  TempDir tmp;
  const char* keep = std::getenv("SPONGE_H5MD_SAMPLES");
  const std::filesystem::path where = keep ? std::filesystem::path(keep) : std::filesystem::path(tmp.file(""));
  std::filesystem::create_directories(where);
  for (const char* kind : {"md", "lj", "triclinic"}) {
    Toy t = toy(std::string(kind) == "lj" ? Units::lj() : Units::md());
    if (std::string(kind) == "triclinic") t.state.box = Box::triclinic({3, 0, 0}, {0.5, 3.2, 0}, {-0.4, 0.3, 3.4});
    H5mdOptions o;
    o.path = (where / (std::string("sponge_") + kind + ".h5")).string();
    o.force = true;
    {
      Simulation sim(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.002, 1.0, 2.5, 11), quiet(11));
      sim.add_reporter(std::make_shared<H5mdWriter>(o), 5);
      sim.run(20);
    }
    Hdf5Id file(H5Fopen(o.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    ASSERT_GE(file.id, 0) << o.path;
    EXPECT_EQ(int_attr(file, "/", "complete"), (std::vector<int64_t>{1})) << kind;
    EXPECT_EQ(read(file, "/particles/all/position/step").v.size(), 5u) << kind;  // steps 0, 5, ..., 20
  }
}

}  // namespace
}  // namespace spire::sponge
