// A dataset read lazily from an HDF5 file: each key names an HDF5 dataset whose axis 0 indexes
// the samples (all keys must have the same length), and a sample is row i of every key.
//
// Rows are read in blocks of consecutive rows (one hyperslab read per run of consecutive missing
// blocks) and kept in an LRU cache bounded in bytes, so sequential and locally shuffled access
// read each block once. A block is a whole number of the file's HDF5 chunks (whose compression is
// undone per chunk anyway) or, for contiguous storage, about 64 KiB. With cache_bytes = 0 nothing
// is cached and a batch reads exactly its rows (one hyperslab per run of consecutive indices); a
// batch of at least a block of consecutive rows (sequential loading) is read that way too.
//
// HDF5 types map to spire dtypes: float32, float64, int32, int64, and h5py's bool (an 8-bit enum
// FALSE/TRUE) to themselves; narrower integers widen to int32 (uint32 to int64) and float16 to
// float32, as NumPy promotes them. Reading is thread-safe: HDF5 calls hold hdf5_mutex().
#pragma once
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/data/dataset.h"

namespace spire::data {

struct HDF5Options {
  int64_t cache_bytes = int64_t(64) << 20;  // the LRU cache of blocks; 0 disables it
  int64_t block_rows = 0;                   // rows per cached block; 0 chooses (see above)
};

class HDF5Dataset : public Dataset {
 public:
  // `keys` are dataset paths in the file ("x", "group/y"); empty means every dataset in the file,
  // in name order.
  HDF5Dataset(const std::string& path, std::vector<std::string> keys = {}, HDF5Options options = {});
  ~HDF5Dataset() override;
  HDF5Dataset(const HDF5Dataset&) = delete;
  HDF5Dataset& operator=(const HDF5Dataset&) = delete;

  int64_t size() const override { return size_; }
  Sample get(int64_t index) const override;
  Sample get_batch(const Indices& indices) const override;
  std::vector<std::string> names() const override;

  const std::string& path() const { return path_; }
  // Per key: the full shape (axis 0 the samples), the dtype, the rows per cached block.
  const Shape& shape(size_t field) const { return fields_.at(field).shape; }
  DType dtype(size_t field) const { return fields_.at(field).dtype; }
  int64_t block_rows(size_t field) const { return fields_.at(field).block_rows; }
  const HDF5Options& options() const { return options_; }

  struct CacheStats {
    int64_t hits = 0, misses = 0;  // blocks found in / missing from the cache
    int64_t reads = 0;             // hyperslab reads issued
    int64_t bytes = 0;             // bytes held by the cache now
  };
  CacheStats cache_stats() const;
  void clear_cache();

  // Every dataset path in the file, in name order (the keys an HDF5Dataset may be given).
  static std::vector<std::string> keys_in(const std::string& path);

 private:
  struct Field {
    std::string key;
    int64_t dataset = -1;   // hid_t
    int64_t mem_type = -1;  // hid_t of the in-memory type
    bool own_mem_type = false;
    DType dtype = DType::Float32;
    Shape shape;
    int64_t row_bytes = 0, block_rows = 1;
  };
  using Block = std::shared_ptr<const std::byte>;  // block_rows rows (fewer at the end)

  // Rows [first, first + count) of field f into dst (contiguous rows), one hyperslab read.
  void read_rows(const Field& f, int64_t first, int64_t count, void* dst) const;
  Tensor gather_cached(size_t field, const Indices& rows) const;
  Tensor gather_direct(size_t field, const Indices& rows) const;

  std::string path_;
  HDF5Options options_;
  int64_t file_ = -1;  // hid_t
  std::vector<Field> fields_;
  int64_t size_ = 0;

  // The LRU cache: most recently used at the front of `lru_`.
  using CacheKey = std::pair<size_t, int64_t>;  // (field, block)
  struct KeyHash {
    size_t operator()(const CacheKey& k) const { return std::hash<int64_t>()(k.second * 131 + int64_t(k.first)); }
  };
  struct Entry {
    Block block;
    int64_t bytes;
    std::list<CacheKey>::iterator pos;
  };
  mutable std::mutex cache_mutex_;
  mutable std::list<CacheKey> lru_;
  mutable std::unordered_map<CacheKey, Entry, KeyHash> cache_;
  mutable CacheStats stats_;
};

}  // namespace spire::data
