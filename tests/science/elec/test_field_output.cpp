// Field output: snapshots read back with the values written (through the x-fastest file layout and
// back), the XDMF sidecar parses as XML (a small strict parser below: balanced tags, quoted
// attributes) and names datasets that exist in the HDF5 file with the shapes it declares, files
// appear only whole, provenance is stored, and a point time series interpolates and saves.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "engine/data/hdf5_util.h"
#include "science/elec/field_output.h"
#include "tests/common/temp_dir.h"

namespace spire::elec {
namespace {

struct TempDir : fixtures::TempDir {
  TempDir() : fixtures::TempDir("spire_elec_fo_") {}
};

// A strict little XML reader: elements, attributes in double quotes, text, the declaration.
struct XmlNode {
  std::string name, text;
  std::map<std::string, std::string> attrs;
  std::vector<XmlNode> children;
  std::vector<const XmlNode*> all(const std::string& n) const {
    std::vector<const XmlNode*> out;
    for (const XmlNode& c : children)
      if (c.name == n) out.push_back(&c);
    return out;
  }
};
class XmlParser {
 public:
  explicit XmlParser(std::string s) : s_(std::move(s)) {}
  XmlNode document() {
    skip_space();
    if (s_.compare(i_, 5, "<?xml") == 0) {
      i_ = s_.find("?>", i_);
      if (i_ == std::string::npos) throw std::runtime_error("unterminated declaration");
      i_ += 2;
    }
    skip_space();
    XmlNode root = element();
    skip_space();
    if (i_ != s_.size()) throw std::runtime_error("content after the root element");
    return root;
  }

 private:
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  std::string name() {
    const size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == ':')) ++i_;
    if (i_ == start) throw std::runtime_error("expected a name at " + std::to_string(i_));
    return s_.substr(start, i_ - start);
  }
  void expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) throw std::runtime_error(std::string("expected '") + c + "' at " + std::to_string(i_));
    ++i_;
  }
  XmlNode element() {
    expect('<');
    XmlNode node;
    node.name = name();
    while (true) {
      skip_space();
      if (s_.compare(i_, 2, "/>") == 0) {
        i_ += 2;
        return node;
      }
      if (i_ < s_.size() && s_[i_] == '>') {
        ++i_;
        break;
      }
      const std::string key = name();
      expect('=');
      expect('"');
      const size_t end = s_.find('"', i_);
      if (end == std::string::npos) throw std::runtime_error("unterminated attribute");
      if (node.attrs.count(key)) throw std::runtime_error("duplicate attribute " + key);
      node.attrs[key] = s_.substr(i_, end - i_);
      i_ = end + 1;
    }
    while (true) {
      const size_t lt = s_.find('<', i_);
      if (lt == std::string::npos) throw std::runtime_error("unclosed element " + node.name);
      node.text += s_.substr(i_, lt - i_);
      i_ = lt;
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        if (name() != node.name) throw std::runtime_error("mismatched closing tag for " + node.name);
        skip_space();
        expect('>');
        return node;
      }
      node.children.push_back(element());
    }
  }
  std::string s_;
  size_t i_ = 0;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The shape of an HDF5 dataset, or empty when absent.
