// One called site as the VCF writer needs it: what HaplotypeCaller's annotated VariantContext
// holds (alleles, QUAL, INFO annotations, one sample's GT:AD:DP:GQ:PL), and in reference-confidence
// (gVCF) mode also the <NON_REF> allele, FORMAT SB (in the sample annotations) and the physical
// phasing PGT:PID:PS.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stages/call/annotations/site_annotations.hpp"
#include "stages/call/genotype_assignment.hpp"

namespace gpp::stages::call {

/// The symbolic allele of reference-confidence mode (GATK Allele.NON_REF_ALLELE), as written.
inline constexpr const char* kNonRefAllele = "<NON_REF>";

/// HaplotypeCaller's physical phasing of one call (AssemblyBasedCallerUtils.phaseVC): FORMAT PGT
/// ("0|1" or "1|0"), PID (the phase group's first call, "POS_REF_ALT" with POS 1-based) and PS
/// (that call's 1-based position). The genotype is then written phased ('|').
struct PhaseInfo {
  std::string pgt;
  std::string pid;
  std::int64_t ps = 0;

  bool operator==(const PhaseInfo&) const = default;
};

struct VariantCall {
  std::int32_t contig = -1;
  std::int64_t position = 0;  ///< 0-based position of the reference allele
  /// REF first; '*' for a spanning deletion; kNonRefAllele. REF alone: a hom-ref site of
  /// --output-mode EMIT_ALL_CONFIDENT_SITES / EMIT_ALL_ACTIVE_SITES (ALT '.').
  std::vector<std::string> alleles;
  /// The bases dropped from the end of every allele but '*' and <NON_REF> when the call kept
  /// fewer alleles than it genotyped (GATK's reverseTrimAlleles after annotating).
  std::string trimmed_suffix;
  std::string id;                  ///< the ID column ('.' when empty): known-variant IDs
  double qual = 0.0;               ///< phred-scaled, as GATK reports it
  bool low_qual = false;           ///< FILTER LowQual (--output-mode EMIT_ALL_ACTIVE_SITES)
  std::vector<InfoField> info;     ///< sorted by key, formatted as GATK writes them
  Genotype genotype;               ///< allele indices into `alleles`
  SampleAnnotations sample;        ///< AD, DP, and SB in gVCF mode
  std::optional<PhaseInfo> phase;  ///< gVCF mode, diploid: physical phasing

  /// One past the last reference base the call spans (0-based, exclusive).
  std::int64_t end() const {
    return position + static_cast<std::int64_t>(alleles.empty() ? 1 : alleles[0].size());
  }

  friend bool operator<(const VariantCall& a, const VariantCall& b) {
    return a.contig != b.contig ? a.contig < b.contig : a.position < b.position;
  }
};

/// One reference position's confidence that the sample is homozygous reference: the per-base
/// VariantContext of GATK's ReferenceConfidenceModel (alleles REF,<NON_REF>; GT hom-ref).
struct ReferenceSite {
  std::int32_t contig = -1;
  std::int64_t position = 0;  ///< 0-based
  char ref_base = 'N';
  int ploidy = 2;
  std::array<int, 2> allele_depths{};  ///< FORMAT AD: reads supporting REF, not REF
  int depth = 0;                       ///< FORMAT DP
  int gq = 0;                          ///< FORMAT GQ (from the PLs, capped at 99)
  std::vector<int> pls;                ///< ploidy + 1 values: hom-ref first, hom-<NON_REF> last

  bool operator==(const ReferenceSite&) const = default;
};

}  // namespace gpp::stages::call
