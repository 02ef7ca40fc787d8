// GATK HaplotypeBAMWriter's records for one region; see haplotype_bam.hpp.
#include "stages/call/haplotype_bam.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>

#include "core/error.hpp"
#include "io/reads/aux_fields.hpp"
#include "stages/call/best_haplotype.hpp"
#include "stages/call/region_work.hpp"

namespace gpp::stages::call {

namespace {

/// HaplotypeBAMWriter's MAPQ for a haplotype among the best ones (every written one here).
constexpr std::uint8_t kBestHaplotypeMappingQuality = 60;

/// GATK's default base insertion and deletion quality, written for a missing BI or BD.
constexpr std::uint8_t kDefaultIndelQuality = 45;

/// ClippingOp's hard clip: a read with a BI or BD tag that lost bases carries both, clipped with
/// the bases (ReadUtils.setInsertionBaseQualities / setDeletionBaseQualities; a missing one as the
/// default 45s).
void clip_indel_quality_tags(CallRead& read) {
  const std::optional<std::string> bi = string_tag(read.aux, "BI");
  const std::optional<std::string> bd = string_tag(read.aux, "BD");
  const std::size_t length = read.bases.size();
  if ((!bi || bi->size() == length) && (!bd || bd->size() == length)) return;
  auto text = [&](const std::vector<std::uint8_t>& quals) {
    std::string out(length, static_cast<char>(kDefaultIndelQuality + 33));
    if (quals.size() == length) {
      for (std::size_t i = 0; i < length; ++i) out[i] = static_cast<char>(quals[i] + 33);
    }
    return out;
  };
  set_string_tag(read.aux, "BI", text(read.insertion_quals));
  set_string_tag(read.aux, "BD", text(read.deletion_quals));
}

}  // namespace

std::string interval_string(std::string_view contig, const ContigInterval& interval) {
  return std::string(contig) + ":" + std::to_string(interval.first + 1) + "-" +
         std::to_string(interval.last + 1);
}

HaplotypeBamRecord haplotype_bam_record(const Haplotype& haplotype, std::int32_t contig,
                                        std::int64_t start, std::string_view callable_region,
                                        int index) {
  HaplotypeBamRecord record;
  record.haplotype_index = index;
  CallRead& read = record.read;
  read.contig = contig;
  read.start = start;
  read.cigar = haplotype.cigar;
  read.bases = haplotype.bases;
  // Utils.dupBytes((byte) '!', n) as the base qualities: Q33 each (written as B).
  read.quals.assign(haplotype.bases.size(), 33);
  read.flag = 0x10;
  read.mapping_quality = kBestHaplotypeMappingQuality;
  read.mate_contig = -1;
  read.mate_start = -1;
  set_integer_tag(read.aux, "HC", java_hash_code(haplotype.bases));
  set_string_tag(read.aux, "RG", kHaplotypeReadGroup);
  if (!callable_region.empty()) set_string_tag(read.aux, "CR", callable_region);
  read.aux = as_htsjdk_writes(read.aux);
  return record;
}

std::vector<HaplotypeBamRecord> haplotype_bam_records(const RegionWork& work,
                                                      const ContigReference& contig,
                                                      BamWriterType type) {
  std::vector<HaplotypeBamRecord> records;
  if (!work.has_work || work.genotyping_haplotypes.empty()) return records;
  const bool called_only =
      type == BamWriterType::kCalledHaplotypes || type == BamWriterType::kCalledHaplotypesNoReads;
  if (called_only && work.called_haplotypes_in_order.empty()) return records;
  const std::vector<Haplotype>& haplotypes = work.genotyping_haplotypes;
  const std::size_t haplotype_count = haplotypes.size();
  const std::size_t read_count = work.genotyping_reads.size();
  if (work.likelihoods.values.size() != read_count * haplotype_count) {
    throw Error("haplotype BAM: the region's likelihoods do not match its reads and haplotypes");
  }
  const std::string callable_region = interval_string(contig.name, work.window.variant_span);

  std::vector<std::size_t> written;
  if (called_only) {
    std::vector<std::int32_t> hashes;
    for (const Haplotype& haplotype : haplotypes) hashes.push_back(java_hash_code(haplotype.bases));
    written = java_hash_set_order(work.called_haplotypes_in_order, hashes);
  } else if (type == BamWriterType::kAllPossibleHaplotypes) {
    written.resize(haplotype_count);
    std::iota(written.begin(), written.end(), std::size_t{0});
  }
  for (std::size_t i = 0; i < written.size(); ++i) {
    const Haplotype& haplotype = haplotypes[written[i]];
    records.push_back(haplotype_bam_record(
        haplotype, contig.index, work.full_reference.start + haplotype.alignment_start_wrt_ref,
        callable_region, static_cast<int>(i)));
  }
  if (type == BamWriterType::kCalledHaplotypesNoReads) return records;

  // Every read's best haplotype (AlignmentRegion tag), as the realignment chose it.
  std::vector<double> priorities;
  for (const Haplotype& haplotype : haplotypes) {
    priorities.push_back(haplotype_alignment_tiebreaking_priority(haplotype));
  }
  for (std::size_t r = 0; r < read_count; ++r) {
    HaplotypeBamRecord record;
    record.read = work.genotyping_reads[r];
    CallRead& read = record.read;
    clip_indel_quality_tags(read);
    const BestAllele best =
        best_allele_by_priority(std::span<const double>(work.likelihoods.values)
                                    .subspan(r * haplotype_count, haplotype_count),
                                priorities);
    if (best.allele >= 0) {
      set_string_tag(
          read.aux, "AR",
          interval_string(contig.name, haplotypes[static_cast<std::size_t>(best.allele)].location));
    }
    set_string_tag(read.aux, "CR", callable_region);
    if (r < work.supported_alleles.size() && !work.supported_alleles[r].empty()) {
      // Each call's alleles were appended after ", " to the tag as it then was.
      const std::optional<std::string> previous = string_tag(read.aux, "XA");
      set_string_tag(
          read.aux, "XA",
          previous ? *previous + ", " + work.supported_alleles[r] : work.supported_alleles[r]);
    }
    read.aux = as_htsjdk_writes(read.aux);
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace gpp::stages::call
