// The records of a haplotype BAM (GATK's -bamout, Parabricks' --htvc-bam-output) for one region,
// as HaplotypeCallerEngine.callRegion hands them to
// HaplotypeBAMWriter.writeReadsAlignedToHaplotypes after genotyping:
//  - CALLED_HAPLOTYPES (the default): nothing for a region without a call; otherwise the called
//    haplotypes (the haplotypes carrying an allele of a call, the reference allele included), in
//    the iteration order of the Java HashSet GATK copies them into, then the region's genotyping
//    reads realigned to their best haplotypes; CALLED_HAPLOTYPES_NO_READS the haplotypes alone;
//    ALL_POSSIBLE_HAPLOTYPES every genotyping haplotype in order and the reads, call or not;
//    NO_HAPLOTYPES the reads alone.
//  - A haplotype is a record named when written (HC_<n>_<index>: n counts every haplotype
//    written, from 1; index within the region), its bases, qualities 33 (the byte '!'), its CIGAR
//    at the padded reference start plus its alignment start, flag 16, MAPQ 60, tags HC:i (the
//    bases' Java hashCode), RG:Z:ArtificialHaplotypeRG and CR:Z (the region's calling span, 1-based
//    contig:start-end).
//  - A read is the realigned read (read_realignment.hpp; its HC:i the best haplotype's hashCode
//    when it was realigned and is informative) with AR:Z (its best haplotype's span), CR:Z and,
//    per call it is informative for, XA:Z "contig:position=allele index" (joined with ", " after
//    any XA it had); a read clipped with a BI or BD tag gets both, clipped (ClippingOp). The tags
//    are written as htsjdk writes them (bam_tags.hpp): sorted by binary tag, integers in the
//    smallest type.
// Java's HashSet order follows the hashes (the copy's table, sized for its count, orders them by
// bucket; within a bucket by first insertion); a bucket of eight or more, where Java would make a
// tree, is not reproduced.
//
// @code
//   std::vector<HaplotypeBamRecord> records = haplotype_bam_records(work, contig, type);
//   // records[0].haplotype_index == 0: name it HC_<n>_0 when writing
// @endcode
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stages/call/bam_tags.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/caller_options.hpp"
#include "stages/call/contig_interval.hpp"
#include "stages/call/haplotype.hpp"

namespace gpp::stages::call {

struct RegionWork;
struct ContigReference;

/// HaplotypeBAMWriter.DEFAULT_HAPLOTYPE_READ_GROUP_ID (its @RG has SM:HC, CN:BI).
inline constexpr std::string_view kHaplotypeReadGroup = "ArtificialHaplotypeRG";

/// One record of the haplotype BAM.
struct HaplotypeBamRecord {
  CallRead read;             ///< every field; `name` empty for a haplotype (named when written)
  int haplotype_index = -1;  ///< >= 0: a haplotype, its index among the region's written ones
};

/**
 * @brief HaplotypeBAMWriter.writeHaplotype: `haplotype` as a record at `start` (0-based) on
 *        `contig`, qualities 33 (the byte '!'), flag 16, MAPQ 60, tags HC:i, RG:Z and, when
 *        `callable_region` is not empty, CR:Z; named when written.
 */
HaplotypeBamRecord haplotype_bam_record(const Haplotype& haplotype, std::int32_t contig,
                                        std::int64_t start, std::string_view callable_region,
                                        int index);

/// GATK's SimpleInterval.toString of `interval` on `contig`: "contig:start-end", 1-based.
std::string interval_string(std::string_view contig, const ContigInterval& interval);

/**
 * @brief The region's haplotype BAM records (see above), after genotype_region; empty when the
 *        region has no genotyping step or writes nothing.
 * @throws gpp::Error when the region's likelihoods do not match its reads and haplotypes
 */
std::vector<HaplotypeBamRecord> haplotype_bam_records(const RegionWork& work,
                                                      const ContigReference& contig,
                                                      BamWriterType type);

}  // namespace gpp::stages::call
