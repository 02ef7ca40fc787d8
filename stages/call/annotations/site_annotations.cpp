// GATK VariantAnnotatorEngine.annotateContext with HaplotypeCaller's default annotations (VCF
// mode): genotype annotations DepthPerAlleleBySample and DepthPerSampleHC first, then the INFO
// annotations on the annotated genotypes; see site_annotations.hpp.
#include "stages/call/annotations/site_annotations.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "stages/call/annotations/allele_specific.hpp"
#include "stages/call/annotations/best_allele.hpp"
#include "stages/call/annotations/depth_annotations.hpp"
#include "stages/call/annotations/genotype_counts.hpp"
#include "stages/call/annotations/java_number_format.hpp"
#include "stages/call/annotations/rank_sum.hpp"
#include "stages/call/annotations/strand_bias.hpp"

namespace gpp::stages::call {
namespace {

constexpr int kMappingQualityUnavailable = 255;

void validate(const SiteEvidence& site) {
  const auto fail = [](const std::string& what) { throw Error("variant annotation: " + what); };
  if (site.call_alleles.empty() || site.call_alleles[0] != 0) {
    fail("the call's first allele must be the reference (likelihood column 0)");
  }
  std::vector<bool> seen(site.likelihood_allele_count, false);
  for (std::uint32_t column : site.call_alleles) {
    if (column >= site.likelihood_allele_count || seen[column]) {
      fail("call allele column " + std::to_string(column) + " is out of range or repeated");
    }
    seen[column] = true;
  }
  if (site.log10_likelihoods.size() != site.reads.size() * site.likelihood_allele_count) {
    fail("likelihood matrix has " + std::to_string(site.log10_likelihoods.size()) + " values for " +
         std::to_string(site.reads.size()) + " reads x " +
         std::to_string(site.likelihood_allele_count) + " alleles");
  }
  for (const AnnotationRead& read : site.reads) {
    if (read.sample >= site.samples.size()) fail("read sample index out of range");
  }
  const auto call_allele_count = static_cast<int>(site.call_alleles.size());
  for (const Genotype& g : site.samples) {
    for (int a : g.alleles) {
      if (a != kNoCallAlleleIndex && (a < 0 || a >= call_allele_count))
        fail("GT allele out of range");
    }
  }
  if (!site.mle_allele_counts.empty() &&
      site.mle_allele_counts.size() + 1 != site.call_alleles.size()) {
    fail("MLEAC needs one count per ALT allele");
  }
}

std::string join_doubles(std::span<const double> values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ',';
    text += vcf_format_double(values[i]);
  }
  return text;
}

/// Values of the three rank-sum tests, split by the read's best allele.
struct RankSumValues {
  std::vector<double> ref_base_quality, alt_base_quality;
  std::vector<double> ref_mapping_quality, alt_mapping_quality;
  std::vector<double> ref_read_position, alt_read_position;

  void add(const AnnotationRead& read, bool is_ref) {
    (is_ref ? ref_mapping_quality : alt_mapping_quality).push_back(read.mapping_quality);
    if (read.base_quality)
      (is_ref ? ref_base_quality : alt_base_quality).push_back(*read.base_quality);
    if (read.read_position) {
      (is_ref ? ref_read_position : alt_read_position).push_back(*read.read_position);
    }
  }
};

}  // namespace

