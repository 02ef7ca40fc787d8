// finish_likelihoods and genotype_region: ReadLikelihoodCalculationEngine's post-processing and
// HaplotypeCallerGenotypingEngine.assignGenotypeLikelihoods (one sample): events of
// the trimmed haplotypes, merged alleles per event start inside the calling window, read
// likelihoods marginalised to the alleles (reads overlapping the event +/- 2), genotype
// likelihoods, GenotypingEngine.calculateGenotypes, the annotations, and
// GATKVariantContextUtils.reverseTrimAlleles when the call dropped alleles. In reference-confidence
// mode each site also gets the <NON_REF> allele (its read likelihoods from the others) and the
// gVCF annotation set, and the haplotypes of the called alleles are recorded (calledHaplotypes).
#include <algorithm>
#include <optional>

#include "stages/call/allele_marginalization.hpp"
#include "stages/call/alleles_at_locus.hpp"
#include "stages/call/annotations/best_allele.hpp"
#include "stages/call/annotations/rank_sum.hpp"
#include "stages/call/contamination_downsampling.hpp"
#include "stages/call/event_map.hpp"
#include "stages/call/genotype_likelihoods.hpp"
#include "stages/call/given_alleles.hpp"
#include "stages/call/physical_phasing.hpp"
#include "stages/call/region_work.hpp"

