#include "stages/call/haplotype_cigar.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpp::stages::call {

namespace {

constexpr std::string_view kPadding = "NNNNNNNNNN";  // GATK CigarUtils.SW_PAD

struct Element {
  CigarOp op;
  std::int64_t length;
};
using Cigar = std::vector<Element>;

/// What GATK would signal with an exception: the pair gets no CIGAR.
struct GatkRejects : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool consumes_read(CigarOp op) {
  return op == CigarOp::kMatch || op == CigarOp::kInsertion || op == CigarOp::kSoftClip;
}
bool consumes_ref(CigarOp op) { return op == CigarOp::kMatch || op == CigarOp::kDeletion; }
bool is_indel(CigarOp op) { return op == CigarOp::kInsertion || op == CigarOp::kDeletion; }
std::int64_t read_length(const Element& e) { return consumes_read(e.op) ? e.length : 0; }
std::int64_t ref_length(const Element& e) { return consumes_ref(e.op) ? e.length : 0; }

/// GATK CigarBuilder (removing deletions at the ends) for clip-free CIGARs: merges neighbours with
/// one operator, drops leading deletions, puts a deletion before an adjacent insertion, and
/// counts the deletion bases it drops at either end.
class CigarBuilder {
 public:
  void add(Element e) {
    if (e.length == 0) return;
    if (e.op == CigarOp::kDeletion) {
      // a deletion at the start, or right after a leading insertion, is dropped
      if (elements_.empty() || (last_ == CigarOp::kInsertion && elements_.size() == 1)) {
        leading_removed_ += e.length;
        return;
      }
    }
    if (!elements_.empty() && e.op == last_) {
      elements_.back().length += e.length;
    } else if (e.op == CigarOp::kDeletion && last_ == CigarOp::kInsertion) {
      // "ID" becomes "DI"; the last operator stays the insertion
      const std::size_t size = elements_.size();
      if (size > 1 && elements_[size - 2].op == CigarOp::kDeletion) {
        elements_[size - 2].length += e.length;
      } else {
        elements_.insert(elements_.end() - 1, e);
      }
    } else {
      elements_.push_back(e);
      last_ = e.op;
    }
  }
  /// make(): drops a trailing deletion (or the D of a trailing DI); an empty result is an error.
  Cigar make() {
    trailing_removed_ = 0;
    const std::size_t size = elements_.size();
    if (size > 0 && last_ == CigarOp::kDeletion) {
      trailing_removed_ = elements_.back().length;
      elements_.pop_back();
    } else if (size > 1 && last_ == CigarOp::kInsertion &&
               elements_[size - 2].op == CigarOp::kDeletion) {
      trailing_removed_ = elements_[size - 2].length;
      elements_.erase(elements_.end() - 2);
    }
    if (elements_.empty()) throw GatkRejects("no cigar elements left");
    return elements_;
  }
  std::int64_t leading_removed() const { return leading_removed_; }
  std::int64_t trailing_removed() const { return trailing_removed_; }

