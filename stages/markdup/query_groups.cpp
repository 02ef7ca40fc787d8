#include "stages/markdup/query_groups.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "kernels/sort/sort_by_key.hpp"

namespace gpp::stages::markdup {

std::uint64_t name_hash(std::string_view name) {
  // Eight bytes a step (a byte-wise hash is a chain of one multiply per byte), then MurmurHash3's
  // 64-bit finaliser, so that the high half the pair grouping takes depends on every byte.
  constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = name.size() * kMultiplier;
  std::size_t at = 0;
  auto mix = [&](std::uint64_t word) {
    h = (h ^ word) * kMultiplier;
    h ^= h >> 29;
  };
  for (; at + 8 <= name.size(); at += 8) {
    std::uint64_t word;
    std::memcpy(&word, name.data() + at, 8);
    mix(word);
  }
  if (at < name.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, name.data() + at, name.size() - at);
    mix(word);
  }
  return murmur3_fmix64(h);
}

std::vector<std::uint32_t> template_indices(const io::ReadBatch& reads) {
  const std::size_t n = reads.size();
  std::vector<std::uint32_t> first(n);
  std::vector<std::uint32_t> heads;  // first record of every run
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || reads.read_name(i) != reads.read_name(i - 1))
      heads.push_back(static_cast<std::uint32_t>(i));
    first[i] = heads.back();
  }
  // Every run must have its own name: sort the runs' name hashes and compare neighbours.
  std::vector<std::uint64_t> hashes(heads.size());
  oneapi::tbb::parallel_for(std::size_t{0}, heads.size(), [&](std::size_t r) {
    hashes[r] = name_hash(reads.read_name(heads[r]));
  });
  const std::vector<std::uint32_t> by_hash =
      kernels::stable_sort_permutation(hashes, kernels::Backend::kCpu);
  for (std::size_t r = 0; r < by_hash.size(); ++r) {
    // Runs with equal hashes are adjacent here; any two of them with the same name are an error.
    for (std::size_t s = r + 1; s < by_hash.size() && hashes[by_hash[s]] == hashes[by_hash[r]];
         ++s) {
      const std::string_view name = reads.read_name(heads[by_hash[r]]);
      if (name == reads.read_name(heads[by_hash[s]])) {
        throw Error(
            "input is not grouped by read name as its sort order says (queryname): the records "
            "of " +
            std::string(name) + " are not adjacent; use --assume-sort-order coordinate");
      }
    }
  }
  return first;
}

}  // namespace gpp::stages::markdup
