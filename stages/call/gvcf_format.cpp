#include "stages/call/gvcf_format.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "stages/call/genotype_assignment.hpp"

namespace gpp::stages::call {

namespace {

/// HaplotypeCallerEngine.makeVCFHeader in reference-confidence mode with the default annotations
/// and physical phasing, plus ReferenceConfidenceModel's ##ALT line.
constexpr std::pair<std::string_view, std::string_view> kGvcfDefinitions[] = {
    {"ALT", "NON_REF"},
    {"FILTER", "LowQual"},
    {"FORMAT", "AD"},
    {"FORMAT", "DP"},
    {"FORMAT", "GQ"},
    {"FORMAT", "GT"},
    {"FORMAT", "PGT"},
    {"FORMAT", "PID"},
    {"FORMAT", "PL"},
    {"FORMAT", "PS"},
    {"FORMAT", "SB"},
    {"INFO", "BaseQRankSum"},
    {"INFO", "DB"},
    {"INFO", "DP"},
    {"INFO", "ExcessHet"},
    {"INFO", "InbreedingCoeff"},
    {"INFO", "MLEAC"},
    {"INFO", "MLEAF"},
    {"INFO", "MQRankSum"},
    {"INFO", "NDA"},
    {"INFO", "RAW_MQandDP"},
    {"INFO", "ReadPosRankSum"},
    // AS_StandardAnnotation's lines (AnnotationSet::declares keeps them only when asked for).
    {"INFO", "AS_InbreedingCoeff"},
    {"INFO", "AS_QD"},
    {"INFO", "AS_RAW_BaseQRankSum"},
    {"INFO", "AS_RAW_MQ"},
    {"INFO", "AS_RAW_MQRankSum"},
    {"INFO", "AS_RAW_ReadPosRankSum"},
    {"INFO", "AS_SB_TABLE"},
};

void append_integer(std::string& out, std::int64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);
  out.append(digits, result.ptr);
}

/// htsjdk writes an int array comma-joined.
void append_integers(std::string& out, std::span<const int> values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    append_integer(out, values[i]);
  }
}

/// CHROM, POS (1-based), ID ('.' when empty) and REF, each followed by a tab.
void append_site_start(std::string& out, std::span<const VcfContig> contigs, std::int32_t contig,
                       std::int64_t position, std::string_view ref, std::string_view id = {}) {
  out += vcf_contig_name(contigs, contig);
  out += '\t';
  append_integer(out, position + 1);
  out += '\t';
  out += id.empty() ? std::string_view(".") : id;
  out += '\t';
  out += ref;
  out += '\t';
}

/// GT of ploidy copies of the reference allele (unphased).
void append_hom_ref_genotype(std::string& out, int ploidy) {
  if (ploidy < 1)
    throw Error("internal error: a hom-ref record of ploidy " + std::to_string(ploidy));
  out += '0';
  for (int i = 1; i < ploidy; ++i) out += "/0";
}

int written_gq(int gq) { return std::min(gq, kMaxGenotypeQuality); }

}  // namespace

std::string gvcf_block_header_line(const GqBand& band) {
  const std::string lower = std::to_string(band.lower);
  const std::string upper = std::to_string(band.upper);
  return "##GVCFBlock" + lower + '-' + upper + "=minGQ=" + lower + "(inclusive),maxGQ=" + upper +
         "(exclusive)\n";
}

std::string gvcf_header(std::span<const VcfContig> contigs, const std::string& sample,
                        const std::string& command_line, std::span<const GqBand> bands,
                        const AnnotationSet& annotations, bool physical_phasing) {
  std::vector<std::string> lines;
  for (const auto& [kind, id] : kGvcfDefinitions) {
    if (!physical_phasing && kind == "FORMAT" && (id == "PGT" || id == "PID" || id == "PS")) {
      continue;
    }
    if (annotations.declares(kind, id)) lines.push_back(vcf_definition_line(kind, id));
  }
  if (!bands.empty()) {
    // GVCFBlockCombiner.addRangesToHeader: END, MIN_DP and one line per band.
    lines.push_back(vcf_definition_line("INFO", "END"));
    lines.push_back(vcf_definition_line("FORMAT", "MIN_DP"));
    for (const GqBand& band : bands) lines.push_back(gvcf_block_header_line(band));
  }
  // htsjdk VCFHeader.getMetaDataInSortedOrder: the lines sorted by their text.
  std::sort(lines.begin(), lines.end());
  std::string definitions;
  for (const std::string& line : lines) definitions += line;
  return vcf_header_with_definitions(definitions, contigs, sample, command_line);
}

void append_gvcf_call_record(std::string& out, const VariantCall& call,
                             std::span<const VcfContig> contigs) {
  if (call.alleles.size() < 2 || call.alleles.back() != kNonRefAllele) {
    throw Error("internal error: a gVCF call at position " + std::to_string(call.position + 1) +
                " without the " + kNonRefAllele + " allele");
  }
  append_site_start(out, contigs, call.contig, call.position, call.alleles[0], call.id);
  for (std::size_t a = 1; a < call.alleles.size(); ++a) {
    if (a > 1) out += ',';
    out += call.alleles[a];
  }
  out += '\t';
  out += vcf_qual_text(call.qual);
  out += "\t.\t";
  out += info_field_text(call.info);

  append_sample_fields(out, call.genotype, call.sample, call.phase);
  out += '\n';
}

void append_gvcf_block_record(std::string& out, const ReferenceBlock& block,
                              std::span<const VcfContig> contigs) {
  append_site_start(out, contigs, block.contig, block.start, std::string_view(&block.ref_base, 1));
  out += kNonRefAllele;
  out += "\t.\t.\tEND=";
  append_integer(out, block.end);
  out += block.min_depth ? (block.pls.empty() ? "\tGT:DP:GQ:MIN_DP\t" : "\tGT:DP:GQ:MIN_DP:PL\t")
                         : (block.pls.empty() ? "\tGT:DP:GQ\t" : "\tGT:DP:GQ:PL\t");
  append_hom_ref_genotype(out, block.ploidy);
  out += ':';
  append_integer(out, block.depth);
  out += ':';
  append_integer(out, written_gq(block.gq));
  if (block.min_depth) {
    out += ':';
    append_integer(out, *block.min_depth);
  }
  if (!block.pls.empty()) {
    out += ':';
    append_integers(out, block.pls);
  }
  out += '\n';
}

void append_gvcf_site_record(std::string& out, const ReferenceSite& site,
                             std::span<const VcfContig> contigs) {
  append_site_start(out, contigs, site.contig, site.position, std::string_view(&site.ref_base, 1));
  out += kNonRefAllele;
  out += site.pls.empty() ? "\t.\t.\t.\tGT:AD:DP:GQ\t" : "\t.\t.\t.\tGT:AD:DP:GQ:PL\t";
  append_hom_ref_genotype(out, site.ploidy);
  out += ':';
  append_integers(out, site.allele_depths);
  out += ':';
  append_integer(out, site.depth);
  out += ':';
  append_integer(out, written_gq(site.gq));
  if (!site.pls.empty()) {
    out += ':';
    append_integers(out, site.pls);
  }
  out += '\n';
}

}  // namespace gpp::stages::call
