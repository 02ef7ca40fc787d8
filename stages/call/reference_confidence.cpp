// GATK ReferenceConfidenceModel: per-base hom-ref confidence (see reference_confidence.hpp).
#include "stages/call/reference_confidence.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <utility>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/activity_math.hpp"
#include "stages/call/genotype_assignment.hpp"
#include "stages/call/locus_activity.hpp"
#include "stages/call/log10_math.hpp"
#include "stages/call/region_reads.hpp"

namespace gpp::stages::call {
namespace {

// ReferenceConfidenceModel.INDEL_QUAL: round(-10 * INDEL_ERROR_RATE), the rate being 10^-4.5.
constexpr unsigned kIndelQual = 45;
// AlignmentUtils.GAP_CHARACTER: a deleted base in a read's IGV view.
constexpr char kGap = '-';

// GATK Nucleotide masks (0bTGCA): IUPAC codes are the union of their bases, N all four, U is T,
// anything else (X, the gap, a zero byte) none.
constexpr std::array<std::uint8_t, 256> make_nucleotide_masks() {
  std::array<std::uint8_t, 256> masks{};
  constexpr std::uint8_t a = 1, c = 2, g = 4, t = 8;
  const std::pair<char, std::uint8_t> codes[] = {
      {'A', a},         {'C', c},         {'G', g},         {'T', t},
      {'U', t},         {'R', a | g},     {'Y', c | t},     {'S', c | g},
      {'W', a | t},     {'K', g | t},     {'M', a | c},     {'B', c | g | t},
      {'D', a | g | t}, {'H', a | c | t}, {'V', a | c | g}, {'N', a | c | g | t}};
  for (const auto& [code, mask] : codes) {
    masks[static_cast<unsigned char>(code)] = mask;
    masks[static_cast<unsigned char>(code - 'A' + 'a')] = mask;
  }
  return masks;
}
constexpr std::array<std::uint8_t, 256> kNucleotideMasks = make_nucleotide_masks();

// ReferenceConfidenceModel.isMismatchAndNotAnAlignmentGap (Nucleotide.intersect).
bool is_mismatch_and_not_gap(char read_base, char reference_base) {
  return (kNucleotideMasks[static_cast<unsigned char>(read_base)] &
          kNucleotideMasks[static_cast<unsigned char>(reference_base)]) == 0 &&
         read_base != kGap;
}

bool test_bit(const std::uint64_t* words, std::size_t word_count, std::int64_t index) {
  const auto i = static_cast<std::size_t>(index);
  return i / 64 < word_count && (words[i / 64] >> (i % 64) & 1) != 0;
}
void set_bit(std::uint64_t* words, std::int64_t index, bool value) {
  const auto i = static_cast<std::size_t>(index);
  const std::uint64_t bit = std::uint64_t{1} << (i % 64);
  words[i / 64] = value ? words[i / 64] | bit : words[i / 64] & ~bit;
}
void flip_bits(std::uint64_t* words, std::int64_t from, std::int64_t to) {  // BitSet.flip
  for (auto i = static_cast<std::size_t>(from); i < static_cast<std::size_t>(to); ++i) {
    words[i / 64] ^= std::uint64_t{1} << (i % 64);
  }
}

// getIndelPLs for one read count (initializeIndelPLCache), written to `out` (ploidy + 1 values).
void fill_indel_log10_likelihoods(int ploidy, int informative_reads, std::span<double> out) {
  std::fill(out.begin(), out.end(), 0.0);  // the answer for no informative read
  if (informative_reads == 0) return;
  const double no_indel = activity_math::qual_to_prob_log10(kIndelQual);
  const double indel = activity_math::qual_to_error_prob_log10(kIndelQual);
  const double denominator = -std::log10(static_cast<double>(ploidy));
  out[0] = informative_reads * no_indel;
  for (int alt_count = 1; alt_count <= ploidy; ++alt_count) {
    const double ref_term = no_indel + std::log10(static_cast<double>(ploidy - alt_count));
    const double alt_term = indel + std::log10(static_cast<double>(alt_count));
    out[static_cast<std::size_t>(alt_count)] =
        informative_reads * (approximate_log10_sum_log10(ref_term, alt_term) + denominator);
  }
}

void validate_ploidy(int ploidy) {
  if (ploidy < 1) throw Error("reference confidence: ploidy must be >= 1");
}

}  // namespace

int cigar_modified_offset(const PileupElement& element) {
  const auto counts = [](CigarOp op) { return consumes_reference(op) || op == CigarOp::kSoftClip; };
  int offset = counts(element.op) ? static_cast<int>(element.offset_in_cigar) : 0;
  const std::vector<std::uint32_t>& cigar = element.read->cigar;
  for (std::uint32_t i = 0; i < element.cigar_index; ++i) {
    if (counts(cigar_op(cigar[i]))) offset += static_cast<int>(cigar_length(cigar[i]));
  }
  return offset;
}

std::vector<double> indel_log10_likelihoods(int ploidy, int informative_reads) {
  validate_ploidy(ploidy);
  if (informative_reads < 0) throw Error("reference confidence: negative read count");
  std::vector<double> likelihoods(static_cast<std::size_t>(ploidy) + 1);
  fill_indel_log10_likelihoods(ploidy, std::min(informative_reads, kMaxIndelInformativeReads),
                               likelihoods);
  return likelihoods;
}

int gq_from_pls(std::span<const int> pls) {
  if (pls.size() < 2) throw Error("GQ from PLs: need at least two PLs");
  int first = pls[0];
  int second = pls[1];
  if (first > second) std::swap(first, second);
  for (std::size_t i = 2; i < pls.size(); ++i) {
    const int candidate = pls[i];
    if (candidate >= second) continue;
    if (candidate <= first) {
      second = first;
      first = candidate;
    } else {
      second = candidate;
    }
  }
  return second - first;
}

std::span<const double> likelihoods_with_worst_gq(std::span<const double> first,
                                                  std::span<const double> second) {
  return gq_log10_from_likelihoods(0, first) > gq_log10_from_likelihoods(0, second) ? first
                                                                                    : second;
}

IndelInformativeReads::IndelInformativeReads(std::span<const CallRead> reads,
                                             std::string_view reference, int max_indel_size)
    : reads_(reads), reference_(reference), max_indel_size_(max_indel_size), bits_(reads.size()) {
  if (max_indel_size < 0) {
    throw Error("--indel-size-to-eliminate-in-ref-model must be >= 0, not " +
                std::to_string(max_indel_size));
  }
}

int IndelInformativeReads::count(std::span<const PileupElement> pileup,
                                 std::int64_t reference_offset) {
  int informative = 0;
  for (const PileupElement& element : pileup) {
    if (informs(element, reference_offset) && ++informative > kMaxIndelInformativeReads) {
      return kMaxIndelInformativeReads;
    }
  }
  return informative;
}

bool IndelInformativeReads::read_has_no_plausible_indels(const PileupElement& element,
                                                         std::int64_t reference_offset) {
  const CallRead* read = element.read;
  if (reads_.empty() || std::less<>{}(read, reads_.data()) ||
      !std::less<>{}(read, reads_.data() + reads_.size())) {
    throw Error("indel informativeness: the pileup element's read is not one of the model's");
  }
  if (reference_offset < 0) {  // GATK: "refStart must >= 0"
    throw Error("indel informativeness: negative reference index " +
                std::to_string(reference_offset));
  }
  const int read_start = cigar_modified_offset(element);
  ReadBits& bits = bits_[static_cast<std::size_t>(read - reads_.data())];
  if (!bits.computed) compute(*read, bits, read_start, reference_offset);
  return test_bit(words_.data() + bits.first_word, bits.word_count, read_start);
}

// readHasNoPlausibleIdealsOfSize's computation, once per read: the bit of every offset from
// `read_start` on (true: no plausible indel), with GATK's boundaries kept as they are.
void IndelInformativeReads::compute(const CallRead& read, ReadBits& bits, std::int64_t read_start,
                                    std::int64_t ref_start) {
  bits.computed = true;
  const std::int64_t max_size = max_indel_size_;
  const auto length = static_cast<std::int64_t>(read.bases.size());
  const auto ref_length = static_cast<std::int64_t>(reference_.size());
  if (length - read_start < max_size || ref_length - ref_start < max_size) return;
  // GATK issue 5646: this bound uses the read's length, not its IGV view's.
  const std::int64_t secondary = length - max_size;

  // AlignmentUtils.getBasesAndBaseQualitiesAlignedOneToOne: the read itself unless its CIGAR has
  // an I or D; else M/=/X bases in place, D and N as gaps (quality 0), I skipped, and S skipped
  // too while its length still counts, leaving zero bytes at the end (as GATK does).
  const bool has_indel = std::any_of(read.cigar.begin(), read.cigar.end(), [](std::uint32_t e) {
    return cigar_op(e) == CigarOp::kInsertion || cigar_op(e) == CigarOp::kDeletion;
  });
  if (!has_indel) {
    aligned_bases_ = read.bases;
    aligned_quals_ = read.quals;
  } else {
    std::size_t padded_length = 0;
    for (std::uint32_t e : read.cigar) {
      const CigarOp op = cigar_op(e);
      if (consumes_reference(op) || op == CigarOp::kSoftClip) padded_length += cigar_length(e);
    }
    padded_bases_.assign(padded_length, '\0');
    padded_quals_.assign(padded_length, 0);
    std::size_t literal = 0;
    std::size_t padded = 0;
    for (std::uint32_t e : read.cigar) {
      const CigarOp op = cigar_op(e);
      const std::size_t n = cigar_length(e);
      if (consumes_query(op) && consumes_reference(op)) {
        std::copy_n(read.bases.begin() + static_cast<std::ptrdiff_t>(literal), n,
                    padded_bases_.begin() + static_cast<std::ptrdiff_t>(padded));
        std::copy_n(read.quals.begin() + static_cast<std::ptrdiff_t>(literal), n,
                    padded_quals_.begin() + static_cast<std::ptrdiff_t>(padded));
        literal += n;
        padded += n;
      } else if (consumes_query(op)) {
        literal += n;
      } else if (consumes_reference(op)) {
        std::fill_n(padded_bases_.begin() + static_cast<std::ptrdiff_t>(padded), n, kGap);
        padded += n;
      }
    }
    aligned_bases_ = padded_bases_;
    aligned_quals_ = padded_quals_;
  }
  const auto aligned_length = static_cast<std::int64_t>(aligned_bases_.size());
  if (aligned_length - read_start <= max_size) return;

  // Where marking stops: max_size before the end of whichever of read and reference ends first.
  const bool reference_was_shorter = aligned_length >= ref_length - ref_start + read_start + 1;
  const std::int64_t last = reference_was_shorter
                                ? ref_length - ref_start + read_start - max_size + 1
                                : aligned_length - max_size;

  // calculateBaselineMMQualities: mismatching quality from each offset to the end, no indel.
  const std::int64_t compared = std::min(aligned_length - read_start, ref_length - ref_start);
  baseline_.resize(static_cast<std::size_t>(compared));
  int sum = 0;
  for (std::int64_t i = compared - 1; i >= 0; --i) {
    if (is_mismatch_and_not_gap(aligned_bases_[read_start + i], reference_[ref_start + i])) {
      sum += aligned_quals_[read_start + i];
    }
    baseline_[static_cast<std::size_t>(i)] = sum;
  }

  bits.first_word = words_.size();
  bits.word_count = static_cast<std::size_t>(std::max(aligned_length, length)) / 64 + 1;
  words_.resize(words_.size() + bits.word_count, 0);
  std::uint64_t* words = words_.data() + bits.first_word;
  for (std::int64_t size = 1; size <= max_size; ++size) {
    mark_plausible_indels(read_start, ref_start, last, secondary, size, false, words);
    mark_plausible_indels(read_start, ref_start, last, secondary, size, true, words);
  }
  // The marks say "a plausible indel": flip them into "informative" up to where marking stops.
  if (last <= secondary) {
    flip_bits(words, 0, last);
    // The old rule's zero-base comparison left the last base uninformative when the reference
    // ends first.
    if (reference_was_shorter) set_bit(words, last - 1, false);
  } else {
    flip_bits(words, 0, secondary + 1);
  }
}

// traverseEndOfReadForIndelMismatches: align the read's tail with an indel of `indel_size` from
// the end backwards, summing mismatching qualities; mark each offset whose tail then costs no more
// than without the indel, until the sum exceeds the cost of the whole read without it.
void IndelInformativeReads::mark_plausible_indels(std::int64_t read_start, std::int64_t ref_start,
                                                  std::int64_t last, std::int64_t secondary,
                                                  std::int64_t indel_size, bool insertion,
                                                  std::uint64_t* words) const {
  const int global_cost = baseline_[0];
  const std::int64_t insertion_length = insertion ? indel_size : 0;
  const std::int64_t deletion_length = insertion ? 0 : indel_size;
  const std::int64_t compared =
      std::min(static_cast<std::int64_t>(aligned_bases_.size()) - read_start - insertion_length,
               static_cast<std::int64_t>(reference_.size()) - ref_start - deletion_length);
  int quality_sum = 0;
  for (std::int64_t read_offset = compared + insertion_length - 1,
                    ref_offset = compared + deletion_length - 1;
       read_offset >= 0 && ref_offset >= 0; --read_offset, --ref_offset) {
    if (is_mismatch_and_not_gap(aligned_bases_[read_start + read_offset],
                                reference_[ref_start + ref_offset])) {
      quality_sum += aligned_quals_[read_start + read_offset];
      if (quality_sum > global_cost) break;
    }
    const std::int64_t site = std::min(read_offset, ref_offset);
    if (aligned_bases_[read_start + site] != kGap && read_start + site < last &&
        read_start + site <= secondary &&
        baseline_[static_cast<std::size_t>(site)] >= quality_sum) {
      set_bit(words, read_start + site, true);
    }
  }
}

std::vector<ReferenceSite> reference_confidence(std::span<const CallRead> reads,
                                                std::int32_t contig, ReferenceWindow reference,
                                                ContigInterval span, int ploidy,
                                                const ReferenceConfidenceOptions& options) {
  validate_ploidy(ploidy);
  if (span.size() <= 0) return {};
  if (!reference.interval().contains(span)) {
    throw Error("reference confidence: span [" + std::to_string(span.first) + ", " +
                std::to_string(span.last) + "] is not inside the reference window starting at " +
                std::to_string(reference.start));
  }
  // getPileupsOverReference: the reads in ReadCoordinateComparator order (a stable sort).
  std::vector<const CallRead*> sorted;
  sorted.reserve(reads.size());
  for (const CallRead& read : reads) {
    if (read.contig != contig) {
      throw Error("reference confidence: read " + read.name + " is on contig " +
                  std::to_string(read.contig) + ", not " + std::to_string(contig));
    }
    sorted.push_back(&read);
  }
  const auto before = [](const CallRead* a, const CallRead* b) {
    return compare_read_coordinates(*a, *b) < 0;
  };
  // Finalised reads come sorted already.
  if (!std::is_sorted(sorted.begin(), sorted.end(), before)) {
    std::stable_sort(sorted.begin(), sorted.end(), before);
  }

  PileupWalker walker;
  RefVsAnyAccumulator snp(ploidy, options.min_base_quality, options.deletion_quality, true);
  IndelInformativeReads indel(reads, reference.bases, options.indel_size_to_eliminate);
  const auto likelihood_count = static_cast<std::size_t>(ploidy) + 1;
  std::vector<double> indel_table((kMaxIndelInformativeReads + 1) * likelihood_count);
  for (int n = 0; n <= kMaxIndelInformativeReads; ++n) {
    fill_indel_log10_likelihoods(
        ploidy, n,
        std::span(indel_table)
            .subspan(static_cast<std::size_t>(n) * likelihood_count, likelihood_count));
  }
  std::vector<double> capped(likelihood_count);

  std::vector<ReferenceSite> sites;
  sites.reserve(static_cast<std::size_t>(span.size()));
  std::size_t next_read = 0;
  for (std::int64_t position = span.first; position <= span.last; ++position) {
    while (next_read < sorted.size() && sorted[next_read]->start <= position) {
      walker.add_read(*sorted[next_read++]);
    }
    const std::int64_t ref_offset = position - reference.start;
    const char ref_base = reference.bases[static_cast<std::size_t>(ref_offset)];

    // Each element of the pileup, in its order, into both models (IndelInformativeReads::count
    // fused in: no read is asked once more than kMaxIndelInformativeReads have answered).
    snp.reset(ref_base);
    int informative = 0;
    walker.for_each_element_at(position, [&](const PileupElement& element) {
      snp.add(element);
      if (informative <= kMaxIndelInformativeReads && indel.informs(element, ref_offset)) {
        ++informative;
      }
    });
    informative = std::min(informative, kMaxIndelInformativeReads);
    const std::span<const double> likelihoods = snp.finish();
    for (std::size_t i = 0; i < likelihood_count; ++i) {
      capped[i] = std::min(likelihoods[i], likelihoods[0]);  // capped by the hom-ref likelihood
    }
    const std::span<const double> indel_likelihoods =
        std::span<const double>(indel_table)
            .subspan(static_cast<std::size_t>(informative) * likelihood_count, likelihood_count);

    ReferenceSite& site = sites.emplace_back();
    site.contig = contig;
    site.position = position;
    site.ref_base = ref_base;
    site.ploidy = ploidy;
    site.allele_depths = {snp.ref_depth(), snp.non_ref_depth()};
    site.depth = snp.ref_depth() + snp.non_ref_depth();
    site.pls = pls_from_log10_likelihoods(likelihoods_with_worst_gq(indel_likelihoods, capped));
    site.gq = std::min(gq_from_pls(site.pls), kMaxGenotypeQuality);
  }
  return sites;
}

}  // namespace gpp::stages::call
