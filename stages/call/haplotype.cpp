// GATK Haplotype: setCigar, trim, insertAllele, getConsolidatedPaddedCigar, SIZE_AND_BASE_ORDER.
#include "stages/call/haplotype.hpp"

#include <algorithm>
#include <cctype>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/cigar_edit.hpp"

namespace gpp::stages::call {

void set_haplotype_cigar(Haplotype& haplotype, std::span<const std::uint32_t> cigar) {
  std::vector<std::uint32_t> consolidated = GatkCigarBuilder(false).add_all(cigar).make();
  if (cigar_query_length(consolidated) != haplotype.bases.size()) {
    throw Error("Read length " + std::to_string(haplotype.bases.size()) +
                " not equal to the read length of the cigar " + cigar_to_string(consolidated));
  }
  haplotype.cigar = std::move(consolidated);
}

Haplotype make_haplotype(std::string_view bases, std::span<const std::uint32_t> cigar,
                         std::int64_t alignment_start_wrt_ref, ContigInterval location,
                         bool is_reference) {
  Haplotype haplotype;
  haplotype.bases.assign(bases);
  // htsjdk's SimpleAllele upper-cases the bases of every allele, haplotypes included
  for (char& c : haplotype.bases)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  set_haplotype_cigar(haplotype, cigar);
  haplotype.alignment_start_wrt_ref = alignment_start_wrt_ref;
  haplotype.location = location;
  haplotype.is_reference = is_reference;
  return haplotype;
}

std::optional<Haplotype> trim_haplotype(const Haplotype& haplotype, ContigInterval span,
                                        bool ignore_ref_state) {
  if (!haplotype.location.contains(span)) {
    throw Error("Can only trim a Haplotype to a containing span: haplotype at [" +
                std::to_string(haplotype.location.first) + ", " +
                std::to_string(haplotype.location.last) + "], trim to [" +
                std::to_string(span.first) + ", " + std::to_string(span.last) + "]");
  }
  if (haplotype.cigar.empty()) throw Error("Cannot trim haplotype without a cigar");

  const std::int64_t new_start = span.first - haplotype.location.first;
  const std::int64_t new_stop = new_start + span.last - span.first;

  std::optional<std::string> new_bases =
      bases_covering_ref_interval(new_start, new_stop, haplotype.bases, 0, haplotype.cigar);
  if (!new_bases || new_bases->empty()) return std::nullopt;

  // trimCigarByReference keeps edge insertions that getBasesCoveringRefInterval leaves out, so
  // they are removed here; deletions at the ends were already removed by its CigarBuilder
  std::vector<std::uint32_t> new_cigar =
      trim_cigar_by_reference(haplotype.cigar, new_start, new_stop).cigar;
  const bool leading_insertion = !consumes_reference(cigar_op(new_cigar.front()));
  const bool trailing_insertion = !consumes_reference(cigar_op(new_cigar.back()));
  const std::size_t first_kept = leading_insertion ? 1 : 0;
  const std::size_t last_kept_exclusive = new_cigar.size() - (trailing_insertion ? 1 : 0);
  if (last_kept_exclusive <= first_kept) return std::nullopt;  // nothing but an insertion

  std::vector<std::uint32_t> kept_cigar = new_cigar;
  if (leading_insertion || trailing_insertion) {
    kept_cigar = GatkCigarBuilder(false)
                     .add_all(std::span<const std::uint32_t>(new_cigar).subspan(
                         first_kept, last_kept_exclusive - first_kept))
                     .make();
  }

  Haplotype trimmed;
  trimmed.bases = std::move(*new_bases);
  trimmed.is_reference = ignore_ref_state ? false : haplotype.is_reference;
  set_haplotype_cigar(trimmed, kept_cigar);
  trimmed.location = span;
  trimmed.score = haplotype.score;
  trimmed.kmer_size = haplotype.kmer_size;
  trimmed.alignment_start_wrt_ref = new_start + haplotype.alignment_start_wrt_ref;
  return trimmed;
}

std::optional<std::string> insert_allele(const Haplotype& haplotype, std::string_view ref_allele,
                                         std::string_view alt_allele,
                                         std::int64_t insert_location) {
  const std::string& bases = haplotype.bases;
  // a deletion whose common base lies just before the haplotype
  if (ref_allele.size() > alt_allele.size() && insert_location == haplotype.location.first - 1) {
    const std::size_t deletion_size = ref_allele.size() - alt_allele.size();
    if (deletion_size > bases.size()) return std::nullopt;
    return bases.substr(deletion_size);
  }
  const ReadIndexAtReference at = read_index_for_reference_coordinate(
      haplotype.location.first, haplotype.cigar, insert_location);
  if (!at.found || !consumes_query(at.op)) return std::nullopt;
  const std::size_t index = static_cast<std::size_t>(at.index);
  if (index + ref_allele.size() > bases.size()) return std::nullopt;
  std::string result = bases.substr(0, index);
  result += alt_allele;
  result += bases.substr(index + ref_allele.size());
  return result;
}

std::vector<std::uint32_t> consolidated_padded_cigar(const Haplotype& haplotype,
                                                     std::uint32_t pad) {
  return GatkCigarBuilder()
      .add_all(haplotype.cigar)
      .add(cigar_element(CigarOp::kMatch, pad))
      .make();
}

bool size_and_base_less(const Haplotype& a, const Haplotype& b) {
  if (a.bases.size() != b.bases.size()) return a.bases.size() < b.bases.size();
  return a.bases < b.bases;
}

}  // namespace gpp::stages::call
