#include "stages/call/vcf_format.hpp"

#include "core/error.hpp"
#include "stages/call/annotations/java_number_format.hpp"

namespace gpp::stages::call {

namespace {

constexpr const char* kHeaderDefinitions =
    "##FILTER=<ID=LowQual,Description=\"Low quality\">\n"
    "##FORMAT=<ID=AD,Number=R,Type=Integer,Description=\"Allelic depths for the ref and alt "
    "alleles in the order listed\">\n"
    "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Approximate read depth (reads with MQ=255 "
    "or with bad mates are filtered)\">\n"
    "##FORMAT=<ID=GQ,Number=1,Type=Integer,Description=\"Genotype Quality\">\n"
    "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
    "##FORMAT=<ID=PL,Number=G,Type=Integer,Description=\"Normalized, Phred-scaled likelihoods for "
    "genotypes as defined in the VCF specification\">\n"
    "##INFO=<ID=AC,Number=A,Type=Integer,Description=\"Allele count in genotypes, for each ALT "
    "allele, in the same order as listed\">\n"
    "##INFO=<ID=AF,Number=A,Type=Float,Description=\"Allele Frequency, for each ALT allele, in the "
    "same order as listed\">\n"
    "##INFO=<ID=AN,Number=1,Type=Integer,Description=\"Total number of alleles in called "
    "genotypes\">\n"
    "##INFO=<ID=BaseQRankSum,Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum test "
    "of Alt Vs. Ref base qualities\">\n"
    "##INFO=<ID=DP,Number=1,Type=Integer,Description=\"Approximate read depth; some reads may have "
    "been filtered\">\n"
    "##INFO=<ID=ExcessHet,Number=1,Type=Float,Description=\"Phred-scaled p-value for exact test of "
    "excess heterozygosity\">\n"
    "##INFO=<ID=FS,Number=1,Type=Float,Description=\"Phred-scaled p-value using Fisher's exact "
    "test to detect strand bias\">\n"
    "##INFO=<ID=MLEAC,Number=A,Type=Integer,Description=\"Maximum likelihood expectation (MLE) for "
    "the allele counts (not necessarily the same as the AC), for each ALT allele, in the same "
    "order "
    "as listed\">\n"
    "##INFO=<ID=MLEAF,Number=A,Type=Float,Description=\"Maximum likelihood expectation (MLE) for "
    "the allele frequency (not necessarily the same as the AF), for each ALT allele, in the same "
    "order as listed\">\n"
    "##INFO=<ID=MQ,Number=1,Type=Float,Description=\"RMS Mapping Quality\">\n"
    "##INFO=<ID=MQRankSum,Number=1,Type=Float,Description=\"Z-score From Wilcoxon rank sum test of "
    "Alt vs. Ref read mapping qualities\">\n"
    "##INFO=<ID=QD,Number=1,Type=Float,Description=\"Variant Confidence/Quality by Depth\">\n"
    "##INFO=<ID=ReadPosRankSum,Number=1,Type=Float,Description=\"Z-score from Wilcoxon rank sum "
    "test of Alt vs. Ref read position bias\">\n"
    "##INFO=<ID=SOR,Number=1,Type=Float,Description=\"Symmetric Odds Ratio of 2x2 contingency "
    "table to detect strand bias\">\n";

void append_integers(std::string& out, const std::vector<int>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
}

std::string genotype_text(const Genotype& genotype) {
  if (genotype.alleles.empty()) return ".";
  std::string gt;
  for (std::size_t i = 0; i < genotype.alleles.size(); ++i) {
    if (i > 0) gt += '/';
    const int allele = genotype.alleles[i];
    gt += allele == kNoCallAlleleIndex ? "." : std::to_string(allele);
  }
  return gt;
}

}  // namespace

std::string vcf_header(std::span<const VcfContig> contigs, const std::string& sample,
                       const std::string& command_line) {
  std::string header = "##fileformat=VCFv4.2\n";
  header += kHeaderDefinitions;
  for (const VcfContig& contig : contigs) {
    header += "##contig=<ID=" + contig.name + ",length=" + std::to_string(contig.length) + ">\n";
  }
  header += "##source=gpu-pipeline call (HaplotypeCaller model)\n";
  header += "##gpu-pipelineCommand=" + command_line + "\n";
  header += "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t" + sample + "\n";
  return header;
}

std::string vcf_record(const VariantCall& call, std::span<const VcfContig> contigs) {
  if (call.contig < 0 || static_cast<std::size_t>(call.contig) >= contigs.size() ||
      call.alleles.size() < 2) {
    throw Error("internal error: a call without a contig or an alternate allele");
  }
  std::string line = contigs[static_cast<std::size_t>(call.contig)].name;
  line += '\t' + std::to_string(call.position + 1) + "\t.\t" + call.alleles[0] + '\t';
  for (std::size_t a = 1; a < call.alleles.size(); ++a) {
    if (a > 1) line += ',';
    line += call.alleles[a];
  }
  line += '\t' + java_format_fixed(call.qual, 2) + "\t.\t";
  line += call.info.empty() ? "." : info_field_text(call.info);
  line += "\tGT:AD:DP:GQ:PL\t" + genotype_text(call.genotype) + ':';
  if (call.sample.allele_depths) {
    append_integers(line, *call.sample.allele_depths);
  } else {
    line += '.';
  }
  line += ':' + (call.sample.depth ? std::to_string(*call.sample.depth) : std::string("."));
  line += ':' + (call.genotype.gq >= 0 ? std::to_string(call.genotype.gq) : std::string("."));
  line += ':';
  if (call.genotype.pls.empty()) {
    line += '.';
  } else {
    append_integers(line, call.genotype.pls);
  }
  line += '\n';
  return line;
}

}  // namespace gpp::stages::call
