#include "stages/call/vcf_format.hpp"

#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "stages/call/annotations/java_number_format.hpp"

namespace gpp::stages::call {

namespace {

/// A definition line: "##<kind>=<ID=<id>,<body>>". The text of GATK's VCFStandardHeaderLines and
/// GATKVCFHeaderLines, as GATK 4 HaplotypeCaller writes it (VCF and gVCF mode goldens).
struct Definition {
  std::string_view kind;
  std::string_view id;
  std::string_view body;
};

constexpr std::array kDefinitions = std::to_array<Definition>({
    {"ALT", "NON_REF",
     "Description=\"Represents any possible alternative allele not already represented at this "
     "location by REF and ALT\""},
    {"FILTER", "LowQual", "Description=\"Low quality\""},
    {"FORMAT", "AD",
     "Number=R,Type=Integer,Description=\"Allelic depths for the ref and alt alleles in the order "
     "listed\""},
    {"FORMAT", "DP",
     "Number=1,Type=Integer,Description=\"Approximate read depth (reads with MQ=255 or with bad "
     "mates are filtered)\""},
    {"FORMAT", "GQ", "Number=1,Type=Integer,Description=\"Genotype Quality\""},
    {"FORMAT", "GT", "Number=1,Type=String,Description=\"Genotype\""},
    {"FORMAT", "MIN_DP",
     "Number=1,Type=Integer,Description=\"Minimum DP observed within the GVCF block\""},
    {"FORMAT", "PGT",
     "Number=1,Type=String,Description=\"Physical phasing haplotype information, describing how "
     "the alternate alleles are phased in relation to one another; will always be heterozygous and "
     "is not intended to describe called alleles\""},
    {"FORMAT", "PID",
     "Number=1,Type=String,Description=\"Physical phasing ID information, where each unique ID "
     "within a given sample (but not across samples) connects records within a phasing group\""},
    {"FORMAT", "PL",
     "Number=G,Type=Integer,Description=\"Normalized, Phred-scaled likelihoods for genotypes as "
     "defined in the VCF specification\""},
    {"FORMAT", "PS",
     "Number=1,Type=Integer,Description=\"Phasing set (typically the position of the first variant "
     "in the set)\""},
    {"FORMAT", "SB",
     "Number=4,Type=Integer,Description=\"Per-sample component statistics which comprise the "
     "Fisher's Exact Test to detect strand bias.\""},
    {"INFO", "AC",
     "Number=A,Type=Integer,Description=\"Allele count in genotypes, for each ALT allele, in the "
     "same order as listed\""},
    {"INFO", "AF",
     "Number=A,Type=Float,Description=\"Allele Frequency, for each ALT allele, in the same order "
     "as listed\""},
    {"INFO", "AN",
     "Number=1,Type=Integer,Description=\"Total number of alleles in called genotypes\""},
    {"INFO", "AS_InbreedingCoeff",
     "Number=A,Type=Float,Description=\"Allele-specific inbreeding coefficient as estimated from "
     "the genotype likelihoods per-sample when compared against the Hardy-Weinberg expectation\""},
    {"INFO", "AS_QD",
     "Number=A,Type=Float,Description=\"Allele-specific Variant Confidence/Quality by Depth\""},
    {"INFO", "AS_RAW_BaseQRankSum",
     "Number=1,Type=String,Description=\"raw data for allele specific rank sum test of base "
     "qualities\""},
    {"INFO", "AS_RAW_MQ",
     "Number=1,Type=String,Description=\"Allele-specfic raw data for RMS Mapping Quality\""},
    {"INFO", "AS_RAW_MQRankSum",
     "Number=1,Type=String,Description=\"Allele-specfic raw data for Mapping Quality Rank Sum\""},
    {"INFO", "AS_RAW_ReadPosRankSum",
     "Number=1,Type=String,Description=\"allele specific raw data for rank sum test of read "
     "position bias\""},
    {"INFO", "AS_SB_TABLE",
     "Number=1,Type=String,Description=\"Allele-specific forward/reverse read counts for strand "
     "bias tests. Includes the reference and alleles separated by |.\""},
    {"INFO", "BaseQRankSum",
     "Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum test of Alt Vs. Ref base "
     "qualities\""},
    {"INFO", "DB", "Number=0,Type=Flag,Description=\"dbSNP Membership\""},
    {"INFO", "DP",
     "Number=1,Type=Integer,Description=\"Approximate read depth; some reads may have been "
     "filtered\""},
    {"INFO", "END", "Number=1,Type=Integer,Description=\"Stop position of the interval\""},
    {"INFO", "ExcessHet",
     "Number=1,Type=Float,Description=\"Phred-scaled p-value for exact test of excess "
     "heterozygosity\""},
    {"INFO", "FS",
     "Number=1,Type=Float,Description=\"Phred-scaled p-value using Fisher's exact test to detect "
     "strand bias\""},
    {"INFO", "InbreedingCoeff",
     "Number=1,Type=Float,Description=\"Inbreeding coefficient as estimated from the genotype "
     "likelihoods per-sample when compared against the Hardy-Weinberg expectation\""},
    {"INFO", "MLEAC",
     "Number=A,Type=Integer,Description=\"Maximum likelihood expectation (MLE) for the allele "
     "counts (not necessarily the same as the AC), for each ALT allele, in the same order as "
     "listed\""},
    {"INFO", "MLEAF",
     "Number=A,Type=Float,Description=\"Maximum likelihood expectation (MLE) for the allele "
     "frequency (not necessarily the same as the AF), for each ALT allele, in the same order as "
     "listed\""},
    {"INFO", "MQ", "Number=1,Type=Float,Description=\"RMS Mapping Quality\""},
    {"INFO", "MQRankSum",
     "Number=1,Type=Float,Description=\"Z-score From Wilcoxon rank sum test of Alt vs. Ref read "
     "mapping qualities\""},
    {"INFO", "NDA",
     "Number=1,Type=Integer,Description=\"Number of alternate alleles discovered (but not "
     "necessarily genotyped) at this site\""},
    {"INFO", "QD", "Number=1,Type=Float,Description=\"Variant Confidence/Quality by Depth\""},
    {"INFO", "RAW_MQandDP",
     "Number=2,Type=Integer,Description=\"Raw data (sum of squared MQ and total depth) for "
     "improved RMS Mapping Quality calculation. Incompatible with deprecated RAW_MQ "
     "formulation.\""},
    {"INFO", "ReadPosRankSum",
     "Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum test of Alt vs. Ref read "
     "position bias\""},
    {"INFO", "SOR",
     "Number=1,Type=Float,Description=\"Symmetric Odds Ratio of 2x2 contingency table to detect "
     "strand bias\""},
});

/// VCF mode's definitions, in htsjdk's sorted order (those of an annotation as
/// AnnotationSet::declares).
constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kVcfModeDefinitions = {{
    {"FILTER", "LowQual"},
    {"FORMAT", "AD"},
    {"FORMAT", "DP"},
    {"FORMAT", "GQ"},
    {"FORMAT", "GT"},
    {"FORMAT", "PL"},
    {"FORMAT", "SB"},
    {"INFO", "AC"},
    {"INFO", "AF"},
    {"INFO", "AN"},
    {"INFO", "BaseQRankSum"},
    {"INFO", "DB"},
    {"INFO", "DP"},
    {"INFO", "ExcessHet"},
    {"INFO", "FS"},
    {"INFO", "InbreedingCoeff"},
    {"INFO", "MLEAC"},
    {"INFO", "MLEAF"},
    {"INFO", "MQ"},
    {"INFO", "MQRankSum"},
    {"INFO", "NDA"},
    {"INFO", "QD"},
    {"INFO", "ReadPosRankSum"},
    {"INFO", "SOR"},
}};

}  // namespace

std::string vcf_definition_line(std::string_view kind, std::string_view id) {
  for (const Definition& definition : kDefinitions) {
    if (definition.kind == kind && definition.id == id) {
      std::string line = "##";
      line += kind;
      line += "=<ID=";
      line += id;
      line += ',';
      line += definition.body;
      line += ">\n";
      return line;
    }
  }
  throw Error("internal error: no VCF header definition for " + std::string(kind) + " " +
              std::string(id));
}

std::string vcf_header_with_definitions(std::string_view definitions,
                                        std::span<const VcfContig> contigs,
                                        const std::string& sample,
                                        const std::string& command_line) {
  std::string header = "##fileformat=VCFv4.2\n";
  header += definitions;
  for (const VcfContig& contig : contigs) {
    header += "##contig=<ID=" + contig.name + ",length=" + std::to_string(contig.length) + ">\n";
  }
  header += "##source=gpu-pipeline call (HaplotypeCaller model)\n";
  header += "##gpu-pipelineCommand=" + command_line + "\n";
  header += "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t" + sample + "\n";
  return header;
}

std::string vcf_header(std::span<const VcfContig> contigs, const std::string& sample,
                       const std::string& command_line, const AnnotationSet& annotations) {
  std::string definitions;
  for (const auto& [kind, id] : kVcfModeDefinitions) {
    if (annotations.declares(kind, id)) definitions += vcf_definition_line(kind, id);
  }
  return vcf_header_with_definitions(definitions, contigs, sample, command_line);
}

std::string vcf_qual_text(double qual) {
  std::string text = java_format_fixed(qual, 2);
  if (text.ends_with(".00")) text.resize(text.size() - 3);
  return text;
}

std::string vcf_genotype_text(const Genotype& genotype, bool phased) {
  if (genotype.alleles.empty()) return ".";
  std::string gt;
  for (std::size_t i = 0; i < genotype.alleles.size(); ++i) {
    if (i > 0) gt += phased ? '|' : '/';
    const int allele = genotype.alleles[i];
    gt += allele == kNoCallAlleleIndex ? "." : std::to_string(allele);
  }
  return gt;
}

const std::string& vcf_contig_name(std::span<const VcfContig> contigs, std::int32_t contig) {
  if (contig < 0 || static_cast<std::size_t>(contig) >= contigs.size()) {
    throw Error("internal error: a record on contig index " + std::to_string(contig) +
                ", which the reference does not have");
  }
  return contigs[static_cast<std::size_t>(contig)].name;
}

std::string vcf_record(const VariantCall& call, std::span<const VcfContig> contigs) {
  if (call.alleles.empty()) throw Error("internal error: a call without alleles");
  std::string line = vcf_contig_name(contigs, call.contig);
  line += '\t' + std::to_string(call.position + 1) + '\t' + (call.id.empty() ? "." : call.id) +
          '\t' + call.alleles[0] + '\t';
  if (call.alleles.size() == 1) line += '.';  // a hom-ref site
  for (std::size_t a = 1; a < call.alleles.size(); ++a) {
    if (a > 1) line += ',';
    line += call.alleles[a];
  }
  line += '\t' + vcf_qual_text(call.qual) + (call.low_qual ? "\tLowQual\t" : "\t.\t");
  line += call.info.empty() ? "." : info_field_text(call.info);
  append_sample_fields(line, call.genotype, call.sample, std::nullopt);
  line += '\n';
  return line;
}

void append_sample_fields(std::string& out, const Genotype& genotype,
                          const SampleAnnotations& sample, const std::optional<PhaseInfo>& phase) {
  std::string keys = "GT";
  std::string values = vcf_genotype_text(genotype, phase.has_value());
  const auto add = [&](const char* key, const std::string& value) {
    keys += ':';
    keys += key;
    values += ':';
    values += value;
  };
  if (sample.allele_depths && !sample.allele_depths->empty()) {
    add("AD", join_integers(*sample.allele_depths));
  }
  if (sample.depth) add("DP", std::to_string(*sample.depth));
  if (genotype.gq >= 0) add("GQ", std::to_string(genotype.gq));
  if (phase) {
    add("PGT", phase->pgt);
    add("PID", phase->pid);
  }
  if (!genotype.pls.empty()) add("PL", join_integers(genotype.pls));
  if (phase) add("PS", std::to_string(phase->ps));
  if (sample.strand_bias) add("SB", join_integers(*sample.strand_bias));
  out += '\t';
  out += keys;
  out += '\t';
  out += values;
}

}  // namespace gpp::stages::call