SiteAnnotations annotate_site(const SiteEvidence& site) {
  validate(site);
  const auto call_allele_count = static_cast<int>(site.call_alleles.size());
  const int alt_count = call_allele_count - 1;
  const std::size_t sample_count = site.samples.size();

  std::vector<int> call_allele_of_column(site.likelihood_allele_count, -1);
  for (int i = 0; i < call_allele_count; ++i) call_allele_of_column[site.call_alleles[i]] = i;

  // Reads of each sample, in input order (strand tables are filtered per sample).
  std::vector<std::vector<std::size_t>> reads_of_sample(sample_count);
  for (std::size_t r = 0; r < site.reads.size(); ++r) {
    reads_of_sample[site.reads[r].sample].push_back(r);
  }

  std::vector<std::vector<int>> allele_depths(sample_count, std::vector<int>(call_allele_count, 0));
  StrandTableBuilder fisher_table(kFisherStrandMinSampleCount);
  StrandTableBuilder odds_ratio_table(kStrandOddsRatioMinSampleCount);
  std::vector<ContingencyTable> sample_strand_tables(sample_count, ContingencyTable{});
  RankSumValues rank_sums;
  std::uint64_t mq_sum_of_squares = 0, mq_reads = 0;
  std::vector<double> call_likelihoods(call_allele_count);

  const AnnotationSet annotations =
      site.reference_confidence ? site.annotations.for_reference_confidence() : site.annotations;
  const auto annotated = [&annotations](Annotation a) { return annotations.contains(a); };
  // The allele-specific raw data, written in reference-confidence mode.
  std::optional<AlleleSpecificData> allele_specific;
  if (site.reference_confidence && annotations.has_allele_specific()) {
    allele_specific.emplace(site.call_alleles.size(), sample_count);
  }

  for (std::size_t s = 0; s < sample_count; ++s) {
    for (std::size_t r : reads_of_sample[s]) {
      const AnnotationRead& read = site.reads[r];
      const std::span<const double> row = site.read_likelihoods(r);
      // Best allele over every likelihood allele: strand bias and rank sums.
      const BestAllele best = best_allele_breaking_ties(row, 0);
      if (best.informative && call_allele_of_column[best.allele] >= 0) {
        const bool is_ref = best.allele == 0;
        fisher_table.add_read(!is_ref, read.reverse_strand);
        odds_ratio_table.add_read(!is_ref, read.reverse_strand);
        ++sample_strand_tables[s][is_ref ? 0 : 1][read.reverse_strand ? 1 : 0];
        if (allele_specific) {
          allele_specific->add_read(s, static_cast<std::size_t>(call_allele_of_column[best.allele]),
                                    read);
        }
        if (rank_sum_usable_mapping_quality(read.mapping_quality)) rank_sums.add(read, is_ref);
      }
      // Best allele over the call's alleles only: AD and FORMAT DP.
      for (int i = 0; i < call_allele_count; ++i) call_likelihoods[i] = row[site.call_alleles[i]];
      const BestAllele best_called = best_allele_breaking_ties(call_likelihoods, 0);
      if (best_called.informative) ++allele_depths[s][best_called.allele];
      if (read.mapping_quality != kMappingQualityUnavailable) {
        mq_sum_of_squares += std::uint64_t{read.mapping_quality} * read.mapping_quality;
        ++mq_reads;
      }
    }
    fisher_table.end_sample();
    if (allele_specific) allele_specific->end_sample(s);
    odds_ratio_table.end_sample();
  }

  SiteAnnotations out;
  out.samples.resize(sample_count);
  std::vector<QualByDepthGenotype> qd_genotypes(sample_count);
  for (std::size_t s = 0; s < sample_count; ++s) {
    const GenotypeType type = genotype_type(site.samples[s].alleles);
    qd_genotypes[s].type = type;
    qd_genotypes[s].depth_without_allele_depths = static_cast<int>(reads_of_sample[s].size());
    if (!is_called(type)) continue;
    // Genotype annotations first: QD reads the AD they leave (its depth without them otherwise).
    if (annotated(Annotation::kDepthPerAlleleBySample)) {
      out.samples[s].allele_depths = allele_depths[s];
      qd_genotypes[s].allele_depths = *out.samples[s].allele_depths;
    }
    if (annotated(Annotation::kDepthPerSampleHC)) {
      out.samples[s].depth = std::accumulate(allele_depths[s].begin(), allele_depths[s].end(), 0);
    }
    if (annotated(Annotation::kStrandBiasBySample)) {
      const ContingencyTable& t = sample_strand_tables[s];
      out.samples[s].strand_bias = std::array<int, 4>{t[0][0], t[0][1], t[1][0], t[1][1]};
    }
  }

  std::vector<InfoField>& info = out.info;
  const bool has_genotypes = sample_count > 0;
  const bool is_variant = alt_count > 0;
  const bool vcf_mode = !site.reference_confidence;
  if (const auto counts = annotated(Annotation::kChromosomeCounts)
                              ? chromosome_counts(site.samples, alt_count)
                              : std::nullopt) {
    info.push_back({"AN", std::to_string(counts->allele_number)});
    if (is_variant) {
      info.push_back({"AC", join_integers(counts->allele_counts)});
      info.push_back({"AF", join_doubles(counts->allele_frequencies)});
    }
  }
  if (has_genotypes) {
    const auto rank_sum = [&](Annotation a, const std::vector<double>& alt,
                              const std::vector<double>& ref) {
      return annotated(a) ? rank_sum_text(alt, ref) : std::nullopt;
    };
    if (auto z = rank_sum(Annotation::kBaseQualityRankSumTest, rank_sums.alt_base_quality,
                          rank_sums.ref_base_quality)) {
      info.push_back({"BaseQRankSum", *z});
    }
    if (auto z = rank_sum(Annotation::kMappingQualityRankSumTest, rank_sums.alt_mapping_quality,
                          rank_sums.ref_mapping_quality)) {
      info.push_back({"MQRankSum", *z});
    }
    if (auto z = rank_sum(Annotation::kReadPosRankSumTest, rank_sums.alt_read_position,
                          rank_sums.ref_read_position)) {
      info.push_back({"ReadPosRankSum", *z});
    }
    if (auto qd = annotated(Annotation::kQualByDepth)
                      ? qual_by_depth_text(site.log10_p_error, qual_by_depth_depth(qd_genotypes),
                                           site.contig, site.start)
                      : std::nullopt) {
      info.push_back({"QD", *qd});
    }
  }
  if (!site.reads.empty()) {
    if (annotated(Annotation::kCoverage)) {
      info.push_back({"DP", std::to_string(site.reads.size())});
    }
    if (annotated(Annotation::kRMSMappingQuality)) {
      info.push_back(vcf_mode
                         ? InfoField{"MQ", rms_mapping_quality_text(mq_sum_of_squares, mq_reads)}
                         : InfoField{"RAW_MQandDP", std::to_string(mq_sum_of_squares) + "," +
                                                        std::to_string(mq_reads)});
    }
  }
  if (is_variant) {
    if (has_genotypes && annotated(Annotation::kExcessHet)) {
      if (auto excess_het = excess_het_text(site.samples, call_allele_count)) {
        info.push_back({"ExcessHet", *excess_het});
      }
    }
    if (annotated(Annotation::kFisherStrand)) {
      info.push_back({"FS", fisher_strand_text(fisher_table.table())});
    }
    if (annotated(Annotation::kStrandOddsRatio)) {
      info.push_back({"SOR", strand_odds_ratio_text(odds_ratio_table.table())});
    }
  }
  if (!site.mle_allele_counts.empty()) {
    info.push_back({"MLEAC", join_integers(site.mle_allele_counts)});
    info.push_back(
        {"MLEAF", join_doubles(mle_allele_frequencies(site.mle_allele_counts, site.samples))});
  }
  if (annotated(Annotation::kNumberOfDiscoveredAlleles)) {
    info.push_back({"NDA", std::to_string(site.discovered_alternate_alleles)});
  }
  if (allele_specific) allele_specific->append_fields(annotations, info);
  std::sort(info.begin(), info.end(),
            [](const InfoField& a, const InfoField& b) { return a.key < b.key; });
  return out;
}

std::string info_field_text(std::span<const InfoField> info) {
  if (info.empty()) return ".";
  std::string text;
  for (std::size_t i = 0; i < info.size(); ++i) {
    if (i > 0) text += ';';
    text += info[i].key;
    if (info[i].value.empty()) continue;  // a flag, as htsjdk writes one
    text += '=';
    text += info[i].value;
  }
  return text;
}

std::string join_integers(std::span<const int> values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(values[i]);
  }
  return text;
}

}  // namespace gpp::stages::call
