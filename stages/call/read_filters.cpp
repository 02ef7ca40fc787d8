// HaplotypeCaller's read transformer and filters (see the header): GATK ReadFilterLibrary,
// MappingQualityReadFilter, WellformedReadFilter, CigarUtils.isGood on htsjdk Cigar.isValid,
// BaseUtils.convertIUPACtoN and HaplotypeCallerEngine.filterNonPassingReads.
#include "stages/call/read_filters.hpp"

#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/read_geometry.hpp"

namespace gpp::stages::call {

namespace {

constexpr std::uint16_t kSecondaryFlag = 0x100, kQcFailFlag = 0x200, kDuplicateFlag = 0x400;

/// htsjdk's "real" operators: M = X I D N.
bool is_real(CigarOp op) {
  return op == CigarOp::kMatch || op == CigarOp::kSequenceMatch ||
         op == CigarOp::kSequenceMismatch || op == CigarOp::kInsertion ||
         op == CigarOp::kDeletion || op == CigarOp::kSkip;
}
bool is_indel(CigarOp op) { return op == CigarOp::kInsertion || op == CigarOp::kDeletion; }

bool has_consecutive_indels(std::span<const std::uint32_t> cigar) {
  bool previous_indel = false;
  for (std::uint32_t e : cigar) {
    const bool indel = is_indel(cigar_op(e));
    if (previous_indel && indel) return true;
    previous_indel = indel;
  }
  return false;
}

/// The first operator other than a clip, from the left or the right, is a deletion.
bool starts_or_ends_with_deletion(std::span<const std::uint32_t> cigar) {
  for (auto it = cigar.begin(); it != cigar.end(); ++it) {
    if (cigar_op(*it) == CigarOp::kDeletion) return true;
    if (!is_clipping(cigar_op(*it))) break;
  }
  for (auto it = cigar.rbegin(); it != cigar.rend(); ++it) {
    if (cigar_op(*it) == CigarOp::kDeletion) return true;
    if (!is_clipping(cigar_op(*it))) break;
  }
  return false;
}

/// BaseUtils' baseIndexWithIupacMap: 0 for A C G T, 1 for N and IUPAC codes, -1 otherwise (either
/// case), as a table: it is looked up for every base of every read.
constexpr std::array<std::int8_t, 256> kIupacClass = [] {
  std::array<std::int8_t, 256> classes{};
  classes.fill(-1);
  const auto set = [&classes](std::string_view letters, std::int8_t kind) {
    for (char upper : letters) {
      classes[static_cast<unsigned char>(upper)] = kind;
      classes[static_cast<unsigned char>(upper - 'A' + 'a')] = kind;
    }
  };
  set("ACGT", 0);
  set("NRYMKWSBDHV", 1);
  return classes;
}();

int iupac_class(unsigned char base) { return kIupacClass[base]; }

}  // namespace

std::string_view gatk_filter_name(ReadFilterFailure failure) {
  switch (failure) {
    case ReadFilterFailure::kNone:
      return "";
    case ReadFilterFailure::kMappingQuality:
      return "MappingQualityReadFilter";
    case ReadFilterFailure::kMappingQualityAvailable:
      return "MappingQualityAvailableReadFilter";
    case ReadFilterFailure::kMapped:
      return "MappedReadFilter";
    case ReadFilterFailure::kNotSecondaryAlignment:
      return "NotSecondaryAlignmentReadFilter";
    case ReadFilterFailure::kNotDuplicate:
      return "NotDuplicateReadFilter";
    case ReadFilterFailure::kPassesVendorQualityCheck:
      return "PassesVendorQualityCheckReadFilter";
    case ReadFilterFailure::kNonZeroReferenceLengthAlignment:
      return "NonZeroReferenceLengthAlignmentReadFilter";
    case ReadFilterFailure::kGoodCigar:
      return "GoodCigarReadFilter";
    case ReadFilterFailure::kReadLength:
      return "ReadLengthReadFilter";
    default:
      return "WellformedReadFilter";
  }
}

ReadFilterFailure first_failing_hc_read_filter(const CallRead& read,
                                               const ReadFilterContext& context) {
  using F = ReadFilterFailure;
  const int mq = read.mapping_quality;
  const auto on = [&context](F filter) {
    return (context.disabled & read_filter_bit(filter)) == 0;
  };
  if (on(F::kMappingQuality) && mq < context.min_mapping_quality) return F::kMappingQuality;
  if (on(F::kMappingQualityAvailable) && mq == kMappingQualityUnavailable) {
    return F::kMappingQualityAvailable;
  }
  if (is_unmapped(read)) return F::kMapped;
  if (on(F::kNotSecondaryAlignment) && (read.flag & kSecondaryFlag) != 0) {
    return F::kNotSecondaryAlignment;
  }
  if (on(F::kNotDuplicate) && (read.flag & kDuplicateFlag) != 0) return F::kNotDuplicate;
  if (on(F::kPassesVendorQualityCheck) && (read.flag & kQcFailFlag) != 0) {
    return F::kPassesVendorQualityCheck;
  }
  bool reference_length = false;
  for (std::uint32_t e : read.cigar) {
    reference_length = reference_length || (consumes_reference(cigar_op(e)) && cigar_length(e) > 0);
  }
  if (!reference_length) return F::kNonZeroReferenceLengthAlignment;
  if (!is_good_cigar(read.cigar)) return F::kGoodCigar;
  const F wellformed = first_failing_wellformed_check(read, context);
  if (wellformed != F::kNone) return wellformed;
  if (context.max_read_length > 0 &&
      static_cast<std::int64_t>(read.bases.size()) > context.max_read_length) {
    return F::kReadLength;
  }
  return F::kNone;
}

std::uint32_t disabled_read_filters(std::span<const std::string> names) {
  using F = ReadFilterFailure;
  constexpr F kCanBeDisabled[] = {F::kMappingQuality, F::kMappingQualityAvailable,
                                  F::kNotSecondaryAlignment, F::kNotDuplicate,
                                  F::kPassesVendorQualityCheck};
  constexpr F kRequired[] = {F::kMapped, F::kNonZeroReferenceLengthAlignment, F::kGoodCigar,
                             F::kValidAlignmentStart};
  std::uint32_t disabled = 0;
  for (const std::string& name : names) {
    bool known = false;
    for (const F filter : kCanBeDisabled) {
      if (gatk_filter_name(filter) != name) continue;
      disabled |= read_filter_bit(filter);
      known = true;
    }
    if (known) continue;
    for (const F filter : kRequired) {
      if (gatk_filter_name(filter) == name) {
        throw Error("--disable-read-filter " + name +
                    ": the caller needs mapped, well-formed alignments; it keeps this filter");
      }
    }
    std::string listed;
    for (const F filter : kCanBeDisabled)
      listed += std::string(listed.empty() ? "" : ", ") + std::string(gatk_filter_name(filter));
    throw Error("--disable-read-filter " + name +
                ": not one of HaplotypeCaller's read filters that can be disabled (" + listed +
                ")");
  }
  return disabled;
}

ReadFilterFailure first_failing_wellformed_check(const CallRead& read,
                                                 const ReadFilterContext& context) {
  using F = ReadFilterFailure;
  const bool unmapped = is_unmapped(read);
  // GATK's unmapped reads have no start (VALID_ALIGNMENT_START/END and the header check pass)
  if (!unmapped && read.start < 0) return F::kValidAlignmentStart;
  if (!unmapped && read.end() - read.start < 0) return F::kValidAlignmentEnd;
  if (!unmapped &&
      (read.contig < 0 || static_cast<std::size_t>(read.contig) >= context.contig_lengths.size() ||
       read.start >= context.contig_lengths[static_cast<std::size_t>(read.contig)])) {
    return F::kAlignmentAgreesWithHeader;
  }
  if (read.read_group >= context.read_group_count) return F::kHasReadGroup;
  if (read.quals.size() != read.bases.size()) return F::kMatchingBasesAndQuals;
  if (!unmapped && cigar_query_length(read.cigar) != read.bases.size()) {
    return F::kReadLengthEqualsCigarLength;
  }
  if (read.bases.empty()) return F::kSeqIsStored;
  for (std::uint32_t e : read.cigar) {
    if (cigar_op(e) == CigarOp::kSkip) return F::kCigarContainsNoNOperator;
  }
  return F::kNone;
}

bool is_valid_cigar(std::span<const std::uint32_t> cigar) {
  if (cigar.empty()) return true;
  const std::size_t n = cigar.size();
  bool seen_real = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (cigar_length(cigar[i]) == 0) return false;
    const CigarOp op = cigar_op(cigar[i]);
    if (op == CigarOp::kHardClip) {
      if (i != 0 && i != n - 1) return false;
    } else if (op == CigarOp::kSoftClip) {
      if (i == 0 || i == n - 1) {
        // fine
      } else if (i == 1) {
        const bool funky = n == 3 && cigar_op(cigar[2]) == CigarOp::kHardClip;
        if (!funky && cigar_op(cigar[0]) != CigarOp::kHardClip) return false;
      } else if (i == n - 2) {
        if (cigar_op(cigar[n - 1]) != CigarOp::kHardClip) return false;
      } else {
        return false;
      }
    } else if (is_real(op)) {
      seen_real = true;
      if (is_indel(op)) {  // two I or two D need an M, =, X, N or P between them
        for (std::size_t j = i + 1; j < n; ++j) {
          const CigarOp next = cigar_op(cigar[j]);
          if ((is_real(next) && !is_indel(next)) || next == CigarOp::kPadding) break;
          if (next == op) return false;
        }
      }
    } else if (op == CigarOp::kPadding) {
      if (i == 0) {
        // allowed: a read may start inside a pad
      } else if (i == n - 1) {
        return false;
      } else if (!is_real(cigar_op(cigar[i - 1])) || !is_real(cigar_op(cigar[i + 1]))) {
        return false;
      }
    }
  }
  return seen_real;
}