 private:
  Cigar elements_;
  CigarOp last_ = CigarOp::kMatch;
  std::int64_t leading_removed_ = 0;
  std::int64_t trailing_removed_ = 0;
};

struct BuiltCigar {
  Cigar cigar;
  std::int64_t leading_deletions_removed = 0;
  std::int64_t trailing_deletions_removed = 0;
};

BuiltCigar build(CigarBuilder& builder) {
  BuiltCigar result;
  result.cigar = builder.make();
  result.leading_deletions_removed = builder.leading_removed();
  result.trailing_deletions_removed = builder.trailing_removed();
  return result;
}

/// GATK AlignmentUtils.trimCigarByBases: the part of `cigar` covering read bases [start, end].
BuiltCigar trim_cigar_by_bases(const Cigar& cigar, std::int64_t start, std::int64_t end) {
  CigarBuilder builder;
  std::int64_t element_end = 0;
  for (const Element& e : cigar) {
    const std::int64_t element_start = element_end;
    element_end = element_start + read_length(e);
    // zero-length elements exactly at either end are kept
    if (element_end < start || (element_end == start && element_start < start)) continue;
    if (element_start > end && element_end > end + 1) break;
    const std::int64_t overlap = element_end == element_start ? e.length
                                                              : std::min(end + 1, element_end) -
                                                                    std::max(start, element_start);
    builder.add({e.op, overlap});
  }
  if (element_end <= end) throw GatkRejects("cigar does not reach the end position");
  return build(builder);
}

/// GATK IndexRange: [start, end), never negative nor inverted.
struct Range {
  std::int64_t start, end;
  std::int64_t size() const { return end - start; }
  void set(std::int64_t s, std::int64_t e) {
    if (s > e || s < 0) throw GatkRejects("invalid index range");
    start = s;
    end = e;
  }
  void shift_start(std::int64_t by) { set(start + by, end); }
  void shift_end(std::int64_t by) { set(start, end + by); }
  void shift(std::int64_t by) { set(start + by, end + by); }
};

unsigned char at(std::string_view s, std::int64_t i) {
  if (i < 0 || i >= static_cast<std::int64_t>(s.size())) throw GatkRejects("index out of bounds");
  return static_cast<unsigned char>(s[static_cast<std::size_t>(i)]);
}

/// GATK AlignmentUtils.normalizeAlleles for (ref, read) with trimming: drops shared bases at the
/// right, then at the left, of the two alleles, then shifts both left (at most max_shift) while
/// the base before them equals the last base of each. Returns (start shift, end shift).
std::pair<std::int64_t, std::int64_t> normalize_alleles(std::string_view ref, std::string_view read,
                                                        Range& ref_range, Range& read_range,
                                                        std::int64_t max_shift) {
  if (max_shift > ref_range.start || max_shift > read_range.start) {
    throw GatkRejects("maxShift goes past the start of a sequence");
  }
  const auto last_same = [&] { return at(ref, ref_range.end - 1) == at(read, read_range.end - 1); };
  const auto first_same = [&] { return at(ref, ref_range.start) == at(read, read_range.start); };
  const auto before_same = [&] {
    return at(ref, ref_range.start - 1) == at(read, read_range.start - 1);
  };
  std::int64_t start_shift = 0, end_shift = 0;
  std::int64_t min_size = std::min(ref_range.size(), read_range.size());
  while (min_size > 0 && last_same()) {
    ref_range.shift_end(-1);
    read_range.shift_end(-1);
    --min_size;
    ++end_shift;
  }
  while (min_size > 0 && first_same()) {
    ref_range.shift_start(1);
    read_range.shift_start(1);
    --min_size;
    --start_shift;
  }
  while (start_shift < max_shift && before_same() && last_same()) {
    ref_range.shift(-1);
    read_range.shift(-1);
    ++start_shift;
    ++end_shift;
  }
  return {start_shift, end_shift};
}

/// GATK AlignmentUtils.leftAlignIndels: walks the CIGAR right to left, gathering adjacent indels
/// and moving them left across repeats as far as the alignment block before them allows.
BuiltCigar left_align_indels(const Cigar& cigar, std::string_view ref, std::string_view read,
                             std::int64_t read_start) {
  const auto last_indel =
      std::find_if(cigar.rbegin(), cigar.rend(), [](const Element& e) { return is_indel(e.op); });
  if (last_indel == cigar.rend()) return {cigar, 0, 0};
  std::int64_t necessary_ref = read_start;
  for (auto it = cigar.begin(); it != last_indel.base(); ++it) necessary_ref += ref_length(*it);
  if (necessary_ref > static_cast<std::int64_t>(ref.size()))
    throw GatkRejects("read goes past end of reference");

  std::int64_t cigar_ref_length = 0;
  for (const Element& e : cigar) cigar_ref_length += ref_length(e);
  Cigar right_to_left;
  Range ref_range{0, 0}, read_range{0, 0};
  ref_range.set(read_start + cigar_ref_length, read_start + cigar_ref_length);
  read_range.set(static_cast<std::int64_t>(read.size()), static_cast<std::int64_t>(read.size()));
  for (std::size_t k = cigar.size(); k-- > 0;) {
    const Element& e = cigar[k];
    if (is_indel(e.op)) {
      ref_range.shift_start(-ref_length(e));
      read_range.shift_start(-read_length(e));
    } else if (ref_range.size() == 0 && read_range.size() == 0) {
      right_to_left.push_back(e);
      ref_range.shift(-ref_length(e));
      read_range.shift(-read_length(e));
    } else {
      const bool alignment = e.op == CigarOp::kMatch;  // indels may move into M, not into clips
      const std::int64_t max_shift = alignment ? e.length : 0;
      const auto [start_shift, end_shift] =
          normalize_alleles(ref, read, ref_range, read_range, max_shift);
      right_to_left.push_back({CigarOp::kMatch, end_shift});  // matches now right of the indel
      const bool emit_indel = k == 0 || start_shift < max_shift || !alignment;
      const std::int64_t new_match_on_left = start_shift < 0 ? -start_shift : 0;
      const std::int64_t remaining = start_shift < 0 ? e.length : e.length - start_shift;
      if (emit_indel) {
        right_to_left.push_back({CigarOp::kDeletion, ref_range.size()});
        right_to_left.push_back({CigarOp::kInsertion, read_range.size()});
        ref_range.shift_end(-ref_range.size());
        read_range.shift_end(-read_range.size());
        ref_range.shift(-(new_match_on_left + (consumes_ref(e.op) ? remaining : 0)));
        read_range.shift(-(new_match_on_left + (consumes_read(e.op) ? remaining : 0)));
      }
      right_to_left.push_back({CigarOp::kMatch, new_match_on_left});
      right_to_left.push_back({e.op, remaining});
    }
  }
  right_to_left.push_back({CigarOp::kDeletion, ref_range.size()});
  right_to_left.push_back({CigarOp::kInsertion, read_range.size()});
  if (read_range.start != 0) throw GatkRejects("cigar does not account for all bases of the read");
  CigarBuilder builder;
  for (auto it = right_to_left.rbegin(); it != right_to_left.rend(); ++it) builder.add(*it);
  return build(builder);
}

/// calculateCigar after the alignment of the padded pair; std::nullopt where GATK returns null.
std::optional<Cigar> finish_haplotype_cigar(std::string_view ref, std::string_view alt,
                                            std::int32_t offset,
                                            std::span<const std::uint32_t> aligned) {
  if (offset > 0) return std::nullopt;  // GATK isSWFailure
  Cigar padded;
  for (std::uint32_t element : aligned) {
    if (cigar_op(element) == CigarOp::kSoftClip) return std::nullopt;
    padded.push_back({cigar_op(element), cigar_length(element)});
  }
  const auto pad = static_cast<std::int64_t>(kPadding.size());
  BuiltCigar trimmed =
      trim_cigar_by_bases(padded, pad, pad + static_cast<std::int64_t>(alt.size()) - 1);
  Cigar non_standard = std::move(trimmed.cigar);
  if (trimmed.trailing_deletions_removed > 0) {  // kept for the left alignment
    non_standard.push_back({CigarOp::kDeletion, trimmed.trailing_deletions_removed});
  }
  BuiltCigar aligned_left =
      left_align_indels(non_standard, ref, alt, trimmed.leading_deletions_removed);
  const std::int64_t leading =
      trimmed.leading_deletions_removed + aligned_left.leading_deletions_removed;
  const std::int64_t trailing = aligned_left.trailing_deletions_removed;
  Cigar result;
  if (leading > 0) result.push_back({CigarOp::kDeletion, leading});
  result.insert(result.end(), aligned_left.cigar.begin(), aligned_left.cigar.end());
  if (trailing > 0) result.push_back({CigarOp::kDeletion, trailing});
  return result;
}

std::vector<std::uint32_t> pack(const Cigar& cigar) {
  std::vector<std::uint32_t> packed;
  packed.reserve(cigar.size());
  for (const Element& e : cigar)
    packed.push_back(cigar_element(e.op, static_cast<std::uint32_t>(e.length)));
  return packed;
}

}  // namespace