std::vector<hsize_t> dataset_shape(const std::string& file, const std::string& dataset) {
  data::QuietHdf5Errors quiet;
  data::Hdf5Id f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f.id < 0) return {};
  data::Hdf5Id d(H5Dopen2(f, dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (d.id < 0) return {};
  data::Hdf5Id sp(H5Dget_space(d), H5Sclose);
  std::vector<hsize_t> dims(size_t(H5Sget_simple_extent_ndims(sp)));
  H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
  return dims;
}

// A value that tells component, position and step apart.
double value(int c, int64_t i, int64_t j, int64_t k, int64_t step) { return 1000.0 * c + 100 * i + 10 * j + k + 0.25 * step; }

std::array<std::vector<double>, 6> make_fields(const YeeLattice& lat, int64_t step, FieldArrays<double>& arrays) {
  std::array<std::vector<double>, 6> f;
  for (Component c : lat.components()) {
    auto& v = f[size_t(int(c))];
    v.resize(size_t(lat.samples()));
    for (int64_t i = 0; i < lat.n(0); ++i)
      for (int64_t j = 0; j < lat.n(1); ++j)
        for (int64_t k = 0; k < lat.n(2); ++k) v[size_t(lat.index(i, j, k))] = value(int(c), i, j, k, step);
  }
  for (Component c : lat.components()) arrays.real[size_t(int(c))] = f[size_t(int(c))].data();
  return f;
}

// Writes two snapshots, reads them back, and checks the sidecar against the file.
void round_trip(Dimensions dims, Vec3 size, const std::string& topology, const std::string& shape_text) {
  TempDir dir;
  const YeeLattice lat(dims, size, 10);
  const double dt = 0.05;
  const std::string path = dir.file("fields.h5");
  FieldOutputOptions options;
  options.provenance.job = "[run]\nuntil = 10\n";
  options.provenance.seed = 7;
  {
    FieldSnapshotWriter w(path, lat, dt, options);
    for (int64_t step : {3, 8}) {
      FieldArrays<double> arrays;
      const auto keep = make_fields(lat, step, arrays);
      w.write(arrays, step * dt, step);
    }
    EXPECT_FALSE(std::filesystem::exists(path));  // not before it is whole
    w.close();
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"fields.h5", "fields.xdmf"}));
  for (Component c : lat.components())
    for (int64_t step : {3, 8}) {
      const FieldSnapshot s = read_field_snapshot(path, c, step);
      EXPECT_EQ(s.shape, lat.shape());
      EXPECT_DOUBLE_EQ(s.time, component_time(c, step * dt, dt));
      ASSERT_EQ(s.values.size(), size_t(lat.samples()));
      for (int64_t i = 0; i < lat.n(0); ++i)
        for (int64_t j = 0; j < lat.n(1); ++j)
          for (int64_t k = 0; k < lat.n(2); ++k)
            ASSERT_EQ(s.values[size_t(lat.index(i, j, k))], value(int(c), i, j, k, step)) << to_string(c);
    }
  // Provenance.
  {
    data::Hdf5Id f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    EXPECT_EQ(data::read_string_attribute(f, "format").value_or(""), "spire.elec.fields");
    EXPECT_EQ(data::read_string_attribute(f, "job").value_or(""), options.provenance.job);
    EXPECT_TRUE(data::read_string_attribute(f, "spire_version").has_value());
    EXPECT_EQ(data::read_string_attribute(f, "dimensions").value_or(""), to_string(dims));
    uint64_t seed = 0;
    data::Hdf5Id a(H5Aopen(f, "seed", H5P_DEFAULT), H5Aclose);
    ASSERT_GE(H5Aread(a, H5T_NATIVE_UINT64, &seed), 0);
    EXPECT_EQ(seed, 7u);
  }
  // The sidecar.
  const XmlNode root = XmlParser(read_text(dir.file("fields.xdmf"))).document();
  EXPECT_EQ(root.name, "Xdmf");
  ASSERT_EQ(root.all("Domain").size(), 1u);
  const auto collections = root.all("Domain")[0]->all("Grid");
  ASSERT_EQ(collections.size(), lat.components().size());
  for (size_t q = 0; q < collections.size(); ++q) {
    const XmlNode& col = *collections[q];
    const std::string name = to_string(lat.components()[q]);
    EXPECT_EQ(col.attrs.at("Name"), name);
    EXPECT_EQ(col.attrs.at("CollectionType"), "Temporal");
    const auto grids = col.all("Grid");
    ASSERT_EQ(grids.size(), 2u);
    for (size_t s = 0; s < 2; ++s) {
      const XmlNode& g = *grids[s];
      EXPECT_DOUBLE_EQ(std::stod(g.all("Time")[0]->attrs.at("Value")), (s == 0 ? 3 : 8) * dt);
      const XmlNode& topo = *g.all("Topology")[0];
      EXPECT_EQ(topo.attrs.at("TopologyType"), topology);
      EXPECT_EQ(topo.attrs.at("Dimensions"), shape_text);
      const auto coords = g.all("Geometry")[0]->all("DataItem");
      ASSERT_EQ(coords.size(), topology == "2DRectMesh" ? 2u : 3u);
      for (size_t a = 0; a < coords.size(); ++a) {
        const std::string ref = coords[a]->text;
        ASSERT_EQ(ref.substr(0, 10), "fields.h5:");
        const auto shape = dataset_shape(path, ref.substr(10));
        ASSERT_EQ(shape.size(), 1u) << ref;
        EXPECT_EQ(std::to_string(shape[0]), coords[a]->attrs.at("Dimensions"));
        EXPECT_EQ(int64_t(shape[0]), lat.n(int(a)));
      }
      const XmlNode& item = *g.all("Attribute")[0]->all("DataItem")[0];
      EXPECT_EQ(item.attrs.at("Dimensions"), shape_text);
      EXPECT_EQ(item.text, "fields.h5:/fields/" + name + (s == 0 ? "/00000003" : "/00000008"));
      std::string declared;
      for (hsize_t d : dataset_shape(path, item.text.substr(10))) declared += (declared.empty() ? "" : " ") + std::to_string(d);
      EXPECT_EQ(declared, shape_text);
    }
  }
}