bool is_good_cigar(std::span<const std::uint32_t> cigar) {
  return is_valid_cigar(cigar) && !has_consecutive_indels(cigar) &&
         !starts_or_ends_with_deletion(cigar);
}

void convert_iupac_to_n(CallRead& read) {
  for (char& base : read.bases) {
    const int kind = iupac_class(static_cast<unsigned char>(base));
    if (kind == 1) {
      base = 'N';
    } else if (kind < 0) {
      throw ReadError("read " + read.name + ": non-standard, non-IUPAC base '" +
                      std::string(1, base) + "' in the read bases");
    }
  }
}

bool mate_on_same_contig_or_no_mapped_mate(const CallRead& read) {
  return !read.is_paired() || gatk_mate_is_unmapped(read) ||
         (!is_unmapped(read) && read.contig == read.mate_contig);
}

bool passes_genotyping_filter(const CallRead& read, const GenotypingFilterOptions& options) {
  if (unclipped_read_length(read) < kReadLengthFilterThreshold) return false;
  if (read.mapping_quality < options.mapping_quality_threshold) return false;
  if (!mate_on_same_contig_or_no_mapped_mate(read)) return false;
  if (options.keep_read_group && read.read_group != *options.keep_read_group) return false;
  return true;
}

}  // namespace gpp::stages::call
