// The gVCF text HaplotypeCaller writes with -ERC GVCF / BP_RESOLUTION (VCFv4.2, as htsjdk's
// VCFEncoder lays it out): the header with <NON_REF>, the phasing and strand-bias FORMAT fields and
// one ##GVCFBlock line per GQ band, and the three kinds of record: a call (ALT ends in <NON_REF>),
// a hom-ref block (INFO END) and a single reference site (BP_RESOLUTION).
//
// FORMAT lists GT and then the keys the record has, in sorted order (htsjdk
// VariantContext.calcVCFGenotypeKeys); GQ is written capped at 99 (htsjdk
// IntGenotypeFieldAccessors).
//
// @code
//   std::string text = gvcf_header(contigs, "NA12878", command_line, gq_bands(bounds));
//   append_gvcf_call_record(text, call, contigs);
//   // "20\t10000117\t.\tC\tT,<NON_REF>\t926.64\t.\tBaseQRankSum=2.136;...\tGT:AD:DP:GQ:PL:SB\t"
//   // "0/1:36,28,0:64:99:934,0,1248,1042,1332,2374:16,20,19,9\n"
//   append_gvcf_block_record(text, block, contigs);
//   // "20\t10000000\t.\tT\t<NON_REF>\t.\t.\tEND=10000116\tGT:DP:GQ:MIN_DP:PL\t"
//   // "0/0:84:99:64:0,120,1800\n"
//   append_gvcf_site_record(text, site, contigs);
//   // "20\t10000000\t.\tT\t<NON_REF>\t.\t.\t.\tGT:AD:DP:GQ:PL\t0/0:52,0:52:99:0,120,1800\n"
// @endcode
#pragma once

#include <span>
#include <string>

#include "stages/call/gvcf_blocks.hpp"
#include "stages/call/variant_call.hpp"
#include "stages/call/vcf_format.hpp"

namespace gpp::stages::call {

/**
 * @brief The gVCF header: ##fileformat, the definitions in htsjdk's sorted order (##ALT NON_REF,
 *        FILTER LowQual, FORMAT AD DP GQ GT MIN_DP PGT PID PL PS SB, the ##GVCFBlock lines, INFO
 *        BaseQRankSum DP END ExcessHet InbreedingCoeff MLEAC MLEAF MQRankSum RAW_MQandDP
 *        ReadPosRankSum), then the contigs, ##source, the command line and #CHROM as vcf_header.
 *
 * @param bands GVCF mode's bands (GvcfBlockCombiner::bands()). Empty for BP_RESOLUTION: GATK then
 *              has no GVCFWriter, so neither ##GVCFBlock lines nor END and MIN_DP are declared.
 * @param annotations the lines of an annotation only when it has it (AnnotationSet::declares; as
 *              AnnotationSet::for_reference_confidence makes the set, the default one gives the
 *              lines above)
 * @param physical_phasing false: no PGT, PID and PS lines (--do-not-run-physical-phasing, or a
 *              ploidy other than 2)
 */
std::string gvcf_header(std::span<const VcfContig> contigs, const std::string& sample,
                        const std::string& command_line, std::span<const GqBand> bands,
                        const AnnotationSet& annotations =
                            AnnotationSet::haplotype_caller_defaults().for_reference_confidence(),
                        bool physical_phasing = true);

/**
 * @brief GVCFBlockCombiner.rangeToVCFHeaderLine, with its newline.
 * @code
 *   gvcf_block_header_line({10, 20}) ==
 *       "##GVCFBlock10-20=minGQ=10(inclusive),maxGQ=20(exclusive)\n"
 * @endcode
 */
std::string gvcf_block_header_line(const GqBand& band);

/**
 * @brief Appends a call's record: POS 1-based, ID '.', the alleles as given (the last must be
 *        <NON_REF>), QUAL as vcf_qual_text, FILTER '.', INFO from call.info ('.' when empty), and
 *        FORMAT GT:AD:DP:GQ:PL:SB, or GT:AD:DP:GQ:PGT:PID:PL:PS:SB with call.phase (the GT then
 *        joined by '|', alleles in the stored order); a key without a value is left out.
 * @throws gpp::Error when the contig is unknown or the last allele is not <NON_REF>
 */
void append_gvcf_call_record(std::string& out, const VariantCall& call,
                             std::span<const VcfContig> contigs);

/**
 * @brief Appends a hom-ref block's record: REF the first base, ALT <NON_REF>, QUAL and FILTER '.',
 *        INFO END, FORMAT GT:DP:GQ:MIN_DP:PL (GT:DP:GQ for a floor block).
 * @throws gpp::Error when the contig is unknown or the ploidy is below 1
 */
void append_gvcf_block_record(std::string& out, const ReferenceBlock& block,
                              std::span<const VcfContig> contigs);

/**
 * @brief Appends one reference site as BP_RESOLUTION writes it: ALT <NON_REF>, QUAL, FILTER and
 *        INFO '.', FORMAT GT:AD:DP:GQ:PL (ReferenceConfidenceModel's per-base VariantContext).
 * @throws gpp::Error when the contig is unknown or the ploidy is below 1
 */
void append_gvcf_site_record(std::string& out, const ReferenceSite& site,
                             std::span<const VcfContig> contigs);

}  // namespace gpp::stages::call
