// The alleles HaplotypeCaller is asked to genotype whatever the reads say (GATK --alleles,
// Parabricks --htvc-alleles), as GATK 4.6 force-calls them:
//  - a locus that an unfiltered record overlaps (POS .. POS + len(REF) - 1) is active with
//    probability 1 (HaplotypeCallerEngine.isActive), with reads or without;
//  - a region's given events are the records overlapping its padded span, split into biallelic
//    events (splitVariantContextToEvents without left trimming: a multi-allelic record per ALT,
//    each trimmed at its end), those starting before the region's span dropped;
//  - the events widen the calling window as assembled ones do, and are spliced into the
//    reference and the best assembled haplotypes after trimming (given_allele_haplotypes.hpp);
//  - an alternate allele at a site whose length change and bases agree with a given event
//    (allelesConsistentWithGivenAlleles: one ALT a prefix of the other, the position and REF not
//    compared) is forced: output even when it is not plausible, and the site emitted whatever its
//    QUAL.
// Filtered records (FILTER other than PASS or '.') take no part unless force_call_filtered.
// A contig's records may be read as the traversal reaches them, a piece at a time, and dropped
// once it has passed them, so that a file of millions of records (dbSNP) costs a piece's worth.
//
// @code
//   GivenAlleles given(records_of_the_contig, /*force_call_filtered=*/false);
//   given.overlaps(10004093);                          // true: POS 10004094 A>T
//   std::vector<Event> events = given.events_for_region({10003990, 10004200}, 10004050);
//   forced_allele("A", "T", "G", "T");                 // true
// @endcode
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "io/genome/known_variants.hpp"
#include "stages/call/contig_interval.hpp"
#include "stages/call/event_map.hpp"

namespace gpp::stages::call {

/// An allele that names no bases: symbolic (<DEL>, <NON_REF>, breakends) or '.'. '*' has bases.
bool is_symbolic_allele(std::string_view allele);

/**
 * @brief GATKVariantContextUtils.splitVariantContextToEvents(record, trimLeft = false) then
 * `new Event`: none for a record without ALT; a biallelic record as it is; each ALT of a
 * multi-allelic one with REF, both trimmed of the bases they share at their end (the symbolic
 * and '*' alleles aside, one base kept; nothing trimmed when an allele other than '*' has one
 * base). Each event is then put in minimal representation (a shared last base dropped while
 * both alleles are longer than one base).
 */
std::vector<Event> given_events(std::int64_t position, std::span<const std::string> alleles);

/// Reads the given records of one contig that start within [from, to), in file order.
using GivenRecordReader =
    std::function<std::vector<io::KnownVariant>(std::int64_t from, std::int64_t to)>;

/// Bases of a contig whose given records are read at a time (GivenAlleles' streaming form).
inline constexpr std::int64_t kGivenAllelePiece = std::int64_t{1} << 20;

/// The given records of one contig.
class GivenAlleles {
 public:
  GivenAlleles() = default;
  /// All the records at once. @param records the contig's records, in file order (by position)
  GivenAlleles(std::span<const io::KnownVariant> records, bool force_call_filtered);
  /// The records read through `reader` in pieces of `piece` bases as load_through() asks, over a
  /// contig of `contig_length` bases.
  GivenAlleles(GivenRecordReader reader, std::int64_t contig_length, bool force_call_filtered,
               std::int64_t piece = kGivenAllelePiece);

  /// No record at all (the streaming form cannot tell: false).
  bool empty() const { return !reader_ && spans_.empty(); }

  /// Streaming form: reads the pieces up to and including `position`'s, so that every record
  /// starting at `position` or before is held, dropping as it goes those release_before(
  /// `keep_from`) would (a traversal starting late in a contig holds no piece before it).
  /// Before the queries that reach `position`; not while another thread queries.
  void load_through(std::int64_t position, std::int64_t keep_from = 0);

  /// Drops the records that end before `position` and after which none reaches it: no later
  /// query may reach before `position`. Indices from records_reaching() are invalidated.
  void release_before(std::int64_t position);

  /// Whether a record covers `position` (the locus is then active).
  bool overlaps(std::int64_t position) const;

  /// The spans the records held cover, in order, each [first, last].
  const std::vector<ContigInterval>& spans() const { return spans_; }

  /// The records that may reach [from, to]: from the first whose span, or an earlier one's,
  /// ends at `from` or after, to the last starting at `to` or before (indices into spans()).
  std::pair<std::size_t, std::size_t> records_reaching(std::int64_t from, std::int64_t to) const;

  /// A region's given events: those of the records overlapping `padded_span`, in file order,
  /// less the ones starting before `span_start`.
  std::vector<Event> events_for_region(ContigInterval padded_span, std::int64_t span_start) const;

 private:
  /// Appends the records (those taking part, by position) after the ones held.
  void add_records(std::span<const io::KnownVariant> records);

  std::vector<ContigInterval> spans_;       ///< per record, by start
  std::vector<std::vector<Event>> events_;  ///< per record
  std::vector<std::int64_t> max_last_;      ///< per record: the largest span.last up to it
  bool force_call_filtered_ = false;
  GivenRecordReader reader_;        ///< streaming form only
  std::int64_t contig_length_ = 0;  ///< streaming form: where the pieces end
  std::int64_t piece_ = kGivenAllelePiece;
  std::int64_t loaded_to_ = 0;  ///< streaming form: the records starting before it are read
};

/**
 * @brief AssemblyBasedCallerUtils.allelesAreConsistent: neither ALT symbolic, the same length
 * change, and the shorter ALT a prefix of the longer.
 */
bool alleles_consistent(std::string_view given_ref, std::string_view given_alt,
                        std::string_view site_ref, std::string_view site_alt);

/// allelesConsistentWithGivenAlleles: the indices of `alleles` (REF first) whose ALT is
/// consistent with one of `given`, ascending.
std::vector<int> forced_alleles(std::span<const std::string> alleles, std::span<const Event> given);

}  // namespace gpp::stages::call
