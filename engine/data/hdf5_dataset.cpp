#include "engine/data/hdf5_dataset.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "engine/data/hdf5_lock.h"
#include "engine/ops/shape.h"

namespace spire::data {

static_assert(sizeof(hid_t) == sizeof(int64_t), "hid_t is held as int64_t in the header");

namespace {

using Lock = std::lock_guard<std::recursive_mutex>;
constexpr int64_t kContiguousBlockBytes = int64_t(64) << 10;

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
  return xs.empty() ? "(none)" : s;
}

// Collects every dataset path below the root (H5Lvisit goes in name order).
herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t*, void* out) {
  hid_t obj = -1;
  H5E_BEGIN_TRY { obj = H5Oopen(group, name, H5P_DEFAULT); } H5E_END_TRY;
  if (obj < 0) return 0;  // a dangling soft or external link: not a dataset we can read
  if (H5Iget_type(obj) == H5I_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
  H5Oclose(obj);
  return 0;
}

std::vector<std::string> list_datasets(hid_t file) {
  std::vector<std::string> names;
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &names);
  return names;
}

// Whether `key` resolves to an object: each link on the path must exist before the next is asked.
bool path_exists(hid_t file, const std::string& key) {
  size_t pos = 0;
  while (true) {
    size_t slash = key.find('/', pos);
    std::string prefix = key.substr(0, slash);
    if (!prefix.empty() && prefix != "/") {
      htri_t e = -1;
      H5E_BEGIN_TRY { e = H5Lexists(file, prefix.c_str(), H5P_DEFAULT); } H5E_END_TRY;
      if (e <= 0) return false;
    }
    if (slash == std::string::npos) return true;
    pos = slash + 1;
  }
}

struct TypeMap {
  DType dtype;
  hid_t mem_type;
  bool own;  // mem_type must be closed
};

// The spire dtype and the in-memory HDF5 type to read `file_type` as.
TypeMap map_type(hid_t file_type, const std::string& key, const std::string& path) {
  H5T_class_t cls = H5Tget_class(file_type);
  size_t size = H5Tget_size(file_type);
  if (cls == H5T_FLOAT) {
    if (size <= 4) return {DType::Float32, H5T_NATIVE_FLOAT, false};
    if (size == 8) return {DType::Float64, H5T_NATIVE_DOUBLE, false};
  } else if (cls == H5T_INTEGER) {
    bool is_signed = H5Tget_sign(file_type) == H5T_SGN_2;
    if (size < 4 || (size == 4 && is_signed)) return {DType::Int32, H5T_NATIVE_INT32, false};
    if ((size == 4 && !is_signed) || (size == 8 && is_signed)) return {DType::Int64, H5T_NATIVE_INT64, false};
  } else if (cls == H5T_ENUM && size == 1 && H5Tget_nmembers(file_type) == 2) {
    // h5py writes NumPy bool as an int8 enum {FALSE = 0, TRUE = 1}; read it as the native enum,
    // whose bytes are spire's bool.
    char* n0 = H5Tget_member_name(file_type, 0);
    char* n1 = H5Tget_member_name(file_type, 1);
    int8_t v0 = -1, v1 = -1;
    H5Tget_member_value(file_type, 0, &v0);
    H5Tget_member_value(file_type, 1, &v1);
    bool is_bool = n0 && n1 && std::string(n0) == "FALSE" && std::string(n1) == "TRUE" && v0 == 0 && v1 == 1;
    H5free_memory(n0);
    H5free_memory(n1);
    if (is_bool) return {DType::Bool, H5Tget_native_type(file_type, H5T_DIR_ASCEND), true};
  }
  const char* what = cls == H5T_FLOAT     ? "float"
                     : cls == H5T_INTEGER ? (H5Tget_sign(file_type) == H5T_SGN_2 ? "int" : "uint")
                     : cls == H5T_STRING  ? "string"
                     : cls == H5T_COMPOUND ? "compound"
                     : cls == H5T_ENUM    ? "enum"
                                          : "non-numeric";
  throw DTypeError(detail::cat("HDF5Dataset: key '", key, "' in '", path, "' holds ", what, " elements of ", size,
                               " bytes, which Spire does not read; allowed: float16/32/64, int8/16/32/64, "
                               "uint8/16/32 and bool (h5py's FALSE/TRUE enum)"));
}

}  // namespace