HaplotypeCigars calculate_cigars(const kernels::SequencePairs& pairs,
                                 kernels::SmithWaterman& aligner,
                                 const kernels::SwParameters& parameters,
                                 kernels::OverhangStrategy strategy, kernels::SwStats* stats) {
  const std::size_t count = pairs.size();
  std::vector<std::optional<std::vector<std::uint32_t>>> cigars(count);
  std::vector<std::uint32_t> aligned_index;  // pair -> its padded pair in `padded`
  kernels::SequencePairs padded;
  std::string padded_ref, padded_alt;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view ref = pairs.ref(i), alt = pairs.alt(i);
    if (alt.empty()) {  // "horrible edge case from the unit tests"
      cigars[i] = std::vector<std::uint32_t>{
          cigar_element(CigarOp::kDeletion, static_cast<std::uint32_t>(ref.size()))};
    } else if (ref == alt) {
      cigars[i] = std::vector<std::uint32_t>{
          cigar_element(CigarOp::kMatch, static_cast<std::uint32_t>(ref.size()))};
    } else {
      padded_ref.assign(kPadding).append(ref).append(kPadding);
      padded_alt.assign(kPadding).append(alt).append(kPadding);
      aligned_index.push_back(static_cast<std::uint32_t>(i));
      padded.add(padded_ref, padded_alt);
    }
  }
  const kernels::SwAlignments alignments = aligner.align(padded, parameters, strategy, stats);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, aligned_index.size(), 256),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                const std::size_t i = aligned_index[k];
                                try {
                                  const auto cigar = finish_haplotype_cigar(
                                      pairs.ref(i), pairs.alt(i), alignments.offset(k),
                                      alignments.cigar(k));
                                  if (cigar) cigars[i] = pack(*cigar);
                                } catch (const GatkRejects&) {
                                  // GATK throws here; the pair has no CIGAR
                                }
                              }
                            });

  HaplotypeCigars out;
  out.found.resize(count);
  out.starts.resize(count + 1);
  for (std::size_t i = 0; i < count; ++i) {
    out.starts[i] = out.elements.size();
    out.found[i] = cigars[i].has_value();
    if (cigars[i]) out.elements.insert(out.elements.end(), cigars[i]->begin(), cigars[i]->end());
  }
  out.starts[count] = out.elements.size();
  return out;
}

}  // namespace gpp::stages::call
