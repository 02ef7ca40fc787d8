// Read pairs as a perfect aligner would report them for a simulated diploid sample: fragments
// cut from one of the two haplotypes of a contig, read 1 forward from the fragment's start,
// read 2 reverse from its end, aligned to the reference (I/D at the sample's indels), with
// sequencing errors that rise along the read, overstated qualities, PCR and optical duplicates,
// soft clips, mates on the other contig and unmapped mates, in four read groups of two libraries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/generator/haplotype.hpp"
#include "bench/generator/truth_set.hpp"
#include "io/reads/read_batch.hpp"

namespace gpp::bench {

inline constexpr int kReadLength = 150;
inline constexpr std::int64_t kPairsPerChunk = 1 << 16;

struct SimulatedContig {
  std::string name;
  std::string bases;                       ///< reference, upper case
  std::vector<std::int64_t> valid_starts;  ///< starts of 1 kb windows without N
  std::vector<Variant> truth;
  std::vector<Haplotype> haplotypes;  ///< two: HP tag 1 and 2
};

struct SimulationSettings {
  std::int64_t pairs = 0;
  unsigned seed = 1;
  double duplicates = 0.08;  ///< fraction of pairs that copy an earlier fragment of their library
  int quality_bias = 4;      ///< mean points by which reported qualities overstate the true ones
};

/// The read groups (ID, LB, PU): two lanes of each of two libraries. Duplicates stay within
/// their library (Picard marks only there); optical ones also within their read group and tile.
struct ReadGroupLayout {
  const char* id;
  const char* library;
  const char* platform_unit;
};
inline constexpr ReadGroupLayout kReadGroups[] = {{"rg1", "simlib1", "FC0.1"},
                                                  {"rg2", "simlib1", "FC0.2"},
                                                  {"rg3", "simlib2", "FC0.3"},
                                                  {"rg4", "simlib2", "FC0.4"}};

/// "@RG" header lines for kReadGroups, sample `sample`.
std::string read_group_header_lines(const std::string& sample);

/// Appends to `batch` the pairs of chunk `chunk` (pairs [chunk * kPairsPerChunk, ...)), in
/// generation order. Deterministic for a seed and chunk, whatever the thread.
void simulate_chunk(const std::vector<SimulatedContig>& contigs, const SimulationSettings& settings,
                    std::int64_t chunk, io::ReadBatch& batch);

}  // namespace gpp::bench