HDF5Dataset::HDF5Dataset(const std::string& path, std::vector<std::string> keys, HDF5Options options)
    : path_(path), options_(options) {
  SPIRE_CHECK(options.cache_bytes >= 0, ValueError, "HDF5Dataset: cache_bytes must be >= 0, got ",
              options.cache_bytes);
  SPIRE_CHECK(options.block_rows >= 0, ValueError, "HDF5Dataset: block_rows must be >= 0 (0 chooses), got ",
              options.block_rows);
  std::error_code ec;
  SPIRE_CHECK(std::filesystem::is_regular_file(path, ec), IOError, "HDF5Dataset: no such file '", path, "'");
  Lock lock(hdf5_mutex());
  htri_t is_hdf5 = -1;
  H5E_BEGIN_TRY { is_hdf5 = H5Fis_hdf5(path.c_str()); } H5E_END_TRY;
  SPIRE_CHECK(is_hdf5 > 0, IOError, "HDF5Dataset: '", path, "' is not an HDF5 file");
  H5E_BEGIN_TRY { file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT); } H5E_END_TRY;
  SPIRE_CHECK(file_ >= 0, IOError, "HDF5Dataset: cannot open '", path, "' for reading");
  try {
    std::vector<std::string> available = list_datasets(file_);
    if (keys.empty()) {
      SPIRE_CHECK(!available.empty(), ValueError, "HDF5Dataset: '", path, "' holds no datasets");
      keys = available;
    }
    for (const std::string& key : keys) {
      Field f;
      f.key = key;
      SPIRE_CHECK(path_exists(file_, key), ValueError, "HDF5Dataset: key '", key, "' is not in '", path,
                  "'; its datasets are: ", join(available));
      H5E_BEGIN_TRY { f.dataset = H5Dopen2(file_, key.c_str(), H5P_DEFAULT); } H5E_END_TRY;
      SPIRE_CHECK(f.dataset >= 0, ValueError, "HDF5Dataset: '", key, "' in '", path,
                  "' is not a dataset (a group?); its datasets are: ", join(available));
      fields_.push_back(f);  // from here the destructor path closes it
      Field& g = fields_.back();
      hid_t type = H5Dget_type(g.dataset);
      try {
        TypeMap m = map_type(type, key, path);
        g.dtype = m.dtype;
        g.mem_type = m.mem_type;
        g.own_mem_type = m.own;
      } catch (...) {
        H5Tclose(type);
        throw;
      }
      H5Tclose(type);
      hid_t space = H5Dget_space(g.dataset);
      int rank = H5Sget_simple_extent_ndims(space);
      std::vector<hsize_t> dims(std::max(rank, 0));
      if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
      H5Sclose(space);
      SPIRE_CHECK(rank >= 1, ShapeError, "HDF5Dataset: key '", key, "' in '", path,
                  "' is a scalar; every key needs a first (sample) dimension");
      g.shape.assign(dims.begin(), dims.end());
      g.row_bytes = int64_t(itemsize(g.dtype));
      for (int d = 1; d < rank; ++d) g.row_bytes *= g.shape[d];
      // Blocks: whole HDF5 chunks when the storage is chunked, else about 64 KiB of rows.
      int64_t unit = 1;
      hid_t plist = H5Dget_create_plist(g.dataset);
      if (H5Pget_layout(plist) == H5D_CHUNKED) {
        std::vector<hsize_t> chunk(rank);
        H5Pget_chunk(plist, rank, chunk.data());
        unit = std::max<int64_t>(1, int64_t(chunk[0]));
      }
      H5Pclose(plist);
      int64_t target = std::max<int64_t>(1, kContiguousBlockBytes / std::max<int64_t>(1, g.row_bytes));
      g.block_rows = options.block_rows > 0 ? options.block_rows : ((target + unit - 1) / unit) * unit;
    }
    std::string sizes;
    bool same = true;
    for (auto& f : fields_) {
      sizes += (sizes.empty() ? "" : ", ") + f.key + ": " + std::to_string(f.shape[0]);
      same = same && f.shape[0] == fields_[0].shape[0];
    }
    SPIRE_CHECK(same, ShapeError, "HDF5Dataset: every key must have the same size along axis 0 (the samples) in '",
                path, "'; got ", sizes);
    size_ = fields_[0].shape[0];
  } catch (...) {
    for (auto& f : fields_) {
      if (f.own_mem_type) H5Tclose(f.mem_type);
      H5Dclose(f.dataset);
    }
    H5Fclose(file_);
    throw;
  }
}