TEST(FieldSnapshotWriter, RoundTrip3D) { round_trip(Dimensions::three, Vec3{0.4, 0.3, 0.5}, "3DRectMesh", "5 3 4"); }
TEST(FieldSnapshotWriter, RoundTrip2D) { round_trip(Dimensions::two_te, Vec3{0.4, 0.3, 0}, "2DRectMesh", "3 4"); }
TEST(FieldSnapshotWriter, RoundTrip1D) { round_trip(Dimensions::one, Vec3{0, 0, 0.6}, "3DRectMesh", "6 1 1"); }

TEST(FieldSnapshotWriter, CoordinatesSinglePrecisionAndWholeFiles) {
  TempDir dir;
  const YeeLattice lat(Dimensions::two_tm, Vec3{0.5, 0.4, 0}, 10);
  FieldOutputOptions options;
  options.components = {Component::Ez};
  options.single_precision = true;
  const std::string path = dir.file("single.hdf5");
  {
    FieldSnapshotWriter w(path, lat, 0.05, options);
    std::vector<float> ez(size_t(lat.samples()));
    for (size_t s = 0; s < ez.size(); ++s) ez[s] = float(0.1 * double(s) + 1.0 / 3.0);
    FieldArrays<float> arrays;
    arrays.real[int(Component::Ez)] = ez.data();
    w.write(arrays, 0.5, 10);
    EXPECT_THROW(w.write(arrays, 0.6, 10), ValueError);  // steps must increase
    EXPECT_EQ(w.xdmf_path(), dir.file("single.xdmf"));
    w.close();
    const FieldSnapshot s = read_field_snapshot(path, Component::Ez, 10);
    for (size_t i = 0; i < ez.size(); ++i) EXPECT_EQ(s.values[i], double(ez[i]));
    EXPECT_THROW(read_field_snapshot(path, Component::Ez, 11), IOError);
    EXPECT_THROW(read_field_snapshot(path, Component::Hx, 10), IOError);
  }
  // The staggered coordinates are the lattice's positions of each component.
  data::Hdf5Id f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  data::Hdf5Id d(H5Dopen2(f, "coordinates/Ez/x", H5P_DEFAULT), H5Dclose);
  std::vector<double> x(size_t(lat.n(0)));
  ASSERT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()), 0);
  for (int64_t i = 0; i < lat.n(0); ++i) EXPECT_DOUBLE_EQ(x[size_t(i)], lat.position(Component::Ez, i, 0, 0).x);
  EXPECT_NE(read_text(dir.file("single.xdmf")).find("Precision=\"4\""), std::string::npos);
  // An exception unwinding through an unclosed writer leaves nothing behind.
  try {
    FieldSnapshotWriter w(dir.file("broken.h5"), lat, 0.05, options);
    throw std::runtime_error("the run failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"single.hdf5", "single.xdmf"}));
  // Errors.
  EXPECT_THROW(FieldSnapshotWriter(dir.file("x.h5"), lat, 0.0), ValueError);
  FieldOutputOptions bad;
  bad.components = {Component::Hz};
  EXPECT_THROW(FieldSnapshotWriter(dir.file("x.h5"), lat, 0.05, bad), ValueError);
  EXPECT_THROW(FieldSnapshotWriter(dir.file("no/such/dir/x.h5"), lat, 0.05), IOError);
  EXPECT_THROW(read_field_snapshot(dir.file("absent.h5"), Component::Ez, 0), IOError);
}

// The incident run's flux data survives a trip through a file (Meep's save_flux / load_minus_flux).
TEST(FluxData, RoundTripThroughHdf5) {
  TempDir dir;
  const YeeLattice lat(Dimensions::two_tm, Vec3{1.0, 1.0, 0}, 10);
  Flux flux(lat, box_regions(lat, Vec3{}, Vec3{0.6, 0.4, 0}), {0.8, 1.0}, 0.05);
  std::vector<double> ez(size_t(lat.samples())), hx(ez.size()), hy(ez.size());
  for (size_t s = 0; s < ez.size(); ++s) {
    ez[s] = std::sin(0.3 * double(s));
    hx[s] = std::cos(0.2 * double(s));
    hy[s] = std::sin(0.7 * double(s) + 1);
  }
  FieldArrays<double> arrays;
  arrays.real[int(Component::Ez)] = ez.data();
  arrays.real[int(Component::Hx)] = hx.data();
  arrays.real[int(Component::Hy)] = hy.data();
  for (int n = 0; n < 5; ++n) flux.update(arrays, 0.05 * n);
  const FluxData saved = flux.data();
  write_flux_data(dir.file("incident.h5"), saved, Provenance{"", 3});
  const FluxData back = read_flux_data(dir.file("incident.h5"));
  EXPECT_EQ(back.frequencies, saved.frequencies);
  ASSERT_EQ(back.arrays.size(), saved.arrays.size());
  for (size_t i = 0; i < saved.arrays.size(); ++i) EXPECT_EQ(back.arrays[i], saved.arrays[i]);
  Flux second(lat, box_regions(lat, Vec3{}, Vec3{0.6, 0.4, 0}), {0.8, 1.0}, 0.05);
  second.load_minus_data(back);
  for (int n = 0; n < 5; ++n) second.update(arrays, 0.05 * n);
  // The same fields again: the DFTs return to zero up to the rounding of the sums.
  const std::vector<double> first = flux.flux(), cancelled = second.flux();
  for (size_t f = 0; f < first.size(); ++f) EXPECT_LT(std::abs(cancelled[f]), 1e-20 + 1e-12 * std::abs(first[f]));
  EXPECT_THROW(read_flux_data(dir.file("absent.h5")), IOError);
}

TEST(PointTimeSeries, InterpolatesAtTheComponentsOwnPositionsAndSaves) {
  TempDir dir;
  const YeeLattice lat(Dimensions::three, Vec3{1.0, 1.0, 1.0}, 10);
  const Vec3 point{0.123, -0.21, 0.3};
  PointTimeSeries series(lat, point, {Component::Ey, Component::Hx}, 0.05);
  // Fields linear in position: interpolation between samples is exact.
  auto linear = [](Vec3 x, double t) { return 1 + 2 * x.x - 3 * x.y + 0.5 * x.z + t; };
  std::array<std::vector<double>, 6> f;
  FieldArrays<double> arrays;
  for (int n = 0; n < 4; ++n) {
    const double t = 0.05 * n;
    for (Component c : lat.components()) {
      auto& v = f[size_t(int(c))];
      v.resize(size_t(lat.samples()));
      for (int64_t i = 0; i < lat.n(0); ++i)
        for (int64_t j = 0; j < lat.n(1); ++j)
          for (int64_t k = 0; k < lat.n(2); ++k)
            v[size_t(lat.index(i, j, k))] = linear(lat.position(c, i, j, k), component_time(c, t, 0.05));
      arrays.real[size_t(int(c))] = v.data();
    }
    series.update(arrays, t);
  }
  ASSERT_EQ(series.times().size(), 4u);
  for (int n = 0; n < 4; ++n) {
    EXPECT_NEAR(series.values(Component::Ey)[size_t(n)], linear(point, 0.05 * n), 1e-12);
    EXPECT_NEAR(series.values(Component::Hx)[size_t(n)], linear(point, 0.05 * n - 0.025), 1e-12);
  }
  EXPECT_THROW(series.values(Component::Ez), ValueError);
  const std::string path = dir.file("probe.h5");
  series.write(path, Provenance{"job = 1", std::nullopt});
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"probe.h5"}));
  EXPECT_EQ(dataset_shape(path, "Ey"), (std::vector<hsize_t>{4}));
  EXPECT_EQ(dataset_shape(path, "time"), (std::vector<hsize_t>{4}));
  data::Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  data::Hdf5Id d(H5Dopen2(file, "Hx", H5P_DEFAULT), H5Dclose);
  std::vector<double> hx(4);
  ASSERT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, hx.data()), 0);
  EXPECT_EQ(hx, series.values(Component::Hx));
  EXPECT_THROW(PointTimeSeries(lat, Vec3{0.7, 0, 0}, {}, 0.05), ValueError);
  EXPECT_THROW(PointTimeSeries(YeeLattice(Dimensions::two_tm, Vec3{1, 1, 0}, 10), Vec3{}, {Component::Ex}, 0.05),
               ValueError);
}

}  // namespace
}  // namespace spire::elec
