// GATK PositionalDownsampler / ReservoirDownsampler (non-random replacement mode); see the header.
#include "stages/call/downsampler.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

/// GATK ReadUtils.readHasNoAssignedPosition.
bool has_no_assigned_position(const CallRead& read) { return read.contig < 0 || read.start < 0; }

/// ReadCoordinateComparator.compareCoordinates: unplaced reads last, then contig, then start.
int compare_positions(const CallRead& a, const CallRead& b) {
  const bool a_unplaced = a.contig < 0;
  const bool b_unplaced = b.contig < 0;
  if (a_unplaced) return b_unplaced ? 0 : 1;
  if (b_unplaced) return -1;
  if (a.contig != b.contig) return a.contig < b.contig ? -1 : 1;
  return a.start < b.start ? -1 : (a.start > b.start ? 1 : 0);
}

}  // namespace

std::int32_t java_string_hash(std::string_view text) {
  std::uint32_t hash = 0;
  for (char c : text) hash = 31u * hash + static_cast<unsigned char>(c);
  return static_cast<std::int32_t>(hash);
}

std::vector<std::size_t> downsample_by_alignment_start(std::span<const CallRead> reads,
                                                       int max_reads_per_alignment_start) {
  std::vector<std::size_t> kept;
  kept.reserve(reads.size());
  if (max_reads_per_alignment_start <= 0) {
    for (std::size_t i = 0; i < reads.size(); ++i) kept.push_back(i);
    return kept;
  }
  const std::size_t target = static_cast<std::size_t>(max_reads_per_alignment_start);
  std::vector<std::size_t> reservoir;
  std::int64_t seen = 0;  // ReservoirDownsampler.totalReadsSeen
  const CallRead* previous = nullptr;

  auto finalize_stack = [&] {
    kept.insert(kept.end(), reservoir.begin(), reservoir.end());
    reservoir.clear();
    seen = 0;
  };

  for (std::size_t i = 0; i < reads.size(); ++i) {
    const CallRead& read = reads[i];
    if (previous != nullptr) {
      const int order = compare_positions(*previous, read);
      if (order > 0) {
        throw Error("downsampling: reads are not coordinate-sorted (" + previous->name +
                    " before " + read.name + ")");
      }
      if (order != 0) finalize_stack();
    }
    if (has_no_assigned_position(read)) {
      kept.push_back(i);
    } else {
      ++seen;
      if (static_cast<std::size_t>(seen) <= target) {
        reservoir.push_back(i);
      } else {
        const std::int64_t magnitude =
            std::llabs(static_cast<std::int64_t>(java_string_hash(read.name)));
        const std::int64_t slot = magnitude % seen;
        if (static_cast<std::size_t>(slot) < target) reservoir[static_cast<std::size_t>(slot)] = i;
      }
    }
    previous = &read;
  }
  finalize_stack();
  return kept;
}

}  // namespace gpp::stages::call