HDF5Dataset::~HDF5Dataset() {
  Lock lock(hdf5_mutex());
  H5E_BEGIN_TRY {
    for (auto& f : fields_) {
      if (f.own_mem_type) H5Tclose(f.mem_type);
      H5Dclose(f.dataset);
    }
    H5Fclose(file_);
  } H5E_END_TRY;
}

std::vector<std::string> HDF5Dataset::names() const {
  std::vector<std::string> out;
  for (auto& f : fields_) out.push_back(f.key);
  return out;
}

std::vector<std::string> HDF5Dataset::keys_in(const std::string& path) {
  std::error_code ec;
  SPIRE_CHECK(std::filesystem::is_regular_file(path, ec), IOError, "HDF5Dataset.keys_in: no such file '", path, "'");
  Lock lock(hdf5_mutex());
  hid_t file = -1;
  H5E_BEGIN_TRY { file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT); } H5E_END_TRY;
  SPIRE_CHECK(file >= 0, IOError, "HDF5Dataset.keys_in: '", path, "' is not a readable HDF5 file");
  std::vector<std::string> names = list_datasets(file);
  H5Fclose(file);
  return names;
}

void HDF5Dataset::read_rows(const Field& f, int64_t first, int64_t count, void* dst) const {
  size_t rank = f.shape.size();
  std::vector<hsize_t> start(rank, 0), extent(f.shape.begin(), f.shape.end());
  start[0] = hsize_t(first);
  extent[0] = hsize_t(count);
  Lock lock(hdf5_mutex());
  hid_t file_space = H5Dget_space(f.dataset);
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr);
  hid_t mem_space = H5Screate_simple(int(rank), extent.data(), nullptr);
  herr_t status = -1;
  H5E_BEGIN_TRY { status = H5Dread(f.dataset, f.mem_type, mem_space, file_space, H5P_DEFAULT, dst); } H5E_END_TRY;
  H5Sclose(mem_space);
  H5Sclose(file_space);
  SPIRE_CHECK(status >= 0, IOError, "HDF5Dataset: reading rows ", first, " to ", first + count - 1, " of '", f.key,
              "' from '", path_, "' failed");
  ++stats_.reads;  // under the HDF5 lock, which every read holds
}