namespace gpp::stages::call {

namespace {

/// GATKVariantContextUtils.reverseTrimAlleles: drops the bases all alleles share at their end,
/// keeping at least one base in each (the symbolic '*' and <NON_REF> take no part).
bool is_symbolic(const std::string& allele) {
  return allele == kSpanningDeletion || allele == kNonRefAllele;
}

/// Returns the bases dropped.
std::string reverse_trim_alleles(std::vector<std::string>& alleles) {
  std::size_t common = 0;
  for (;; ++common) {
    bool shared = true;
    char base = 0;
    for (const std::string& allele : alleles) {
      if (is_symbolic(allele)) continue;
      if (allele.size() <= common + 1) {
        shared = false;
        break;
      }
      const char b = allele[allele.size() - 1 - common];
      if (base == 0) base = b;
      if (b != base) {
        shared = false;
        break;
      }
    }
    if (!shared) break;
  }
  if (common == 0) return {};
  std::string dropped;
  for (std::string& allele : alleles) {
    if (is_symbolic(allele)) continue;
    const auto kept = static_cast<std::ptrdiff_t>(allele.size() - common);
    dropped.assign(allele.begin() + kept, allele.end());
    allele.erase(allele.begin() + kept, allele.end());
  }
  return dropped;
}

AnnotationRead annotation_read(const CallRead& read, std::int64_t start, std::int64_t stop) {
  const RankSumReadValues values = rank_sum_read_values(read, start, stop);
  return {0, read.is_reverse_strand(), read.mapping_quality, values.base_quality,
          values.read_position};
}

ReadSpan span_of(const CallRead& read) { return {read.start, read.end()}; }

}  // namespace

void finish_likelihoods(RegionWork& work, const HaplotypeCallerOptions& options) {
  std::vector<std::size_t> lengths;
  lengths.reserve(work.hmm_reads.size());
  for (const PairHmmReadInputs& read : work.hmm_reads) lengths.push_back(read.bases.size());
  // The dynamic threshold reads the qualities the PairHMM saw (GATK's HMM_BASE_QUALITIES_TAG).
  std::vector<std::vector<std::uint8_t>> hmm_base_quals;
  if (options.likelihoods.dynamic_read_disqualification) {
    hmm_base_quals.reserve(work.hmm_reads.size());
    for (const PairHmmReadInputs& read : work.hmm_reads) hmm_base_quals.push_back(read.base_quals);
  }
  const std::vector<std::size_t> removed = postprocess_read_likelihoods(
      work.likelihoods, lengths, hmm_base_quals,
      static_cast<std::ptrdiff_t>(work.reference_haplotype), options.likelihoods);
  if (removed.empty()) return;
  std::vector<CallRead> kept;
  kept.reserve(work.genotyping_reads.size() - removed.size());
  std::size_t next = 0;
  for (std::size_t r = 0; r < work.genotyping_reads.size(); ++r) {
    if (next < removed.size() && removed[next] == r) {
      ++next;
    } else {
      kept.push_back(std::move(work.genotyping_reads[r]));
    }
  }
  work.genotyping_reads = std::move(kept);
}

bool UpstreamDeletions::covers(std::int64_t position) {
  return std::any_of(spans.begin(), spans.end(), [&](const ContigInterval& span) {
    return span.first < position && position <= span.last;
  });
}

void UpstreamDeletions::record(const VariantCall& call) {
  std::erase_if(spans, [&](const ContigInterval& span) { return span.last < call.position; });
  for (std::size_t a = 1; a < call.alleles.size(); ++a) {
    const auto deletion = static_cast<std::int64_t>(call.alleles[0].size()) -
                          static_cast<std::int64_t>(call.alleles[a].size());
    if (deletion > 0 && call.alleles[a] != kSpanningDeletion) {
      spans.push_back({call.position, call.position + deletion});
    }
  }
}

namespace {

/// -bamout: the reads a call informs (annotateReadLikelihoodsWithSupportedAlleles: each read's
/// best allele among the call's, when informative, as "contig:position=index").
void record_supported_alleles(std::span<const int> call_alleles, const ReadAlleleLikelihoods& reads,
                              std::string_view contig_name, std::int64_t start, RegionWork& work) {
  const std::string site = std::string(contig_name) + ":" + std::to_string(start + 1) + "=";
  std::vector<double> values(call_alleles.size());
  for (std::size_t r = 0; r < reads.reads.size(); ++r) {
    for (std::size_t a = 0; a < call_alleles.size(); ++a) {
      values[a] = reads.at(r, static_cast<std::size_t>(call_alleles[a]));
    }
    const BestAllele best = best_allele_breaking_ties(values, 0);
    if (!best.informative) continue;
    std::string& tag = work.supported_alleles[reads.reads[r]];
    if (!tag.empty()) tag += ", ";
    tag += site + std::to_string(best.allele);
  }
}

}  // namespace

void genotype_region(RegionWork& work, const ContigReference& contig,
                     const HaplotypeCallerOptions& options, UpstreamDeletions& deletions) {
  const std::size_t haplotype_count = work.genotyping_haplotypes.size();
  const std::size_t read_count = work.genotyping_reads.size();
  std::vector<EventMap> event_maps;
  std::vector<double> scores;
  for (const Haplotype& haplotype : work.genotyping_haplotypes) {
    event_maps.push_back(
        event_map_from_haplotype(haplotype, work.full_reference, options.max_mnp_distance));
    scores.push_back(haplotype.score);
  }
  std::vector<ReadSpan> read_spans;
  read_spans.reserve(read_count);
  for (const CallRead& read : work.genotyping_reads) read_spans.push_back(span_of(read));

  const bool reference_confidence = options.emits_reference_confidence();
  work.called_haplotypes.clear();
  const bool for_bam = options.bam_output.enabled;
  work.called_haplotypes_in_order.clear();
  work.supported_alleles.assign(for_bam ? read_count : 0, std::string());
  std::vector<LocusAlleles> loci =
      alleles_in_calling_window(event_maps, work.full_reference, work.window.variant_span);
  for (LocusAlleles& locus : loci) {
    remove_alleles_if_too_many_genotypes(locus, scores, work.ploidy, options.max_genotype_count);
    const std::int64_t start = locus.merged.start, stop = locus.merged.stop;
    ReadAlleleLikelihoods reads =
        marginalize_informative_reads(work.likelihoods.values, read_count, haplotype_count,
                                      locus.haplotypes, read_spans, start, stop, contig.length());
    // contaminationDownsampling: the genotypes see the reads it leaves; the annotations all of
    // them (GATK marginalises them again), unless --use-filtered-read-map-for-annotations.
    std::optional<ReadAlleleLikelihoods> left;
    if (options.contamination_fraction > 0.0) {
      const std::uint64_t seed = locus_seed(contig.index, start);
      if (options.annotate_contamination_filtered_reads) {
        remove_contamination(reads, options.contamination_fraction, seed);
      } else {
        left = reads;
        remove_contamination(*left, options.contamination_fraction, seed);
      }
    }
    std::vector<std::string> alleles = locus.alleles;
    std::size_t merged_allele_count = locus.merged_allele_count;
    if (reference_confidence) {
      // ReferenceConfidenceUtils.addNonRefSymbolicAllele and addNonReferenceAllele.
      add_non_ref_allele(reads);
      if (left) add_non_ref_allele(*left);
      alleles.emplace_back(kNonRefAllele);
      ++merged_allele_count;
    }
    const ReadAlleleLikelihoods& genotyped = left ? *left : reads;
    const std::size_t allele_count = alleles.size();
    std::vector<double> allele_major(allele_count * genotyped.reads.size());
    for (std::size_t r = 0; r < genotyped.reads.size(); ++r) {
      for (std::size_t a = 0; a < allele_count; ++a) {
        allele_major[a * genotyped.reads.size() + r] = genotyped.at(r, a);
      }
    }
    const SampleGenotypeLikelihoods sample{
        work.ploidy,
        log10_genotype_likelihoods(work.ploidy, {allele_major, static_cast<int>(allele_count),
                                                 static_cast<int>(genotyped.reads.size())})};
    std::vector<AlleleDescription> descriptions;
    for (const std::string& allele : alleles) {
      const bool non_ref = allele == kNonRefAllele;
      descriptions.push_back(
          {non_ref ? 0 : static_cast<int>(allele.size()), allele == kSpanningDeletion, non_ref});
    }
    const bool covered = deletions.covers(start);
    if (!covered && std::find(alleles.begin(), alleles.end(), kSpanningDeletion) != alleles.end()) {
      work.uncovered_spanning_deletion_sites.push_back(start);
    }
    // allelesConsistentWithGivenAlleles over the region's given events (<NON_REF> never is).
    const std::vector<int> forced = forced_alleles(alleles, work.given_events);
    const SiteCall call =
        calculate_genotypes({&sample, 1}, descriptions, covered, options.genotyping, forced);
    if (!call.emitted) continue;
    if (reference_confidence && call.alleles.size() != allele_count) {
      // prepareReadAlleleLikelihoodsForAnnotation: <NON_REF> over the call's alleles only.
      const std::vector<std::size_t> kept(call.alleles.begin(), call.alleles.end());
      update_non_ref_likelihoods(reads, kept);
    }
    add_called_haplotypes(locus.haplotypes, call.alleles, work.called_haplotypes,
                          for_bam ? &work.called_haplotypes_in_order : nullptr);
    if (for_bam) record_supported_alleles(call.alleles, reads, contig.name, start, work);

    SiteEvidence evidence;
    evidence.contig = contig.index;
    evidence.start = start;
    evidence.likelihood_allele_count = static_cast<std::uint32_t>(allele_count);
    for (int allele : call.alleles)
      evidence.call_alleles.push_back(static_cast<std::uint32_t>(allele));
    for (std::size_t r = 0; r < reads.reads.size(); ++r) {
      evidence.reads.push_back(annotation_read(work.genotyping_reads[reads.reads[r]], start, stop));
      for (std::size_t a = 0; a < allele_count; ++a)
        evidence.log10_likelihoods.push_back(reads.at(r, a));
    }
    const ContigInterval overlap = informative_read_interval(
        start, stop, kAlleleInformativeReadsOverlapMargin, contig.length());
    for (const CallRead& read : work.filtered_reads) {
      if (!read_overlaps(overlap, span_of(read))) continue;
      evidence.reads.push_back(annotation_read(read, start, stop));
      evidence.log10_likelihoods.insert(evidence.log10_likelihoods.end(), allele_count, 0.0);
    }
    evidence.samples = call.genotypes;
    evidence.log10_p_error = call.qual / -10.0;
    evidence.mle_allele_counts = call.mle_allele_counts;
    evidence.discovered_alternate_alleles = static_cast<int>(allele_count) - 1;
    evidence.reference_confidence = reference_confidence;
    evidence.annotations = options.annotations;
    SiteAnnotations annotations = annotate_site(evidence);

    VariantCall out;
    out.contig = contig.index;
    out.position = start;
    for (int allele : call.alleles)
      out.alleles.push_back(alleles[static_cast<std::size_t>(allele)]);
    if (out.alleles.size() != merged_allele_count) {
      out.trimmed_suffix = reverse_trim_alleles(out.alleles);
    }
    out.qual = call.qual;
    out.low_qual = call.low_qual;
    out.info = std::move(annotations.info);
    out.genotype = call.genotypes.front();
    out.sample = annotations.samples.front();
    deletions.record(out);
    work.calls.push_back(std::move(out));
  }
  if (reference_confidence && work.ploidy == 2 && options.physical_phasing) {
    // HaplotypeCallerGenotypingEngine: physical phasing in reference-confidence mode, diploid.
    phase_calls(work.calls,
                haplotypes_with_site_specific_alt(work.calls, event_maps, work.called_haplotypes));
  }
}

}  // namespace gpp::stages::call
