// One aligned read as the variant caller sees it: the fields of a BAM record HaplotypeCaller uses
// (GATK GATKRead), copied out of the read columns for the reads of the regions in flight.
//
// Coordinates are 0-based on the contig; `start` is the first reference base the alignment covers
// (BAM POS), so soft clips lie before it. Qualities are Phred values (not +33 characters).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/cigar.hpp"

namespace gpp::stages::call {

struct CallRead {
  std::string name;
  std::int32_t contig = -1;                   ///< reference index (BAM refID)
  std::int64_t start = 0;                     ///< 0-based alignment start (first M/D/N/=/X base)
  std::vector<std::uint32_t> cigar;           ///< BAM-packed, gpp::cigar_element
  std::string bases;                          ///< A C G T N (upper case)
  std::vector<std::uint8_t> quals;            ///< base qualities, Phred
  std::vector<std::uint8_t> insertion_quals;  ///< BI tag decoded (empty: GATK default 45)
  std::vector<std::uint8_t> deletion_quals;   ///< BD tag decoded (empty: GATK default 45)
  std::uint16_t flag = 0;                     ///< SAM FLAG
  std::uint8_t mapping_quality = 0;
  std::int32_t mate_contig = -1;
  std::int64_t mate_start = -1;  ///< 0-based
  std::int64_t insert_size = 0;  ///< TLEN
  std::uint32_t read_group = 0;  ///< index into the header's read groups
  /// The record's raw BAM aux bytes, kept only for a haplotype BAM (-bamout; HaplotypeBamOptions)
  /// and then carrying the tags the caller sets on it; empty otherwise.
  std::vector<std::uint8_t> aux;

  bool is_reverse_strand() const { return (flag & 0x10) != 0; }
  bool is_paired() const { return (flag & 0x1) != 0; }
  bool is_first_of_pair() const { return (flag & 0x40) != 0; }
  bool is_second_of_pair() const { return (flag & 0x80) != 0; }
  bool mate_is_unmapped() const { return (flag & 0x8) != 0; }
  bool mate_is_reverse_strand() const { return (flag & 0x20) != 0; }
  bool is_supplementary() const { return (flag & 0x800) != 0; }

  /// One past the last reference base the alignment covers (0-based, exclusive).
  std::int64_t end() const {
    return start + static_cast<std::int64_t>(cigar_reference_length(cigar));
  }
  /// GATK getSoftStart / getSoftEnd (0-based, end exclusive): the alignment extended by the soft
  /// clips at either end.
  std::int64_t soft_start() const {
    std::int64_t s = start;
    for (std::uint32_t e : cigar) {
      CigarOp op = cigar_op(e);
      if (op == CigarOp::kHardClip) continue;
      if (op != CigarOp::kSoftClip) break;
      s -= cigar_length(e);
    }
    return s;
  }
  std::int64_t soft_end() const {
    std::int64_t s = end();
    for (auto it = cigar.rbegin(); it != cigar.rend(); ++it) {
      CigarOp op = cigar_op(*it);
      if (op == CigarOp::kHardClip) continue;
      if (op != CigarOp::kSoftClip) break;
      s += cigar_length(*it);
    }
    return s;
  }
};

}  // namespace gpp::stages::call