// Through the block cache: finds each needed block, reads the missing ones (one hyperslab per
// run of consecutive missing blocks), then copies the rows out.
Tensor HDF5Dataset::gather_cached(size_t field, const Indices& rows) const {
  const Field& f = fields_[field];
  const int64_t R = f.block_rows, n = f.shape[0];
  std::vector<int64_t> wanted;
  for (int64_t r : rows) wanted.push_back(r / R);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());

  std::map<int64_t, Block> blocks;
  std::vector<int64_t> missing;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    for (int64_t b : wanted) {
      auto it = cache_.find({field, b});
      if (it == cache_.end()) {
        missing.push_back(b);
        ++stats_.misses;
        continue;
      }
      lru_.splice(lru_.begin(), lru_, it->second.pos);
      blocks[b] = it->second.block;
      ++stats_.hits;
    }
  }
  for (size_t i = 0; i < missing.size();) {
    size_t j = i + 1;
    while (j < missing.size() && missing[j] == missing[j - 1] + 1) ++j;
    int64_t first = missing[i] * R, last = std::min(n, (missing[j - 1] + 1) * R);
    auto buffer = std::shared_ptr<std::byte[]>(new std::byte[size_t((last - first) * f.row_bytes)]);
    read_rows(f, first, last - first, buffer.get());
    std::lock_guard<std::mutex> lock(cache_mutex_);
    for (size_t k = i; k < j; ++k) {
      int64_t b = missing[k], b_rows = std::min(n, (b + 1) * R) - b * R;
      Block block(buffer, buffer.get() + (b * R - first) * f.row_bytes);  // aliases the run's buffer
      blocks[b] = block;
      int64_t bytes = b_rows * f.row_bytes;
      if (bytes > options_.cache_bytes || cache_.count({field, b})) continue;
      while (stats_.bytes + bytes > options_.cache_bytes && !lru_.empty()) {
        auto victim = cache_.find(lru_.back());
        stats_.bytes -= victim->second.bytes;
        cache_.erase(victim);
        lru_.pop_back();
      }
      lru_.push_front({field, b});
      cache_[{field, b}] = Entry{block, bytes, lru_.begin()};
      stats_.bytes += bytes;
    }
    i = j;
  }

  Shape shape = f.shape;
  shape[0] = int64_t(rows.size());
  Tensor out = empty(shape, f.dtype);
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (size_t k = 0; k < rows.size(); ++k) {
    int64_t b = rows[k] / R;
    std::memcpy(dst + k * f.row_bytes, blocks[b].get() + (rows[k] - b * R) * f.row_bytes, size_t(f.row_bytes));
  }
  return out;
}

// Without a cache: exactly the rows asked for, one hyperslab per run of consecutive rows.
Tensor HDF5Dataset::gather_direct(size_t field, const Indices& rows) const {
  const Field& f = fields_[field];
  std::vector<int64_t> sorted(rows);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  Shape shape = f.shape;
  shape[0] = int64_t(rows.size());
  Tensor out = empty(shape, f.dtype);
  auto* dst = static_cast<std::byte*>(out.raw_data());
  bool in_order = sorted.size() == rows.size() && std::equal(sorted.begin(), sorted.end(), rows.begin());
  std::vector<std::byte> staging(in_order ? 0 : sorted.size() * size_t(f.row_bytes));
  std::byte* base = in_order ? dst : staging.data();
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j] == sorted[j - 1] + 1) ++j;
    read_rows(f, sorted[i], int64_t(j - i), base + i * f.row_bytes);
    i = j;
  }
  if (!in_order) {
    for (size_t k = 0; k < rows.size(); ++k) {
      size_t pos = size_t(std::lower_bound(sorted.begin(), sorted.end(), rows[k]) - sorted.begin());
      std::memcpy(dst + k * f.row_bytes, base + pos * f.row_bytes, size_t(f.row_bytes));
    }
  }
  return out;
}

Sample HDF5Dataset::get_batch(const Indices& indices) const {
  SPIRE_CHECK(!indices.empty(), ValueError, "HDF5Dataset.get_batch: needs at least one index");
  Indices rows;
  rows.reserve(indices.size());
  for (int64_t i : indices) rows.push_back(checked_index(i, "HDF5Dataset"));
  // A run of consecutive rows at least a block long (sequential loading) is read straight into
  // the batch: the cache would only add a copy, as those blocks are not asked for again.
  bool run = true;
  for (size_t k = 1; k < rows.size() && run; ++k) run = rows[k] == rows[k - 1] + 1;
  Sample out;
  for (size_t k = 0; k < fields_.size(); ++k) {
    bool direct = options_.cache_bytes == 0 || (run && int64_t(rows.size()) >= fields_[k].block_rows);
    out.push_back(direct ? gather_direct(k, rows) : gather_cached(k, rows));
  }
  return out;
}

Sample HDF5Dataset::get(int64_t index) const {
  Sample batch = get_batch({index});
  for (auto& t : batch) t = reshape(t, Shape(t.shape().begin() + 1, t.shape().end()));
  return batch;
}

HDF5Dataset::CacheStats HDF5Dataset::cache_stats() const {
  std::lock_guard<std::recursive_mutex> io(hdf5_mutex());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  return stats_;
}

void HDF5Dataset::clear_cache() {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_.clear();
  lru_.clear();
  stats_.bytes = 0;
}

}  // namespace spire::data
