// Datasets, samplers and the loader from Python (spire.data; engine/data/). The C++ loader's
// worker thread never touches Python: the GIL is released while it is waited on (next, dropping an
// iterator) and while a batch is read, so Python threads run meanwhile.
#include <memory>

#include "common.h"
#include "engine/data/dataset.h"
#include "engine/data/hdf5_dataset.h"
#include "engine/data/loader.h"
#include "engine/data/sampler.h"

namespace spire::python {
namespace {

using namespace spire::data;

py::tuple to_tuple(const Sample& s) {
  py::tuple out(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = py::cast(s[i]);
  return out;
}

// The samples a sampler spans: a number, or anything with len() (a dataset), as PyTorch's data_source.
int64_t source_size(py::handle source, const char* who) {
  if (PyLong_Check(source.ptr())) return source.cast<int64_t>();
  if (py::hasattr(source, "__len__")) return int64_t(py::len(source));
  throw py::type_error(std::string(who) + ": data_source must be a dataset (anything with len()) or a size, got " +
                       std::string(py::str(py::type::of(source).attr("__name__"))));
}

Indices to_indices(py::handle seq) {
  Indices out;
  for (auto i : seq) out.push_back(i.cast<int64_t>());
  return out;
}

// An iterator whose C++ pass (and worker thread) is stopped without the GIL when it is dropped or
// closed, so a worker that is releasing NumPy-owned memory (which takes the GIL) can finish.
struct PyLoaderIterator {
  std::unique_ptr<LoaderIterator> it;
  explicit PyLoaderIterator(LoaderIterator i) : it(std::make_unique<LoaderIterator>(std::move(i))) {}
  ~PyLoaderIterator() { close(); }
  void close() {
    if (!it) return;
    py::gil_scoped_release release;
    it.reset();
  }
  py::tuple next() {
    if (!it) throw py::stop_iteration();
    std::optional<Batch> b;
    {
      py::gil_scoped_release release;
      b = it->next();
    }
    if (!b) {
      close();
      throw py::stop_iteration();
    }
    return to_tuple(*b);
  }
};

}  // namespace

void bind_data(py::module_& m) {
  using namespace pybind11::literals;
  py::module_ d = m.def_submodule("_data", "Raw dataset and loader bindings (use spire.data).");

  py::class_<Dataset, std::shared_ptr<Dataset>>(d, "Dataset", "A C++ dataset: len(), ds[i] and get_batch.")
      .def("__len__", &Dataset::size)
      .def("__getitem__", [](const Dataset& ds, int64_t i) {
        int64_t n = ds.size();
        if (i < -n || i >= n)  // IndexError, so that Python's sequence iteration stops
          throw py::index_error("dataset index " + std::to_string(i) + " is out of range for " + std::to_string(n) +
                                " samples");
        Sample s;
        {
          py::gil_scoped_release release;
          s = ds.get(i);
        }
        return to_tuple(s);
      }, py::arg("index"), "The sample at index: a tuple with one tensor per field.")
      .def("get_batch", [](const Dataset& ds, py::object indices) {
        Indices idx = to_indices(indices);
        Sample s;
        {
          py::gil_scoped_release release;
          s = ds.get_batch(idx);
        }
        return to_tuple(s);
      }, py::arg("indices"), "The samples at indices, each field stacked along a new axis 0.")
      .def_property_readonly("names", &Dataset::names, "The fields' names (HDF5 keys); empty when positional.");

  py::class_<ArrayDataset, Dataset, std::shared_ptr<ArrayDataset>>(d, "ArrayDataset")
      .def(py::init([](py::args tensors) {
        std::vector<Tensor> ts;
        for (auto t : tensors) ts.push_back(to_tensor(t));
        return std::make_shared<ArrayDataset>(std::move(ts));
      }), "Sample i is row i of every tensor (all with the same first dimension).")
      .def_property_readonly("tensors", [](const ArrayDataset& ds) {
        py::tuple out(ds.tensors().size());
        for (size_t i = 0; i < ds.tensors().size(); ++i) out[i] = py::cast(ds.tensors()[i]);
        return out;
      });

  py::class_<HDF5Dataset, Dataset, std::shared_ptr<HDF5Dataset>>(d, "HDF5Dataset")
      .def(py::init([](const std::string& path, py::object keys, int64_t cache_bytes, int64_t block_rows) {
        std::vector<std::string> ks;
        if (py::isinstance<py::str>(keys))
          ks.push_back(keys.cast<std::string>());
        else if (!keys.is_none())
          for (auto k : keys) ks.push_back(py::cast<std::string>(k));
        py::gil_scoped_release release;
        return std::make_shared<HDF5Dataset>(path, ks, HDF5Options{cache_bytes, block_rows});
      }), py::arg("path"), py::arg("keys") = py::none(), py::arg("cache_bytes") = int64_t(64) << 20,
           py::arg("block_rows") = 0)
      .def_property_readonly("path", &HDF5Dataset::path)
      .def_property_readonly("keys", &HDF5Dataset::names)
      .def_property_readonly("shapes", [](const HDF5Dataset& ds) {
        py::list out;
        for (size_t i = 0; i < ds.names().size(); ++i) out.append(py::tuple(py::cast(ds.shape(i))));
        return py::tuple(out);
      })
      .def_property_readonly("dtypes", [](const HDF5Dataset& ds) {
        py::list out;
        for (size_t i = 0; i < ds.names().size(); ++i) out.append(py::cast(ds.dtype(i)));
        return py::tuple(out);
      })
      .def_property_readonly("block_rows", [](const HDF5Dataset& ds) {
        py::list out;
        for (size_t i = 0; i < ds.names().size(); ++i) out.append(ds.block_rows(i));
        return py::tuple(out);
      })
      .def_property_readonly("cache_bytes", [](const HDF5Dataset& ds) { return ds.options().cache_bytes; })
      .def("cache_stats", [](const HDF5Dataset& ds) {
        auto s = ds.cache_stats();
        return py::dict("hits"_a = s.hits, "misses"_a = s.misses, "reads"_a = s.reads, "bytes"_a = s.bytes);
      })
      .def("clear_cache", &HDF5Dataset::clear_cache)
      .def_static("keys_in", &HDF5Dataset::keys_in, py::arg("path"), "Every dataset path in an HDF5 file.");

  py::class_<Sampler, std::shared_ptr<Sampler>>(d, "Sampler", "The order in which a DataLoader visits indices.")
      .def("__len__", &Sampler::size)
      .def("__iter__", [](Sampler& s) { return py::iter(py::cast(s.next_pass())); },
           "The indices of the next pass (a RandomSampler then moves to its next epoch).")
      .def("indices", &Sampler::indices, py::arg("epoch"), "The indices of epoch's pass (no state change).")
      .def("set_epoch", &Sampler::set_epoch, py::arg("epoch"))
      .def_property_readonly("epoch", &Sampler::epoch);
  py::class_<SequentialSampler, Sampler, std::shared_ptr<SequentialSampler>>(d, "SequentialSampler")
      .def(py::init([](py::object src) {
        return std::make_shared<SequentialSampler>(source_size(src, "SequentialSampler"));
      }), py::arg("data_source"));
  py::class_<RandomSampler, Sampler, std::shared_ptr<RandomSampler>>(d, "RandomSampler")
      .def(py::init([](py::object src, uint64_t seed) {
        return std::make_shared<RandomSampler>(source_size(src, "RandomSampler"), seed);
      }), py::arg("data_source"), py::arg("seed") = 0)
      .def_property_readonly("seed", &RandomSampler::seed);
  py::class_<DistributedSampler, Sampler, std::shared_ptr<DistributedSampler>>(d, "DistributedSampler")
      .def(py::init([](py::object src, int64_t num_replicas, int64_t rank, bool shuffle, uint64_t seed, bool drop_last) {
        return std::make_shared<DistributedSampler>(source_size(src, "DistributedSampler"), num_replicas, rank,
                                                    shuffle, seed, drop_last);
      }), py::arg("dataset"), py::arg("num_replicas"), py::arg("rank"), py::arg("shuffle") = true,
           py::arg("seed") = 0, py::arg("drop_last") = false)
      .def_property_readonly("num_replicas", &DistributedSampler::num_replicas)
      .def_property_readonly("rank", &DistributedSampler::rank)
      .def_property_readonly("shuffle", &DistributedSampler::shuffle)
      .def_property_readonly("seed", &DistributedSampler::seed)
      .def_property_readonly("drop_last", &DistributedSampler::drop_last)
      .def_property_readonly("total_size", &DistributedSampler::total_size)
      .def_property_readonly("num_samples", &DistributedSampler::size);

  d.def("seeded_permutation", &seeded_permutation, py::arg("n"), py::arg("seed"), py::arg("epoch"),
        "The permutation of range(n) for (seed, epoch) that the shuffling samplers use.");

  py::class_<PyLoaderIterator>(d, "LoaderIterator")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyLoaderIterator::next)
      .def("close", &PyLoaderIterator::close, "Stops the pass (and its worker thread) now.");

  py::class_<DataLoader, std::shared_ptr<DataLoader>>(d, "Loader")
      .def(py::init([](std::shared_ptr<Dataset> ds, int64_t batch_size, bool shuffle, bool drop_last, int64_t prefetch,
                       uint64_t seed, std::shared_ptr<Sampler> sampler) {
        return std::make_shared<DataLoader>(ds, LoaderOptions{batch_size, shuffle, drop_last, prefetch, seed}, sampler);
      }), py::arg("dataset"), py::arg("batch_size") = 1, py::arg("shuffle") = false, py::arg("drop_last") = false,
           py::arg("prefetch") = 2, py::arg("seed") = 0, py::arg("sampler") = nullptr)
      .def("__len__", &DataLoader::size)
      .def("iter", [](DataLoader& l) { return new PyLoaderIterator(l.iter()); }, "A pass in the sampler's order.")
      .def("iter_order", [](const DataLoader& l, py::object order) {
        return new PyLoaderIterator(l.iter(to_indices(order)));
      }, py::arg("order"), "A pass over the samples in the given order.")
      .def("set_epoch", &DataLoader::set_epoch, py::arg("epoch"))
      .def_property_readonly("sampler", &DataLoader::sampler);
}

}  // namespace spire::python
