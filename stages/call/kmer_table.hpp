// A flat open-addressing set of k-mers (all of one length) for the read-threading graph: the
// k-mer bytes are kept once in an arena and each k-mer gets a dense id (0, 1, 2, ... in order of
// insertion) that callers index their own arrays with. Replaces std::unordered_set<std::string>
// and std::unordered_map<std::string, VertexId>, whose node allocations and byte hashing were most
// of the graph building. Nothing iterates the table in hash order, so results do not depend on
// the hash; iteration (begin/end) is in insertion order.
//
// @code
//   KmerTable table(3);
//   auto [id, inserted] = table.insert("ACG");   // id 0, inserted
//   table.find("ACG") == 0;  table.find("CGT") == KmerTable::kAbsent;
// @endcode
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hash.hpp"

namespace gpp::stages::call {

class KmerTable {
 public:
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

  explicit KmerTable(int kmer_size) : kmer_size_(static_cast<std::size_t>(kmer_size)) {}

  std::size_t kmer_size() const { return kmer_size_; }
  std::size_t size() const { return hashes_.size(); }
  std::string_view key(std::uint32_t id) const {
    return std::string_view(arena_).substr(id * kmer_size_, kmer_size_);
  }

  /// The hash of one k-mer: its bytes eight at a time, then a 64-bit finaliser.
  static std::uint64_t hash(std::string_view kmer) {
    std::uint64_t h = kmer.size();
    std::size_t i = 0;
    for (; i + 8 <= kmer.size(); i += 8) {
      std::uint64_t word;
      std::memcpy(&word, kmer.data() + i, 8);
      h = (h ^ word) * kMultiplier;
      h ^= h >> 29;
    }
    if (i < kmer.size()) {
      std::uint64_t word = 0;
      std::memcpy(&word, kmer.data() + i, kmer.size() - i);
      h = (h ^ word) * kMultiplier;
      h ^= h >> 29;
    }
    return mix(h);
  }

  /// The id of `kmer` (which must be k long), or kAbsent.
  std::uint32_t find(std::string_view kmer, std::uint64_t h) const {
    if (slots_.empty()) return kAbsent;
    for (std::size_t s = h & mask_;; s = (s + 1) & mask_) {
      const std::uint32_t id = slots_[s];
      if (id == kAbsent) return kAbsent;
      if (hashes_[id] == h &&
          std::memcmp(arena_.data() + id * kmer_size_, kmer.data(), kmer_size_) == 0) {
        return id;
      }
    }
  }
  std::uint32_t find(std::string_view kmer) const {
    return kmer.size() == kmer_size_ && !slots_.empty() ? find(kmer, hash(kmer)) : kAbsent;
  }
  bool contains(std::string_view kmer) const { return find(kmer) != kAbsent; }
  bool contains(std::string_view kmer, std::uint64_t h) const {
    return !slots_.empty() && find(kmer, h) != kAbsent;
  }

  /// Adds `kmer` (k long) if absent; its id and whether it was added.
  std::pair<std::uint32_t, bool> insert(std::string_view kmer, std::uint64_t h) {
    if ((hashes_.size() + 1) * 2 > slots_.size()) grow();
    std::size_t s = h & mask_;
    for (;; s = (s + 1) & mask_) {
      const std::uint32_t id = slots_[s];
      if (id == kAbsent) break;
      if (hashes_[id] == h &&
          std::memcmp(arena_.data() + id * kmer_size_, kmer.data(), kmer_size_) == 0) {
        return {id, false};
      }
    }
    const auto id = static_cast<std::uint32_t>(hashes_.size());
    slots_[s] = id;
    hashes_.push_back(h);
    arena_.append(kmer.data(), kmer_size_);
    return {id, true};
  }
  std::pair<std::uint32_t, bool> insert(std::string_view kmer) { return insert(kmer, hash(kmer)); }

  /// Room for `count` k-mers without rehashing.
  void reserve(std::size_t count) {
    hashes_.reserve(count);
    arena_.reserve(count * kmer_size_);
    if (slots_.size() < 2 * count) {
      std::size_t capacity = 64;
      while (capacity < 2 * count) capacity *= 2;
      rehash(capacity);
    }
  }

  /// Empties the table, keeping its memory.
  void clear() {
    slots_.assign(slots_.size(), kAbsent);
    hashes_.clear();
    arena_.clear();
  }

  /// The k-mers in insertion order, as strings.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::string;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string;
    const_iterator(const KmerTable* table, std::uint32_t id) : table_(table), id_(id) {}
    std::string operator*() const { return std::string(table_->key(id_)); }
    const_iterator& operator++() {
      ++id_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++id_;
      return old;
    }
    bool operator==(const const_iterator& other) const { return id_ == other.id_; }

   private:
    const KmerTable* table_;
    std::uint32_t id_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, static_cast<std::uint32_t>(size())}; }

 private:
  static constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;  // odd
  // The murmur3 / splitmix64 finaliser: every input bit reaches the low bits the slots use.
  static std::uint64_t mix(std::uint64_t h) { return murmur3_fmix64(h); }
  void grow() { rehash(slots_.empty() ? 64 : slots_.size() * 2); }
  void rehash(std::size_t capacity) {
    slots_.assign(capacity, kAbsent);
    mask_ = capacity - 1;
    for (std::uint32_t id = 0; id < hashes_.size(); ++id) {
      std::size_t s = hashes_[id] & mask_;
      while (slots_[s] != kAbsent) s = (s + 1) & mask_;
      slots_[s] = id;
    }
  }

  std::size_t kmer_size_;
  std::size_t mask_ = 0;
  std::vector<std::uint32_t> slots_;   ///< id or kAbsent
  std::vector<std::uint64_t> hashes_;  ///< by id
  std::string arena_;                  ///< k bytes per id
};

}  // namespace gpp::stages::call
