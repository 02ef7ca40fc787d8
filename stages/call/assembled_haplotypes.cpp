// GATK ReadThreadingAssembler.findBestPaths (CIGAR sanity rules) and AssemblyResultSet.trimTo
// (calculateOriginalByTrimmedHaplotypes / trimDownHaplotypes / SIZE_AND_BASE_ORDER).
#include "stages/call/assembled_haplotypes.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "core/cigar.hpp"
#include "core/error.hpp"

namespace gpp::stages::call {

HaplotypeAlignmentVerdict judge_haplotype_alignment(
    std::optional<std::span<const std::uint32_t>> softclip_cigar,
    std::int64_t reference_haplotype_length) {
  if (!softclip_cigar) return HaplotypeAlignmentVerdict::kAlignmentFailed;
  const std::span<const std::uint32_t> cigar = *softclip_cigar;
  if (cigar.empty()) {
    throw Error("Smith-Waterman alignment failure: empty cigar, expecting reference length " +
                std::to_string(reference_haplotype_length));
  }
  // GATK signals a bubble too divergent from the reference with an N element
  const bool has_skip = std::any_of(cigar.begin(), cigar.end(),
                                    [](std::uint32_t e) { return cigar_op(e) == CigarOp::kSkip; });
  if (has_skip) return HaplotypeAlignmentVerdict::kTooDivergent;
  const auto reference_length = static_cast<std::int64_t>(cigar_reference_length(cigar));
  if (reference_length < kMinHaplotypeReferenceLength) {
    return HaplotypeAlignmentVerdict::kTooShortOnReference;
  }
  if (reference_length != reference_haplotype_length) {
    return HaplotypeAlignmentVerdict::kCheckWithIndelStrategy;
  }
  return HaplotypeAlignmentVerdict::kKeep;
}

HaplotypeAlignmentVerdict judge_indel_strategy_alignment(
    std::optional<std::span<const std::uint32_t>> indel_cigar,
    std::int64_t reference_haplotype_length) {
  if (!indel_cigar) {
    throw Error("Smith-Waterman alignment failure: no INDEL-strategy cigar for a haplotype");
  }
  const auto reference_length = static_cast<std::int64_t>(cigar_reference_length(*indel_cigar));
  if (reference_length == reference_haplotype_length) {
    return HaplotypeAlignmentVerdict::kAlignmentFailed;
  }
  throw Error("Smith-Waterman alignment failure. Cigar = " + cigar_to_string(*indel_cigar) +
              " with reference length " + std::to_string(reference_length) +
              " but expecting reference length of " + std::to_string(reference_haplotype_length));
}

TrimmedHaplotypes trim_haplotypes_to(std::span<const Haplotype> haplotypes,
                                     ContigInterval padded_span) {
  const bool has_reference = std::any_of(haplotypes.begin(), haplotypes.end(),
                                         [](const Haplotype& h) { return h.is_reference; });
  if (!has_reference) throw Error("refHaplotype is null");

  // trimDownHaplotypes: trimmed copies are all non-reference, so equal bases mean equal
  // haplotypes; the first original is kept unless a later one is the reference
  struct Entry {
    Haplotype trimmed;
    std::size_t original;
  };
  std::vector<Entry> entries;
  std::map<std::string, std::size_t> entry_by_bases;
  for (std::size_t i = 0; i < haplotypes.size(); ++i) {
    std::optional<Haplotype> trimmed = trim_haplotype(haplotypes[i], padded_span, true);
    if (!trimmed) {
      if (haplotypes[i].is_reference) throw Error("trimming eliminates the reference haplotype");
      continue;
    }
    auto found = entry_by_bases.find(trimmed->bases);
    if (found == entry_by_bases.end()) {
      entry_by_bases.emplace(trimmed->bases, entries.size());
      entries.push_back({std::move(*trimmed), i});
    } else if (haplotypes[i].is_reference) {
      entries[found->second] = {std::move(*trimmed), i};
    }
  }

  // the copy of the reference is marked reference again (a new Haplotype: k-mer size not copied)
  for (Entry& entry : entries) {
    if (haplotypes[entry.original].is_reference) {
      entry.trimmed.is_reference = true;
      entry.trimmed.kmer_size = 0;
    }
  }

  std::vector<std::size_t> order(entries.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return size_and_base_less(entries[a].trimmed, entries[b].trimmed);
  });

  TrimmedHaplotypes result;
  result.haplotypes.reserve(entries.size());
  result.original.reserve(entries.size());
  for (std::size_t k : order) {
    if (entries[k].trimmed.is_reference) result.reference_index = result.haplotypes.size();
    result.haplotypes.push_back(std::move(entries[k].trimmed));
    result.original.push_back(entries[k].original);
  }
  const bool any_non_reference = std::any_of(haplotypes.begin(), haplotypes.end(),
                                             [](const Haplotype& h) { return !h.is_reference; });
  result.variation_present = any_non_reference && result.haplotypes.size() > 1;
  return result;
}

}  // namespace gpp::stages::call
