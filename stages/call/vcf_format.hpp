// The VCF text HaplotypeCaller writes in VCF mode (VCFv4.2, as htsjdk's VCFEncoder lays it out):
// the header lines of the default annotations, one ##contig line per reference contig, and one
// record per call with FORMAT GT:AD:DP:GQ:PL. Also the pieces the gVCF writer (gvcf_format.hpp)
// shares: the definition lines, the header frame, QUAL, GT and CHROM text.
//
// @code
//   std::string text = vcf_header({{"20", 63025520}}, "NA12878", "gpu-pipeline call ...");
//   text += vcf_record(call, contig_names);
//   //
//   "20\t10000117\t.\tC\tT\t926.64\t.\tAC=1;AF=0.500;...\tGT:AD:DP:GQ:PL\t0/1:36,28:64:99:934,0,1248\n"
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/annotations/annotation_set.hpp"
#include "stages/call/variant_call.hpp"

namespace gpp::stages::call {

struct VcfContig {
  std::string name;
  std::int64_t length = 0;
};

/// The header: fileformat, FILTER, FORMAT and INFO definitions (those of `annotations` among
/// them, see AnnotationSet::declares), ##source and the command line, the contigs, and the #CHROM
/// line with the one sample.
std::string vcf_header(
    std::span<const VcfContig> contigs, const std::string& sample, const std::string& command_line,
    const AnnotationSet& annotations = AnnotationSet::haplotype_caller_defaults());

/// One record line (with its newline): POS 1-based, ID the call's ('.' when empty), ALT '.' for the
/// reference allele alone, QUAL as vcf_qual_text, FILTER '.' or LowQual, INFO from call.info, and
/// the sample as append_sample_fields writes it (GT:AD:DP:GQ:PL with the default annotations).
std::string vcf_record(const VariantCall& call, std::span<const VcfContig> contigs);

/**
 * @brief A tab, the FORMAT keys, a tab and the sample's values, as htsjdk's VCFEncoder writes
 *        them (calcVCFGenotypeKeys): GT first, then the keys the genotype has, sorted (AD, DP, GQ,
 *        PGT, PID, PL, PS, SB); with `phase` the GT is phased and PGT, PID, PS are written.
 */
void append_sample_fields(std::string& out, const Genotype& genotype,
                          const SampleAnnotations& sample, const std::optional<PhaseInfo>& phase);

/**
 * @brief One ##ALT / ##FILTER / ##FORMAT / ##INFO definition line as GATK writes it (GATK's
 *        VCFStandardHeaderLines and GATKVCFHeaderLines), with its newline.
 *
 * @param kind "ALT", "FILTER", "FORMAT" or "INFO"
 * @param id   the field's ID, e.g. "AD", "MIN_DP", "RAW_MQandDP", "NON_REF", "LowQual"
 * @throws gpp::Error for a kind and ID this writer does not define
 *
 * @code
 *   vcf_definition_line("FORMAT", "GQ") ==
 *       "##FORMAT=<ID=GQ,Number=1,Type=Integer,Description=\"Genotype Quality\">\n"
 * @endcode
 */
std::string vcf_definition_line(std::string_view kind, std::string_view id);

/**
 * @brief The header around `definitions`: ##fileformat=VCFv4.2, the definition lines as given,
 *        one ##contig line per contig, ##source, the command line and the #CHROM line.
 *
 * @param definitions whole lines, each ending in '\n', already in htsjdk's sorted order
 */
std::string vcf_header_with_definitions(std::string_view definitions,
                                        std::span<const VcfContig> contigs,
                                        const std::string& sample, const std::string& command_line);

/**
 * @brief QUAL as htsjdk VCFEncoder.formatQualValue writes it: Java "%.2f", then a trailing ".00"
 *        dropped.
 *
 * @code
 *   vcf_qual_text(926.64) == "926.64";  vcf_qual_text(0.0) == "0";  vcf_qual_text(30.001) == "30"
 * @endcode
 */
std::string vcf_qual_text(double qual);

/**
 * @brief The GT field as htsjdk VCFEncoder.writeGtField writes it: the allele indices in the
 *        order stored, joined by '/' ('|' when phased); '.' for a no-call allele; "." when the
 *        genotype has no alleles.
 *
 * @code
 *   vcf_genotype_text({.alleles = {0, 1}}) == "0/1";  vcf_genotype_text({.alleles = {1, 0}}, true)
 *   == "1|0"
 * @endcode
 */
std::string vcf_genotype_text(const Genotype& genotype, bool phased = false);

/// The CHROM text of contig index `contig`. @throws gpp::Error when it is not in `contigs`.
const std::string& vcf_contig_name(std::span<const VcfContig> contigs, std::int32_t contig);

}  // namespace gpp::stages::call
