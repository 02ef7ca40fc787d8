// GATK FragmentUtils / FragmentCollection / cleanOverlappingReadPairs rules (see the header).
#include "stages/call/overlapping_mates.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "stages/call/read_clipping.hpp"
#include "stages/call/read_geometry.hpp"

namespace gpp::stages::call {

namespace {

/// Java's (byte) Math.min(byte, int) for qualities up to 127.
std::uint8_t capped(std::uint8_t quality, int cap) {
  return static_cast<std::uint8_t>(std::min<int>(static_cast<std::int8_t>(quality), cap));
}

/// ReadUtils.getBaseInsertionQualities / getBaseDeletionQualities: the array, or 45s.
std::vector<std::uint8_t>& materialise(std::vector<std::uint8_t>& quals, std::size_t length) {
  if (quals.empty()) quals.assign(length, kDefaultIndelQuality);
  return quals;
}

/// FragmentCollection.create over reads[indices[0]], reads[indices[1]], ...: the overlapping
/// pairs, as indices into `reads`.
std::vector<std::pair<std::size_t, std::size_t>> mate_pairs_among(
    std::span<const CallRead> reads, std::span<const std::size_t> indices) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  // name -> first candidate of that name (the names are views of `reads`, unchanged here)
  std::unordered_map<std::string_view, std::size_t> waiting;
  waiting.reserve(indices.size());
  std::int64_t last_start = -1;
  for (std::size_t i : indices) {
    const CallRead& read = reads[i];
    if (read.start < last_start) {
      throw Error("overlapping mates: reads are not ordered by start (" + read.name + " at " +
                  std::to_string(read.start) + " after " + std::to_string(last_start) + ")");
    }
    last_start = read.start;
    if (!read.is_paired() || gatk_mate_is_unmapped(read) ||
        read.mate_start > alignment_stop(read)) {
      continue;  // cannot overlap its mate
    }
    const auto found = waiting.find(read.name);
    if (found != waiting.end()) {
      pairs.emplace_back(found->second, i);
      waiting.erase(found);
    } else {
      waiting.emplace(std::string_view(read.name), i);
    }
  }
  return pairs;
}

}  // namespace

void adjust_quals_of_overlapping_mates(CallRead& left, CallRead& right,
                                       bool set_conflicting_to_zero,
                                       std::optional<int> half_pcr_snv_quality,
                                       std::optional<int> half_pcr_indel_quality) {
  const bool in_order = left.soft_start() < right.soft_start();
  CallRead& first = in_order ? left : right;
  CallRead& second = in_order ? right : left;
  if (first.name != second.name) {
    throw Error("cannot merge the qualities of reads with different names: " + first.name +
                " and " + second.name);
  }
  if (alignment_stop(first) < second.start || first.contig != second.contig) return;

  const ReadIndexAtReference at = read_index_at_reference(first, second.start);
  if (!at.found || is_clipping(at.op)) return;  // no overlap, or only in a clipped part

  const std::int64_t first_end = read_index_at_reference(first, alignment_stop(first)).index;
  const std::int64_t second_end = read_index_at_reference(second, alignment_stop(second)).index;
  const std::int64_t first_offset = at.index;
  const std::int64_t second_offset = read_index_at_reference(second, second.start).index;
  const std::int64_t overlap = std::min(first_end - first_offset, second_end - second_offset) + 1;

  if (overlap > 0 && (static_cast<std::size_t>(first_offset + overlap) >
                          std::min(first.bases.size(), first.quals.size()) ||
                      static_cast<std::size_t>(second_offset + overlap) >
                          std::min(second.bases.size(), second.quals.size()))) {
    throw Error("reads " + first.name + ": bases or qualities shorter than the CIGAR");
  }
  const int cap = half_pcr_snv_quality.value_or(kHalfOfDefaultPcrSnvQuality);
  for (std::int64_t i = 0; i < overlap; ++i) {
    const std::size_t a = static_cast<std::size_t>(first_offset + i);
    const std::size_t b = static_cast<std::size_t>(second_offset + i);
    if (first.bases[a] == second.bases[b]) {
      first.quals[a] = capped(first.quals[a], cap);
      second.quals[b] = capped(second.quals[b], cap);
    } else if (set_conflicting_to_zero) {
      first.quals[a] = 0;
      second.quals[b] = 0;
    }
  }

  if (half_pcr_indel_quality) {
    const int indel_cap = *half_pcr_indel_quality;
    auto& first_ins = materialise(first.insertion_quals, first.quals.size());
    auto& first_del = materialise(first.deletion_quals, first.quals.size());
    auto& second_ins = materialise(second.insertion_quals, second.quals.size());
    auto& second_del = materialise(second.deletion_quals, second.quals.size());
    for (std::int64_t i = 0; i < overlap; ++i) {
      const std::size_t a = static_cast<std::size_t>(first_offset + i);
      const std::size_t b = static_cast<std::size_t>(second_offset + i);
      first_del[a] = capped(first_del[a], indel_cap);
      first_ins[a] = capped(first_ins[a], indel_cap);
      second_del[b] = capped(second_del[b], indel_cap);
      second_ins[b] = capped(second_ins[b], indel_cap);
    }
  }
}

std::vector<std::pair<std::size_t, std::size_t>> overlapping_mate_pairs(
    std::span<const CallRead> reads) {
  std::vector<std::size_t> all(reads.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return mate_pairs_among(reads, all);
}

void clean_overlapping_read_pairs(std::vector<CallRead>& reads,
                                  std::span<const std::uint32_t> sample_of_read_group,
                                  bool set_conflicting_to_zero,
                                  std::optional<int> half_pcr_snv_quality,
                                  std::optional<int> half_pcr_indel_quality) {
  // Split by sample, keeping the order within each sample.
  std::map<std::uint32_t, std::vector<std::size_t>> by_sample;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    std::uint32_t sample = 0;
    if (!sample_of_read_group.empty()) {
      if (reads[i].read_group >= sample_of_read_group.size()) {
        throw ReadError("read " + reads[i].name + ": read group " +
                        std::to_string(reads[i].read_group) + " has no sample");
      }
      sample = sample_of_read_group[reads[i].read_group];
    }
    by_sample[sample].push_back(i);
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (const auto& [sample, indices] : by_sample) {
    const auto sample_pairs = mate_pairs_among(reads, indices);  // throws before any edit
    pairs.insert(pairs.end(), sample_pairs.begin(), sample_pairs.end());
  }
  for (const auto& [a, b] : pairs) {
    adjust_quals_of_overlapping_mates(reads[a], reads[b], set_conflicting_to_zero,
                                      half_pcr_snv_quality, half_pcr_indel_quality);
  }
}

}  // namespace gpp::stages::call
